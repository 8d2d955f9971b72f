"""The rules a finding can be of, as SARIF lists them in `tool.driver.rules`: the check ids
(`memory-roof`, `batched-memory-roof`, `compute-roof`) for records over a roof, the trap ids
for traps, and three of roofbot's own: `record-error` (the file is not a readable record),
`unchecked` (no roof could be computed) and `calibration` (the instrument missed its own
test). Every `Finding.rule` (roofbot.render.findings) is a key here."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    """One rule: its id, its SARIF name, a line that says it, and what to do about it."""

    id: str
    name: str  # PascalCase, as SARIF tools show it
    short: str
    help: str


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
        Rule(
            "batch-1-roof-on-aggregate",
            "Batch1RoofOnAggregate",
            "An aggregate at batch B > 1: the batch-1 roof does not apply",
            "The batched roof and the compute roof bound it; the batch-1 roof is shown, not applied.",
        ),
        Rule(
            "unknown-batch-is-not-batch-1",
            "UnknownBatchIsNotBatch1",
            "Batch unknown: only the compute roof applies",
            "An aggregate at an unknown batch is not at batch 1. State the batch to get a memory roof.",
        ),
        Rule(
            "moe-total-vs-active",
            "MoeTotalVsActive",
            "A mixture of experts: the active weights, not the total, divide the bandwidth",
            "Only the experts routed to read their weights per token.",
        ),
        Rule(
            "bandwidth-derived-figure",
            "BandwidthDerivedFigure",
            "Looks derived from bandwidth rather than measured",
            "Within 1% of bandwidth / bytes, or its own text derives the figure from bandwidth.",
        ),
        Rule(
            "per-user-vs-aggregate",
            "PerUserVsAggregate",
            "A per-user and an aggregate record of the same run disagree",
            "The aggregate should be per-user x B within 2%.",
        ),
        Rule(
            "hardware-part-variant",
            "HardwarePartVariant",
            "The part is ambiguous, or the text names another device or bandwidth",
            "The larger bandwidth is used unless pinned; the percent under the other is shown.",
        ),
        Rule(
            "sparse-peak",
            "SparsePeak",
            "Only a sparse FLOPS row exists at the compute precision",
            "Sparse peaks are not dense peaks; the compute roof is not taken from them.",
        ),
        Rule(
            "speculative-decoding",
            "SpeculativeDecoding",
            "Speculative decoding: more than one token per weight read",
            "The memory roof is multiplied by the accepted tokens per step when stated.",
        ),
        Rule(
            "not-a-token-rate",
            "NotATokenRate",
            "A token-rate metric whose unit is not a token rate",
            "Reported, not checked: fix the metric or the unit.",
        ),
    )
}
