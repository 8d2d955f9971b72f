"""One benchmark record in, one result out: resolution, arithmetic, traps and verdict."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from roofbot.core import roofline
from roofbot.core.catalogue import Catalogue
from roofbot.core.config import Config
from roofbot.core.inputs import unit_names_other_quantity
from roofbot.core.reader.reading import read_record
from roofbot.core.reader.rule import Kind
from roofbot.core.readings import alternatives
from roofbot.core.resolve import TOKEN_RATE_METRICS, Inputs, resolve, unit_is_token_rate
from roofbot.core.results import Message, RecordResult, Verdict
from roofbot.core.traps import BY_ID, NOT_A_TOKEN_RATE, Sibling, TrapContext, detect
from roofbot.core.verdict import lacks, robust

SiblingLookup = Callable[[str], Mapping[str, Any] | None]

MAX_SIBLINGS = 8
"""The records a record names that its check looks up, at most (the first it names)."""


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def _value(record: Mapping[str, Any]) -> float | None:
    v = record.get("value")
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    f = float(v)
    return f if math.isfinite(f) and f >= 0 else None


def is_token_rate_record(record: Mapping[str, Any]) -> bool:
    """A benchmark record whose metric is a token rate (its unit is not looked at here)."""
    return record.get("type") == "benchmark" and record.get("metric") in TOKEN_RATE_METRICS


def error_result(rid: str, path: str, message: str, status: str | None = None) -> RecordResult:
    return RecordResult(
        rid, path, Verdict.ERROR, status=status, messages=(Message("error", message),)
    )


def sibling_of(record: Mapping[str, Any], catalogue: Catalogue, config: Config) -> Sibling | None:
    value = _value(record)
    if (
        value is None
        or not is_token_rate_record(record)
        or not unit_is_token_rate(str(record.get("unit", "")))
    ):
        return None
    inp = resolve(record, catalogue, config.pins.get(str(record.get("id")), {}))
    return Sibling(str(record["id"]), inp.rate.value, inp.batch.value if inp.batch else None, value)


def check_record(
    record: Mapping[str, Any],
    path: str,
    catalogue: Catalogue,
    config: Config,
    lookup: SiblingLookup = lambda _id: None,
    read: dict[str, Sibling | None] | None = None,
) -> RecordResult:
    """Check one parsed, schema-valid record. `lookup` finds a record by id, for the traps
    that compare a record with the sibling it names; `read` keeps what they read of each
    sibling, by id, for the next check that names it (a run's siblings are resolved once:
    it is valid while `lookup`, `catalogue` and `config` are the same, one run's)."""
    rid, status = str(record.get("id")), _str(record.get("status"))
    metric, unit = _str(record.get("metric")), _str(record.get("unit")) or ""
    base: dict[str, Any] = {"status": status, "metric": metric, "unit": unit}
    if not is_token_rate_record(record):
        return RecordResult(
            rid,
            path,
            Verdict.SKIPPED,
            **base,
            value=_value(record),
            messages=(Message("info", f"metric {metric!r} is not a token rate"),),
        )
    value = _value(record)
    if value is None:
        return RecordResult(
            rid,
            path,
            Verdict.ERROR,
            **base,
            messages=(
                Message(
                    "error",
                    f"value {record.get('value')!r} is not a finite, non-negative number",
                    "value",
                ),
            ),
        )
    reading = read_record(record)  # read once: resolution, the no-figure rule and the traps
    no_figure = reading.stated(Kind.NO_FIGURE, ("unit", "model"))
    if value == 0 and no_figure:
        return RecordResult(rid, path, Verdict.SKIPPED, **base, value=value, messages=(Message(
            "info", f"value 0 stands for no figure ({no_figure[0].source}): nothing to check",
            "value"),))  # fmt: skip
    if not unit_is_token_rate(unit) and not unit_names_other_quantity(unit):
        said = "null" if record.get("unit") is None else repr(unit[:80])
        return RecordResult(rid, path, Verdict.ERROR, **base, value=value, messages=(Message(
            "error", f"metric {metric} is a token rate, but unit {said} names no rate roofbot "
            "recognises: write it as tok/s, tokens/s or t/s (or the quantity it really is, "
            "such as TFLOPS or ms)", "unit"),))  # fmt: skip
    if not unit_is_token_rate(unit):
        return RecordResult(
            rid, path, Verdict.SKIPPED, **base, value=value, traps=(NOT_A_TOKEN_RATE.id,),
            trap_notes=((NOT_A_TOKEN_RATE.id, NOT_A_TOKEN_RATE.explain(None)),),  # type: ignore[arg-type]
            messages=(Message("warning", f"metric {metric} but unit {unit[:80]!r} is not a token "
                              "rate: reported, not checked", "unit"),),
        )  # fmt: skip
    pins = config.pins.get(rid, {})
    inp: Inputs = resolve(record, catalogue, pins, reading)
    checks = roofline.checks(inp, value)
    siblings = []
    read = {} if read is None else read
    for sid in inp.siblings[:MAX_SIBLINGS]:
        other = lookup(sid)  # asked each time: a caller may note what a check looked up
        if other is None:
            continue
        if sid not in read:
            read[sid] = sibling_of(other, catalogue, config)
        if (s := read[sid]) is not None:
            siblings.append(s)
    ctx = TrapContext(inp, checks, value, reading, tuple(siblings))
    traps = detect(ctx)
    notes = tuple((t, BY_ID[t].explain(ctx)) for t in traps)
    others = tuple(
        (d, roofline.checks(resolve(record, catalogue, pins, alt), value))
        for d, alt in alternatives(reading)
    )
    verdict, why, deciding = robust(inp, checks, traps, others)
    return RecordResult(
        rid, path, verdict, **base, value=value, inputs=inp.items(), checks=checks, traps=traps,
        trap_notes=notes, messages=(*why, *inp.messages), lacks=lacks(inp) if verdict is Verdict.UNCHECKED else (),
        pinned=bool(pins), set_aside=inp.set_aside, deciding=deciding,
    )  # fmt: skip
