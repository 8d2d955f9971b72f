"""The comment's headline: one sentence that decides. On a failure it names the finding
("`local-rtx-5070-13b-q4-decode`: 152 tok/s is 111% of its 136.8 tok/s memory roof"); on a
pass it gives the one reassuring fact about the record closest to its roof ("legal as a
batch-64 aggregate: 24% of its batched roof; the batch-1 roof does not apply")."""

from __future__ import annotations

import math
from collections.abc import Sequence

from roofbot.core.figures import figure, percent, roof_name
from roofbot.core.results import Calibration, CheckId, RecordResult, Verdict

_FAILING = (Verdict.ERROR, Verdict.VIOLATION, Verdict.SUSPECT, Verdict.UNCHECKED)


def finding(r: RecordResult) -> str:
    """The record's finding as a clause after its id."""
    b = r.binding()
    if r.verdict in (Verdict.VIOLATION, Verdict.SUSPECT) and b is not None:
        text = (
            f"{figure(b.value, 'tok/s')} is {percent(b.percent)} of its "
            f"{figure(b.ceiling, 'tok/s')} {roof_name(b.check.value)}"
        )
        return text + (", on assumed inputs" if r.verdict is Verdict.SUSPECT else "")
    if r.messages:
        # the headline keeps roofbot's own `code` spans; a backtick in a message (a stranger's
        # file name or key, quoted) would open one, so it shows as a quote mark here (the
        # details print the message escaped, backticks and all)
        return r.messages[0].text.replace("`", "'")
    if r.lacks:
        return "no roof: it lacks " + ", ".join(r.lacks)
    return r.verdict.value


def reassurance(r: RecordResult) -> str | None:
    """Why a passing record passes, in one clause; None without a finite roof."""
    b = r.binding()
    if b is None or not math.isfinite(b.percent):
        return None
    memory = next((c for c in r.checks if c.check is CheckId.MEMORY), None)
    batch = dict(r.inputs).get("batch")
    if b.check is CheckId.BATCHED and memory is not None and not memory.applies:
        size = f"batch-{batch.value}" if batch is not None else "batched"
        return (
            f"legal as a {size} aggregate: {percent(b.percent)} of its batched roof; the "
            "batch-1 roof does not apply"
        )
    return (
        f"{figure(b.value, 'tok/s')} is {percent(b.percent)} of its "
        f"{figure(b.ceiling, 'tok/s')} {roof_name(b.check.value)}"
    )


def _rescued(r: RecordResult) -> bool:
    """A pass over its batch-1 roof that the batched roof makes legal: the fact a reader
    would doubt first."""
    memory = next((c for c in r.checks if c.check is CheckId.MEMORY), None)
    return memory is not None and not memory.applies and memory.percent > 100.0


def _worth_saying(r: RecordResult) -> tuple[bool, float]:
    """Which passing record's fact the headline gives: one the batch-1 roof would fail,
    else the one closest to its roof."""
    b = r.binding()
    return _rescued(r), b.percent if b is not None else 0.0


def headline(
    failing: Sequence[RecordResult],
    shown: Sequence[RecordResult],
    calibration: Calibration,
    ok: bool,
    apart: Sequence[RecordResult] = (),
) -> str:
    """The sentence after the title. `failing`: the records that fail the run, worst first;
    `shown`: the records the table lists (the PR moved them); `apart`: the deprecated ones,
    whose findings are named though they do not fail the run."""
    if failing:
        r = failing[0]
        text = f"`{r.id}`: {finding(r)}"
        if len(failing) > 1:
            more = len(failing) - 1
            text += f" (and {more} more failing record{'s' if more != 1 else ''})"
        return text
    if calibration.ran and not calibration.ok:
        missed = sum(1 for e in calibration.entries if not e.ok)
        return (
            f"the calibration set no longer reproduces ({missed} of "
            f"{len(calibration.entries)} entries missed)"
        )
    if not ok:
        return "failed"
    found = [
        r
        for r in [*shown, *apart]
        if r.verdict in (Verdict.ERROR, Verdict.VIOLATION, Verdict.SUSPECT)
    ]
    if found:  # findings outside fail_on (or deprecated): named, never "no problem found"
        r = found[0]
        return f"`{r.id}`: {finding(r)} (does not fail the run)"
    passing = [r for r in shown if r.verdict is Verdict.PASS and reassurance(r)]
    if not passing:
        return "no problem found"
    closest = max(passing, key=_worth_saying)
    why = reassurance(closest) or ""
    fact = f"`{closest.id}` is {why}" if why.startswith("legal") else f"`{closest.id}`: {why}"
    if len(passing) > 1:
        return f"{len(passing)} records pass; {fact}"
    return fact
