"""Hypothesis properties: percent is linear in value, a roof never rises when bytes rise,
GiB/GB round trips, and extraction never raises on arbitrary text."""

from __future__ import annotations

import contextlib
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from roofbot.adapters.jsonfile import RecordFileError, parse_record_bytes
from roofbot.core.catalogue import build_catalogue
from roofbot.core.check import check_record
from roofbot.core.config import Config, parse_config
from roofbot.core.results import Verdict
from roofbot.core.units import GB, GiB, parse_size

CAT = build_catalogue(
    accelerators=[
        {
            "id": "gpu",
            "name": "Test GPU 100",
            "memory_bandwidth_gbps": 1000,
            "flops": [{"precision": "fp16", "tflops": 100, "dense": True}],
        }
    ],
)


def rec(value: float, methodology: str = "1x Test GPU 100, batch size 1, FP16") -> dict[str, Any]:
    return {
        "id": "r",
        "type": "benchmark",
        "metric": "decode_tok_s",
        "value": value,
        "unit": "tok/s",
        "model": "Some 7B",
        "accelerator_ids": ["gpu"],
        "methodology": methodology,
        "notes": "",
        "name": "n",
        "status": "verified",
    }


DEFAULT = Config()


def memory(value: float, cfg: Config = DEFAULT) -> Any:
    r = check_record(rec(value), "r.json", CAT, cfg)
    return next(c for c in r.checks if c.check.value == "memory-roof")


@given(st.floats(min_value=0.01, max_value=1e6), st.floats(min_value=0.1, max_value=100))
def test_percent_is_linear_in_value(v: float, k: float) -> None:
    a, b = memory(v), memory(v * k)
    assert abs(b.percent - k * a.percent) <= 1e-9 * max(1.0, b.percent)


@given(st.floats(min_value=0.5, max_value=500), st.floats(min_value=1.0, max_value=10))
def test_a_roof_never_rises_when_bytes_rise(gb: float, factor: float) -> None:
    small = parse_config({"pins": {"r": {"weight_bytes": f"{gb} GB"}}})
    large = parse_config({"pins": {"r": {"weight_bytes": f"{gb * factor} GB"}}})
    assert memory(10.0, large).ceiling <= memory(10.0, small).ceiling


@given(st.floats(min_value=0.001, max_value=1e5, allow_nan=False))
def test_gib_and_gb_round_trip(x: float) -> None:
    gib = parse_size(f"{x:.6f} GiB")
    gb = parse_size(f"{x:.6f} GB")
    assert gib is not None and gb is not None
    assert abs(gib.bytes / GiB - float(f"{x:.6f}")) < 1e-9 * max(1, x)
    assert abs(gb.bytes / GB - float(f"{x:.6f}")) < 1e-9 * max(1, x)
    assert gib.bytes > gb.bytes  # a GiB is 7.4% more than a GB


@settings(max_examples=300)
@given(st.text(max_size=400), st.text(max_size=200), st.text(max_size=100))
def test_extraction_never_raises_on_arbitrary_text(
    methodology: str, notes: str, model: str
) -> None:
    r = rec(50.0, methodology)
    r["notes"], r["model"], r["unit"] = notes, model, "tok/s " + notes[:20]
    result = check_record(r, "r.json", CAT, Config())
    assert result.verdict in set(Verdict)


@settings(max_examples=300)
@given(st.binary(max_size=300))
def test_record_reader_never_raises_anything_but_its_error(raw: bytes) -> None:
    with contextlib.suppress(RecordFileError):
        parse_record_bytes(raw)


@given(
    st.recursive(
        st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=20),
        lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c, max_size=4),
        max_leaves=30,
    )
)
def test_any_json_shape_in_a_record_field_is_handled(junk: Any) -> None:
    for field in ("value", "methodology", "accelerator_ids", "model", "format_id", "unit"):
        r = rec(50.0)
        r[field] = junk
        result = check_record(r, "r.json", CAT, Config())
        assert result.verdict in set(Verdict)


def _refused_or_inside(path: str) -> None:
    """safe_relpath refuses `path` or returns it normal: relative, no empty, `.` or `..`
    segment, no backslash, no NUL, and normal again as it is."""
    from roofbot.adapters.tree import TreeError, safe_relpath

    try:
        rel = safe_relpath(path)
    except TreeError:
        return
    parts = rel.split("/")
    assert rel and not rel.startswith("/"), repr(path)
    assert all(p not in ("", ".", "..") for p in parts), repr(path)
    assert "\\" not in rel and "\x00" not in rel, repr(path)
    assert safe_relpath(rel) == rel, repr(path)


