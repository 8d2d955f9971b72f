"""Verdicts (contract section 4), each with the message that explains it."""

from __future__ import annotations

from roofbot.core.inputs import Inputs
from roofbot.core.provenance import Input
from roofbot.core.results import (
    CheckId,
    Deciding,
    Doubt,
    Message,
    RateKind,
    RoofCheck,
    Verdict,
)

_INPUT_WORDS = {
    "count": "the accelerator count (assumed 1)",
    "bandwidth_gbps": "the bandwidth",
    "part": "the part (several named)",
    "active_bytes": "the bytes per token",
    "weight_bytes": "the weight bytes",
    "parallelism": "the multi-GPU split",
    "rate": "per-sequence rather than aggregate",
    "compute_precision": "the compute precision",
    "peak_tflops": "the peak FLOPS",
    "active_params_b": "the active parameters",
    "batch": "the batch",
}


def lacks(inp: Inputs) -> tuple[str, ...]:
    """What no roof could be computed without, worded as what to add to the record."""
    out = []
    if inp.part is None and inp.bandwidth_gbps is None:
        out.append(
            "accelerator: accelerator_ids is empty or unresolved and the text names no "
            "catalogue part or device bandwidth"
        )
    elif inp.bandwidth_gbps is None:
        out.append("bandwidth: the part has no memory_bandwidth_gbps")
    if inp.active_bytes is None:
        if inp.weight_bytes is None and inp.params_b is None:
            out.append(
                "model size: `model` matches no model in the catalogue and states no size "
                '("70B") or weight bytes ("17.5 GB")'
            )
        elif inp.weight_bytes is None:
            out.append("weight bytes: no format_id with bits, no precision named, no size stated")
        else:
            out.append("active parameters: the model is a mixture of experts with no active count")
    if inp.peak_tflops is None:
        out.append(
            "peak FLOPS: the part lists no dense row at a precision this run's matrix math can "
            "use (an fp32 row never stands in for tensor math; a sparse row is never a dense one)"
            if inp.part
            else "peak FLOPS: no part"
        )
    if inp.rate.value is RateKind.AGGREGATE and inp.batch is None:
        out.append("batch: an aggregate needs a stated batch for a memory roof")
    if inp.speculative is not None and inp.tokens_per_step is None:
        out.append("tokens per step: speculative decoding named without accepted tokens per step")
    return tuple(out)


def decide(
    inp: Inputs, checks: tuple[RoofCheck, ...], traps: tuple[str, ...]
) -> tuple[Verdict, tuple[Message, ...]]:
    applied = [c for c in checks if c.applies]
    if not applied:
        return Verdict.UNCHECKED, (Message("info", "no roof applies: " + "; ".join(lacks(inp))),)
    over = [c for c in applied if c.percent > 100.0]
    stated = [c for c in over if not c.assumed]
    if stated:
        worst = max(stated, key=lambda c: c.percent)
        return Verdict.VIOLATION, (
            Message(
                "error",
                f"{worst.value:g} tok/s is {worst.percent:.1f}% of its {worst.check.value} "
                f"({worst.ceiling:.2f} tok/s), and every input that makes it so is stated, resolved or "
                "pinned",
            ),
        )
    if over:
        worst = max(over, key=lambda c: c.percent)
        assumed = ", ".join(_INPUT_WORDS.get(a, a) for a in worst.assumed)
        return Verdict.SUSPECT, (
            Message(
                "warning",
                f"{worst.percent:.1f}% of its {worst.check.value}, but only through assumed input(s): "
                f"{assumed}; state them in the record or pin them",
            ),
        )
    if "bandwidth-derived-figure" in traps:
        mem = next((c for c in applied if c.check is CheckId.MEMORY), None)
        where = f" ({mem.percent:.1f}% of its memory roof)" if mem else ""
        return Verdict.SUSPECT, (
            Message("warning", f"looks derived from bandwidth rather than measured{where}"),
        )
    return Verdict.PASS, ()


def phrase(d: Deciding) -> str:
    """The reading a verdict turns on, in one short phrase."""
    if d.doubt is Doubt.RIVAL:
        return f"the {d.input} read as {d.value} alone ({d.source})"
    if d.doubt is Doubt.UNSURE_DENIAL:
        return f"{d.source} read as stated, not denied (the denial may not reach it)"
    if d.doubt is Doubt.UNPLACED_SPECULATION:
        return f"{d.source} read as another run's: no speculative decoding in this one"
    return f"the {_INPUT_WORDS.get(d.input, d.input)} taken as {d.value}"


def _over(checks: tuple[RoofCheck, ...]) -> RoofCheck | None:
    """The applied check most over its roof, if any is over."""
    over = [c for c in checks if c.applies and c.percent > 100.0]
    return max(over, key=lambda c: c.percent) if over else None


def _assumed_reading(inp: Inputs, worst: RoofCheck) -> Deciding | None:
    for name in worst.assumed:
        i = getattr(inp, name, None)
        if isinstance(i, Input):
            return Deciding(Doubt.ASSUMED, name, str(i.value), i.source)
    return None


def robust(
    inp: Inputs,
    checks: tuple[RoofCheck, ...],
    traps: tuple[str, ...],
    others: tuple[tuple[Deciding, tuple[RoofCheck, ...]], ...] = (),
) -> tuple[Verdict, tuple[Message, ...], Deciding | None]:
    """The verdict that holds under every plausible reading. `checks` are the main reading's;
    `others` each other plausible reading's, with what makes it differ. A record passes only
    if no reading puts it over a roof; it is a violation only if every reading does, on stated
    inputs; otherwise it is `suspect`, and the reading that decides is returned."""
    verdict, why = decide(inp, checks, traps)
    if verdict is Verdict.SUSPECT:
        worst = _over(checks)
        return verdict, why, _assumed_reading(inp, worst) if worst else None
    if verdict in (Verdict.PASS, Verdict.UNCHECKED):
        for d, alt in others:
            if (worst := _over(alt)) is not None:
                now = "passes" if verdict is Verdict.PASS else "has no roof that applies"
                text = (
                    f"{now} as read, but is {worst.percent:.1f}% of its {worst.check.value} "
                    f"({worst.ceiling:.2f} tok/s) if {phrase(d)}; state it in the record"
                )
                return Verdict.SUSPECT, (Message("warning", text),), d
        return verdict, why, None
    if verdict is Verdict.VIOLATION:
        for d, alt in others:
            if _over(alt) is None:
                first = _over(checks)
                pct = f"{first.percent:.1f}% of its {first.check.value}" if first else "over a roof"
                text = (
                    f"{pct} as read, but over no roof if {phrase(d)}; a violation must fail "
                    "under every reading: state it in the record"
                )
                return Verdict.SUSPECT, (Message("warning", text),), d
    return verdict, why, None
