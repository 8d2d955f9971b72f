"""The rules a finding can be of, as SARIF lists them in `tool.driver.rules`: the check ids
(`memory-roof`, `batched-memory-roof`, `compute-roof`) for records over a roof, the trap ids
for traps (each trap's title and help sit beside it, in roofbot.core.traps), and three of roofbot's own: `record-error` (the file is not a readable record),
`unchecked` (no roof could be computed) and `calibration` (the instrument missed its own
test). Every `Finding.rule` (roofbot.render.findings) is a key here."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from roofbot.core.traps import BY_ID, Trap


@dataclass(frozen=True)
class Rule:
    """One rule: its id, its SARIF name, a line that says it, and what to do about it."""

    id: str
    name: str  # PascalCase, as SARIF tools show it
    short: str
    help: str


def _trap_rule(trap: Trap) -> Rule:
    return Rule(trap.id, "".join(w.capitalize() for w in trap.id.split("-")), trap.title, trap.help)


RULES: Mapping[str, Rule] = {
    r.id: r
    for r in (
        Rule(
            "memory-roof",
            "MemoryRoof",
            "Above the batch-1 memory roof (bandwidth / bytes read per token)",
            "One sequence reads every active weight once per token, so it can't beat bandwidth "
            "/ active weight bytes. Check the figure, or state what the roof misses.",
        ),
        Rule(
            "batched-memory-roof",
            "BatchedMemoryRoof",
            "Above the batched memory roof (B x the batch-1 roof)",
            "An aggregate at batch B reads the weights once per step for B sequences: at most B "
            "times the batch-1 roof.",
        ),
        Rule(
            "compute-roof",
            "ComputeRoof",
            "Above the compute roof (count x peak dense FLOPS / (2 x active params))",
            "Each token costs 2 FLOPs per active parameter; no batch can beat the dense peak.",
        ),
        Rule(
            "record-error",
            "RecordError",
            "The file is not a readable benchmark record",
            "Bad JSON, not valid against the repository's own schema, or id and file name differ.",
        ),
        Rule(
            "unchecked",
            "Unchecked",
            "A token-rate record no roof could be computed for",
            "The record lacks an input no reading of its text supplies; state it or pin it.",
        ),
        Rule(
            "calibration",
            "CalibrationMiss",
            "A calibration record missed its expected percent: the instrument is broken",
            "The catalogue, the units, the extraction or the arithmetic moved a figure that was "
            "checked by hand. Fix the instrument, or the calibration entry if it was wrong.",
        ),
        *(_trap_rule(t) for t in BY_ID.values()),
    )
}