def test_every_short_path_is_refused_or_comes_out_inside() -> None:
    import itertools

    pieces = ["a", "/", ".", "\\", "\x00", "b.json"]
    for n in range(7):
        for parts in itertools.product(pieces, repeat=n):
            _refused_or_inside("".join(parts))


@settings(max_examples=500)
@given(st.text(alphabet=st.sampled_from("ab./\\\x00 é"), max_size=30) | st.text(max_size=30))
def test_any_path_is_refused_or_comes_out_inside(path: str) -> None:
    _refused_or_inside(path)


ID_WORDS = st.text(alphabet="ab9-. \n(),:", max_size=60)


@settings(max_examples=300)
@given(st.text(max_size=200), st.integers(min_value=2, max_value=200))
def test_text_cleaning_skips_the_walk_only_where_it_would_change_nothing(
    text: str, limit: int
) -> None:
    """`_clean` walks the characters only when some aren't printable; either way it gives
    what walking every character gives."""
    from roofbot.render.text import _clean

    walked = " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())
    assert _clean(text, limit) == (walked if len(walked) <= limit else walked[: limit - 1] + "…")


_texts = st.text(max_size=12) | st.sampled_from(["", "café ✓", 'a"b\\c', "\x00\n\u2028"])
_odd = st.none() | st.booleans() | st.integers() | st.floats() | st.lists(st.text(max_size=3))
_floats = st.floats() | st.integers(min_value=-(10**18), max_value=10**18)


@st.composite
def _record_results(draw: Any) -> Any:
    """RecordResults with what a stranger's record can put in them: odd types where a string
    was expected, repeated input names, non-finite and huge numbers, empty and full lists."""
    from roofbot.core.provenance import Basis, Input
    from roofbot.core.results import CheckId, Message, RecordResult, RoofCheck, Verdict

    checks = draw(
        st.lists(
            st.builds(
                RoofCheck,
                st.sampled_from(list(CheckId)),
                st.booleans(),
                _floats.filter(lambda x: x != 0),
                _floats,
                _texts,
                st.none() | _texts,
                st.lists(_texts, max_size=2).map(tuple),
                st.lists(
                    st.tuples(_texts | _odd, _floats.filter(lambda x: x != 0)), max_size=2
                ).map(tuple),
            ),
            max_size=3,
        ).map(tuple)
    )
    values = _odd | _texts | st.sampled_from(list(Basis)) | _floats
    inputs = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["batch", "count", "model"])
                | _texts
                | st.integers()
                | st.floats()
                | st.booleans()
                | st.none(),
                st.builds(Input, values, _texts | _odd, st.sampled_from(list(Basis))),
            ),
            max_size=4,
        ).map(tuple)
    )
    notes = draw(st.lists(st.tuples(_texts, _texts | _odd), max_size=2).map(tuple))
    return RecordResult(
        id=draw(_texts | _odd),
        path=draw(_texts),
        verdict=draw(st.sampled_from(list(Verdict))),
        status=draw(st.none() | st.sampled_from(["deprecated", "active"]) | _odd),
        metric=draw(st.none() | _texts | _odd),
        value=draw(st.none() | _floats),
        unit=draw(st.none() | _texts),
        inputs=inputs,
        checks=checks,
        traps=draw(st.lists(_texts | _odd, max_size=2).map(tuple)),
        trap_notes=notes,
        messages=tuple(Message("error", t) for t in draw(st.lists(_texts, max_size=2))),
        lacks=draw(st.lists(_texts, max_size=2).map(tuple)),
        pinned=draw(st.booleans()),
    )


@settings(max_examples=400)
@given(_record_results(), st.dictionaries(_texts, st.none() | _texts, max_size=2))
def test_the_json_report_writes_whatever_odd_values_a_result_holds(r: Any, gotchas: Any) -> None:
    """record_json of a result holding what a stranger's record can put in it is JSON that
    reads back, its keys in the report's order."""
    import json

    from roofbot.render.json_report import record_json

    back = json.loads(json.dumps(record_json(r, gotchas), indent=2, ensure_ascii=False))
    assert list(back)[:4] == ["id", "path", "status", "verdict"]
    assert back["verdict"] == r.verdict.value
