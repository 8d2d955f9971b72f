"""The record reader's two paths read alike: orjson's result is kept only where the standard
library's reader, the reference, would give the same dict (same keys, same order, same types,
same values) and the same text; every other file, and every refusal, is the reference's."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from roofbot.adapters.jsonfile import (
    RecordFileError,
    _orjson_reads_as_written,
    parse_record_bytes,
    parse_record_bytes_stdlib,
)
from tests.conftest import FIXTURES, REAL


def outcome(reader: Any, raw: bytes) -> tuple[str, ...]:
    """What a reader made of `raw`: repr tells 1 from 1.0 from True, and -0.0 from 0.0."""
    try:
        parsed = reader(raw)
    except RecordFileError as e:
        return ("refused", str(e))
    return ("read", repr(parsed.data), parsed.text)


def assert_alike(raw: bytes) -> None:
    assert outcome(parse_record_bytes, raw) == outcome(parse_record_bytes_stdlib, raw)


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
def test_both_readers_read_every_document_alike(doc: str) -> None:
    assert_alike(doc.encode("utf-8"))


@settings(max_examples=300)
@given(st.binary(max_size=200) | VALUE.map(lambda v: v.encode("utf-8", "surrogatepass")))
def test_both_readers_read_any_bytes_alike(raw: bytes) -> None:
    assert_alike(raw)


@pytest.mark.parametrize("depth", [10, 240, 260, 600, 990, 1000, 1030, 5000])
def test_both_readers_read_deep_nesting_alike(depth: int) -> None:
    assert_alike(b'{"a": ' + b"[" * depth + b"]" * depth + b"}")
    assert_alike(b'{"a": ' + b'{"b": ' * depth + b"1" + b"}" * depth + b"}")


@pytest.mark.parametrize(
    "raw",
    [b'{"a": 1, "a": 2}', b'{"a": 1e400}', b'{"a": "\\ud800"}', b"[1]", b'{"a": NaN}'],
)
def test_the_reference_words_what_orjson_reads_differently_or_refuses(raw: bytes) -> None:
    with pytest.raises(RecordFileError):
        parse_record_bytes(raw)


def test_a_repeated_key_is_refused_though_orjson_reads_it() -> None:
    raw = b'{"id": "x", "value": 1, "value": 2}'
    assert orjson.loads(raw) == {"id": "x", "value": 2}
    assert not _orjson_reads_as_written(orjson.loads(raw), raw)
    with pytest.raises(RecordFileError, match="'value' appears twice"):
        parse_record_bytes(raw)


def test_a_long_integer_is_read_as_written_not_as_orjsons_float() -> None:
    raw = b'{"a": 123456789012345678901234567890}'
    assert isinstance(orjson.loads(raw)["a"], float)
    assert parse_record_bytes(raw).data["a"] == 123456789012345678901234567890


def _record_files() -> list[Path]:
    folders = [FIXTURES] + ([REAL] if REAL.is_dir() else [])
    return [p for f in folders for p in sorted((f / "data").rglob("*.json"))]


def test_real_records_read_alike_and_take_the_fast_path() -> None:
    """The fast path is the one the corpus takes (else it would be dead weight): every file
    that parses is read by orjson, unless a string in it holds an escaped quote before a
    colon (a command line quoting JSON, a chat template), which the key count can't tell
    from a key. 9 of the users' 566 files do."""
    if not REAL.is_dir():
        pytest.skip(f"the users' corpus is not at {REAL}; the fixtures alone are read")
    parsed = declined = 0
    for path in _record_files():
        raw = path.read_bytes()
        assert_alike(raw)
        try:
            parse_record_bytes_stdlib(raw)
        except RecordFileError:
            continue
        parsed += 1
        if not _orjson_reads_as_written(orjson.loads(raw), raw):
            assert re.search(rb'\\"[ \t\n\r]*:', raw), path
            declined += 1
    assert parsed > 500
    assert declined <= parsed // 50
