"""The JSON report, exactly as contract section 7 names its keys (keys may be added)."""

from __future__ import annotations

import json
import math
from typing import Any

from roofbot import __version__
from roofbot.core.provenance import Input
from roofbot.core.results import Calibration, RecordResult, Report, RoofCheck


def _num(x: float, places: int = 2) -> float | int:
    if not math.isfinite(x):
        return 0
    r = round(x, places)
    return int(r) if r == int(r) and abs(r) < 1e15 else r


def _value(v: object) -> object:
    if isinstance(v, float):
        return _num(v, 6)
    if hasattr(v, "value") and not isinstance(v, int | str):  # enums
        return v.value
    return v


def input_json(i: Input[Any]) -> dict[str, Any]:
    return {"value": _value(i.value), "from": i.source, "basis": i.basis.value}


def check_json(c: RoofCheck) -> dict[str, Any]:
    out: dict[str, Any] = {
        "check": c.check.value,
        "applies": c.applies,
        "ceiling": _num(c.ceiling),
        "value": _num(c.value, 6),
        "percent": _num(c.percent),
        "formula": c.formula,
    }
    if c.why:
        out["why"] = c.why
    if c.assumed:
        out["assumed"] = list(c.assumed)
    if c.alternatives:
        out["alternatives"] = [
            {"reading": label, "ceiling": _num(x), "percent": _num(100 * c.value / x)}
            for label, x in c.alternatives
        ]
    return out


def record_json(r: RecordResult, gotchas: dict[str, str | None]) -> dict[str, Any]:
    binding = r.binding()
    return {
        "id": r.id,
        "path": r.path,
        "status": r.status,
        "verdict": r.verdict.value,
        "deprecated": r.deprecated,
        "metric": r.metric,
        "value": _num(r.value, 6) if r.value is not None else None,
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
    }


def dumps(report: Report, gotchas: dict[str, str | None] | None = None) -> str:
    return json.dumps(report_json(report, gotchas), indent=2, ensure_ascii=False) + "\n"
