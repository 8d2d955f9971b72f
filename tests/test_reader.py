"""The record reader: the standard library's JSON, strict. A repeated key, NaN or Infinity, a
number no double holds, an integer too long to be a measurement, a lone surrogate, a byte-order
mark, NUL bytes, bytes that aren't UTF-8, nesting too deep, or a top level that isn't an object
are refused with a sentence; anything else reads as `json.loads` reads it. Nothing raises but
RecordFileError."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from roofbot.adapters.jsonfile import MAX_BYTES, RecordFileError, parse_record_bytes
from tests.conftest import FIXTURES, REAL

# JSON written by hand, so that an object may repeat a key and spacing may vary.
_EDGES = [2**63 - 1, 2**63, 2**64 - 1, 2**64, 10**29, 10**30 - 1, 10**30, 10**40]
NUMBER = st.tuples(
    st.sampled_from(["", "-"]),
    (st.integers(0, 10**40) | st.sampled_from(_EDGES)).map(str),
    st.just("") | st.integers(0, 10**20).map(lambda f: f".{f}"),
    st.just("")
    | st.tuples(
        st.sampled_from("eE"), st.sampled_from(["", "+", "-"]), st.integers(0, 999).map(str)
    ).map("".join),
).map("".join)
STRING = st.text(alphabet=st.sampled_from('ab":\\ \n\té\x01'), max_size=8).map(
    lambda s: json.dumps(s, ensure_ascii=False)
) | st.sampled_from(['"\\ud800"', '"\\ud83d\\ude00"', '"a\\":b"', '"\\u0022:"', '"\\\\"'])
COLON = st.sampled_from([":", ": ", " :", " : ", "\n:\t"])
SCALAR = NUMBER | STRING | st.sampled_from(["true", "false", "null", "NaN", "-Infinity", "1e400"])


def _obj(pairs: list[tuple[str, str, str]]) -> str:
    return "{" + ", ".join(k + c + v for k, c, v in pairs) + "}"


KEY = st.sampled_from(['"a"', '"b"', '"id"', '"a\\":"', '"é"']) | STRING
VALUE = st.recursive(
    SCALAR,
    lambda inner: (
        st.lists(inner, max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]")
        | st.lists(st.tuples(KEY, COLON, inner), max_size=4).map(_obj)
    ),
    max_leaves=12,
)
DOCUMENT = st.lists(st.tuples(KEY, COLON, VALUE), max_size=5).map(_obj)


def _plain(raw: bytes) -> object:
    """`json.loads` with every repeated key noted (as a key the reader refuses)."""

    def pairs(items: list[tuple[str, object]]) -> dict[str, object]:
        keys = [k for k, _ in items]
        if len(set(keys)) != len(keys):
            raise ValueError("repeated key")
        return dict(items)

    return json.loads(raw.decode("utf-8"), object_pairs_hook=pairs)


def _refusable(raw: bytes) -> bool:
    """What the reader must refuse where plain json.loads would read something."""
    try:
        data = _plain(raw)
    except (ValueError, RecursionError):
        return True
    text = json.dumps(data)
    return not isinstance(data, dict) or "NaN" in text or "Infinity" in text


@settings(max_examples=500)
@given(DOCUMENT)
@example('{"a": 1, "a": 2}')
@example('{"a": {"b": 1}, "c": {"b": 2}}')
@example('{"a" : 1, "a":2}')
@example('{"a": "x\\": y", "b": 1}')
@example('{"a": 123456789012345678901234567890}')
@example('{"a": 1234567890123456789012345678901}')
@example('{"a": -9223372036854775809, "b": 18446744073709551615}')
@example('{"a": 1e400}')
@example('{"a": 1e-400, "b": -0.0, "c": -0, "d": 1E5}')
@example('{"a": "\\ud800"}')
@example('{"a": "\\ud83d\\ude00"}')
def test_a_document_reads_as_json_loads_reads_it_or_is_refused(doc: str) -> None:
    raw = doc.encode("utf-8")
    try:
        parsed = parse_record_bytes(raw)
    except RecordFileError as e:
        assert str(e)
        return
    assert not _refusable(raw)
    assert repr(parsed.data) == repr(_plain(raw))  # repr tells 1 from 1.0, -0.0 from 0.0
    assert parsed.text == doc


@settings(max_examples=300)
@given(st.binary(max_size=200) | VALUE.map(lambda v: v.encode("utf-8", "surrogatepass")))
def test_any_bytes_are_read_or_refused_never_a_crash(raw: bytes) -> None:
    try:
        parsed = parse_record_bytes(raw)
    except RecordFileError:
        return
    assert isinstance(parsed.data, dict)
    parsed.text.encode("utf-8")  # no lone surrogate got through


@pytest.mark.parametrize("depth", [10, 240, 260, 600, 990, 1000, 1030, 5000])
def test_deep_nesting_is_read_or_refused_with_a_sentence(depth: int) -> None:
    for raw in (
        b'{"a": ' + b"[" * depth + b"]" * depth + b"}",
        b'{"a": ' + b'{"b": ' * depth + b"1" + b"}" * depth + b"}",
    ):
        try:
            parse_record_bytes(raw)
        except RecordFileError as e:
            assert "nested too deeply" in str(e)


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        (b'{"id": "x", "value": 1, "value": 2}', "'value' appears twice"),
        (b'{"a": 1e400}', "overflows a double"),
        (b'{"a": NaN}', "NaN is not a JSON number"),
        (b'{"a": -Infinity}', "-Infinity is not a JSON number"),
        (b'{"a": 1234567890123456789012345678901}', "31 digits is not a measurement"),
        (b'{"a": "\\ud800"}', "half of a surrogate pair"),
        (b"[1]", "top level is a JSON list"),
        (b'\xef\xbb\xbf{"a": 1}', "byte-order mark"),
        (b'{"a": "\x00"}', "NUL bytes"),
        (b'{"a": "\xff"}', "not UTF-8 (bad byte at offset 7)"),
        (b'{"a": 1,}', "invalid JSON at line 1 column 8: a trailing comma"),
        (b" " * (MAX_BYTES + 1), "over the 2 MiB limit"),
    ],
)
def test_what_is_refused_says_why(raw: bytes, why: str) -> None:
    with pytest.raises(RecordFileError, match=None) as refused:
        parse_record_bytes(raw)
    assert why in str(refused.value)


def test_a_long_integer_is_read_as_written() -> None:
    raw = b'{"a": 123456789012345678901234567890}'
    assert parse_record_bytes(raw).data["a"] == 123456789012345678901234567890


def _record_files() -> list[Path]:
    folders = [FIXTURES] + ([REAL] if REAL.is_dir() else [])
    return [p for f in folders for p in sorted((f / "data").rglob("*.json"))]


def test_every_real_record_reads_as_json_loads_reads_it() -> None:
    files = _record_files()
    assert files
    for path in files:
        raw = path.read_bytes()
        try:
            parsed = parse_record_bytes(raw)
        except RecordFileError:
            assert _refusable(raw), path
            continue
        assert parsed.data == json.loads(raw), path
