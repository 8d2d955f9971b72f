"""The instrument's own test: records whose percent of roof is known are checked on every
run, and a miss fails the run naming what could have moved it."""

from __future__ import annotations

from collections.abc import Mapping

from roofbot.core.config import Config
from roofbot.core.results import Calibration, CalibrationEntry, RecordResult


def calibrate(config: Config, results: Mapping[str, RecordResult]) -> Calibration:
    entries = []
    for spec in config.calibration:
        r = results.get(spec.id)
        if r is None:
            entries.append(
                CalibrationEntry(
                    spec.id,
                    spec.check,
                    spec.percent,
                    None,
                    False,
                    "the calibration record is missing from the repository",
                )
            )
            continue
        check = next((c for c in r.checks if c.check.value == spec.check), None)
        if check is None:
            reason = f"no {spec.check} could be computed ({r.verdict.value}"
            reason += f": {'; '.join(r.lacks)})" if r.lacks else ")"
            entries.append(CalibrationEntry(spec.id, spec.check, spec.percent, None, False, reason))
            continue
        got = round(check.percent, 2)
        ok = abs(got - spec.percent) <= config.tolerance_pp + 0.05  # expected is given to 0.1
        why: str | None = None
        if not ok:
            moved = "; ".join(
                f"{k} = {_fmt(i.value)} from {i.source}" for k, i in r.inputs if k not in ("rate",)
            )
            why = (
                f"expected {spec.percent:g}%, got {got:g}% ({check.formula}). What could have "
                f"moved it: {moved}"
            )
        entries.append(CalibrationEntry(spec.id, spec.check, spec.percent, got, ok, why))
    return Calibration(bool(config.calibration), config.tolerance_pp, tuple(entries))


def _fmt(v: object) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(getattr(v, "value", v))
