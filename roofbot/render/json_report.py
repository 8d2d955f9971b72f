"""The JSON report, exactly as contract section 7 names its keys (keys may be added)."""

from __future__ import annotations

import json
import math
from typing import Any

from roofbot import __version__
from roofbot.core.provenance import Input
from roofbot.core.results import Calibration, Deciding, RecordResult, Report, RoofCheck
from roofbot.render.findings import record_fix


def rounded(x: float, places: int = 2) -> float | int:
    """A number as the report writes it: rounded to `places`, an int where it is whole, 0
    where it is not finite (JSON has no NaN)."""
    if not math.isfinite(x):
        return 0
    r = round(x, places)
    return int(r) if r == int(r) and abs(r) < 1e15 else r


def input_value(v: object) -> object:
    """An input's value as the report writes it: a float rounded to 6 places, an enum
    member as its value, anything else as it is."""
    if isinstance(v, float):
        return rounded(v, 6)
    if hasattr(v, "value") and not isinstance(v, int | str):  # enums
        return v.value
    return v


def input_json(i: Input[Any]) -> dict[str, Any]:
    return {"value": input_value(i.value), "from": i.source, "basis": i.basis.value}


def check_json(c: RoofCheck) -> dict[str, Any]:
    out: dict[str, Any] = {
        "check": c.check.value,
        "applies": c.applies,
        "ceiling": rounded(c.ceiling),
        "value": rounded(c.value, 6),
        "percent": rounded(c.percent),
        "formula": c.formula,
    }
    if c.why:
        out["why"] = c.why
    if c.assumed:
        out["assumed"] = list(c.assumed)
    if c.alternatives:
        out["alternatives"] = [
            {"reading": label, "ceiling": rounded(x), "percent": rounded(100 * c.value / x)}
            for label, x in c.alternatives
        ]
    return out


def deciding_json(d: Deciding | None) -> dict[str, str] | None:
    """The reading a suspect verdict turns on: which input, which value, from where."""
    if d is None:
        return None
    return {"doubt": d.doubt.value, "input": d.input, "value": d.value, "source": d.source}


def record_json(r: RecordResult, gotchas: dict[str, str | None]) -> dict[str, Any]:
    binding = r.binding()
    return {
        "id": r.id,
        "path": r.path,
        "status": r.status,
        "verdict": r.verdict.value,
        "deprecated": r.deprecated,
        "metric": r.metric,
        "value": rounded(r.value, 6) if r.value is not None else None,
        "unit": r.unit,
        "inputs": {name: input_json(i) for name, i in r.inputs},
        "checks": [check_json(c) for c in r.checks],
        "binding": binding.check.value if binding else None,
        "traps": list(r.traps),
        "trap_details": [
            {"trap": t, "why": why, "gotcha": gotchas.get(t)} for t, why in r.trap_notes
        ],
        "messages": [m.text for m in r.messages],
        "lacks": list(r.lacks),
        "pinned": r.pinned,
        "deciding": deciding_json(r.deciding),
        "fix": record_fix(r),
    }


def calibration_json(c: Calibration) -> dict[str, Any]:
    return {
        "ok": c.ok,
        "ran": c.ran,
        "tolerance_pp": c.tolerance_pp,
        "entries": [
            {
                "id": e.id,
                "check": e.check,
                "expected_percent": e.expected_percent,
                "percent": e.percent,
                "ok": e.ok,
                **({"why": e.why} if e.why else {}),
            }
            for e in c.entries
        ],
    }


def report_json(report: Report, gotchas: dict[str, str | None] | None = None) -> dict[str, Any]:
    gotchas = gotchas or {}
    counts: dict[str, int] = {}
    for r in report.records:
        counts[r.verdict.value] = counts.get(r.verdict.value, 0) + 1
    return {
        "version": __version__,
        "ok": report.ok,
        "coverage": {"token_rate_records": report.token_rate_records, "checked": report.checked},
        "verdicts": counts,
        "records": [record_json(r, gotchas) for r in report.records],
        "calibration": calibration_json(report.calibration),
        "messages": [m.text for m in report.messages],
        # a pull request's findings the base already has: reported, not failing `ok`
        **({"already_on_base": sorted(report.already)} if report.already else {}),
    }


def dumps(report: Report, gotchas: dict[str, str | None] | None = None) -> str:
    """The report's JSON, by `json.dumps`."""
    return json.dumps(report_json(report, gotchas), indent=2, ensure_ascii=False) + "\n"


def report_text(report: Report, gotchas: dict[str, str | None] | None = None) -> str:
    """The report's JSON (`dumps`), under the name the action calls it by."""
    return dumps(report, gotchas)
