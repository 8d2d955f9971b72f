"""What to change in a record to settle its finding: the inverse of the roof that binds it.

A roof is `ceiling = f(inputs)`, and a record over it (percent > 100) is legal once one input
moves far enough that the ceiling reaches the value. This module solves for that input, in
the record's own terms: "legal if the batch is at least 3", "legal at ≤ 4.2 GB of weights per
token", "state the accelerator count: at 2 cards this is 61%", "state the active parameters of
this MoE".

A value past its roof gets its causes ranked by how likely each is: first a slip in how the
figure was filed (the batch's aggregate filed as per-user), then the figure itself against
the arithmetic of its own inputs, then the inputs it states (the weights, the batch, the
cards), and the catalogue's datasheet figure last. No cause contradicts a stated input: a
record that states batch 1 is never told it would pass as the aggregate of two. The same
text in the comment, `roofbot explain`, the JSON report (its `fix` key) and every findings
format. Pure: it reads only the check result."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from roofbot.core.figures import figure, percent, roof_name
from roofbot.core.provenance import Basis, clip
from roofbot.core.results import (
    CheckId,
    Deciding,
    Doubt,
    RateKind,
    RecordResult,
    RoofCheck,
    Verdict,
)
from roofbot.core.units import GB

MOE_TRAP = "moe-total-vs-active"


def _inputs(r: RecordResult) -> Mapping[str, Any]:
    return {name: i.value for name, i in r.inputs}


def _num(x: float) -> str:
    """A figure as a sentence writes it (roofbot.core.figures: four significant figures)."""
    return figure(x)


def _at_most(x: float) -> str:
    """An upper bound as a sentence writes it, rounded down to four significant figures: the
    figure it names is itself legal."""
    if x <= 0 or not math.isfinite(x):
        return "0"
    step = 10.0 ** (math.floor(math.log10(x)) - 3)
    return figure(math.floor(x / step + 1e-9) * step)


def _smallest_int(needed: float) -> int:
    """The smallest whole number at or above `needed` (a hair of float error forgiven)."""
    return max(1, math.ceil(needed - 1e-9)) if math.isfinite(needed) else 1


def _over(r: RecordResult, stated_only: bool) -> RoofCheck | None:
    """The applied check the record is furthest over; one whose figures are not finite numbers
    (a stranger's record can make them so) has no inverse to give."""
    above = [
        c
        for c in r.checks
        if c.applies
        and math.isfinite(c.ceiling)
        and math.isfinite(c.value)
        and c.percent > 100.0
        and math.isfinite(c.percent)
        and not (stated_only and c.assumed)
    ]
    return max(above, key=lambda c: c.percent) if above else None


def _bytes_fix(c: RoofCheck, inp: Mapping[str, Any]) -> str | None:
    """Memory roofs are bandwidth / bytes per token: the bytes at which the value is legal."""
    nbytes = inp.get("active_bytes")
    if c.check is CheckId.COMPUTE or not isinstance(nbytes, int | float) or nbytes <= 0:
        return None
    most = nbytes * c.ceiling / c.value
    return f"legal at ≤ {_at_most(most / GB)} GB of weights per token (it reads {_num(nbytes / GB)} GB)"


def _at_least(x: float) -> str:
    """A lower bound as a sentence writes it, rounded up (as `_at_most` rounds down)."""
    if x <= 0 or not math.isfinite(x):
        return "0"
    step = 10.0 ** (math.floor(math.log10(x)) - 3)
    return figure(math.ceil(x / step - 1e-9) * step)


def _bandwidth_fix(c: RoofCheck, inp: Mapping[str, Any]) -> str | None:
    """Memory roofs grow with the part's bandwidth: the bandwidth at which the value is legal
    (what a catalogue edit that lowered it must give back)."""
    bw = inp.get("bandwidth_gbps")
    if c.check is CheckId.COMPUTE or not isinstance(bw, int | float) or bw <= 0:
        return None
    return f"legal at ≥ {_at_least(bw * c.percent / 100.0)} GB/s per part (it has {figure(bw)})"


def _batch_fix(c: RoofCheck, inp: Mapping[str, Any], memory: RoofCheck | None) -> str | None:
    """The batched roof is B x the batch-1 roof: the batch at which the value is legal."""
    if memory is None or memory.ceiling <= 0:
        return None
    need = _smallest_int(c.value / memory.ceiling)
    rate, batch = inp.get("rate"), inp.get("batch")
    if c.check is CheckId.BATCHED:
        return f"legal if the batch is at least {need} (it states {batch})"
    if rate is RateKind.AGGREGATE:
        return f"legal if the batch is at least {need}"
    if c.check is CheckId.MEMORY and need > 1:
        return f"legal as the aggregate of a batch of at least {need} sequences"
    return None


def _count_fix(c: RoofCheck, inp: Mapping[str, Any]) -> str | None:
    """A count multiplies both roofs (tensor split or unknown): the cards at which it is legal."""
    count = inp.get("count")
    if not isinstance(count, int) or count < 1:
        return None
    need = _smallest_int(count * c.percent / 100.0)
    if need <= count:
        return None
    return f"at {need} cards this is {c.percent * count / need:.0f}%"


def _params_fix(c: RoofCheck, inp: Mapping[str, Any]) -> str | None:
    active = inp.get("active_params_b")
    if not isinstance(active, int | float) or active <= 0:
        return None
    return f"legal at ≤ {_at_most(active * c.ceiling / c.value)}B active parameters"


def _stated(r: RecordResult, name: str) -> bool:
    """Whether the record (or its catalogue, or a pin) states the input: a remedy never
    contradicts what is stated."""
    return any(n == name and i.basis is not Basis.ASSUMED for n, i in r.inputs)


def _quote(r: RecordResult, name: str) -> str:
    """Where the record says the input, as its provenance quotes it (one short clause)."""
    source = next((i.source for n, i in r.inputs if n == name), "")
    return f" ({clip(source, 70)})" if source else ""


def _aggregate_slip(r: RecordResult, c: RoofCheck, inp: Mapping[str, Any]) -> str | None:
    """The likeliest slip of a per-user figure over the batch-1 roof at a stated batch above
    one: the batch's aggregate filed as per-user."""
    batch, rate = inp.get("batch"), inp.get("rate")
    if c.check is not CheckId.MEMORY or rate is not RateKind.PER_SEQUENCE:
        return None
    if not isinstance(batch, int) or batch < 2 or c.value > batch * c.ceiling:
        return None
    share = percent(100.0 * c.value / (batch * c.ceiling))
    return (
        f"if {_num(c.value)} tok/s is the total of the batch of {batch}{_quote(r, 'batch')}, "
        f"it was filed as per-user: file it as the aggregate (then it is {share} of its "
        "batched roof)"
    )


def _value_check(r: RecordResult, c: RoofCheck) -> str:
    """The figure itself, against the arithmetic of its own inputs."""
    return (
        f"check `value`: {_num(c.value)} tok/s is {percent(c.percent)} of its "
        f"{roof_name(c.check.value)} ({clip(c.formula, 90)}); with the inputs it states, at "
        f"most {_at_most(c.ceiling)} tok/s is possible"
    )


def _violation(r: RecordResult) -> list[str]:
    """The causes of a value past its roof, likeliest first, in the record's terms: a slip in
    how the figure was filed, then the figure itself, then the inputs it states (the weights,
    the batch, the cards), and the catalogue's datasheet figure last."""
    c = _over(r, stated_only=True)
    if c is None:
        return []
    inp = _inputs(r)
    memory = next((x for x in r.checks if x.check is CheckId.MEMORY), None)
    causes: list[str] = [x for x in (_aggregate_slip(r, c, inp),) if x]
    causes.append(_value_check(r, c))
    if c.check is CheckId.COMPUTE:
        count = _count_fix(c, inp)
        causes += [f"if the run used more accelerators, state them: {count}"] if count else []
        params = _params_fix(c, inp)
        causes += (
            [f"if fewer parameters are active per token, state them: {params}"] if params else []
        )
    else:
        if (nbytes := _bytes_fix(c, inp)) is not None:
            causes.append(f"if the run read fewer weights per token, name its format: {nbytes}")
        if c.check is CheckId.BATCHED and (batch := _batch_fix(c, inp, memory)) is not None:
            causes.append(f"if the batch was larger, correct `batch`: {batch}")
        elif not _stated(r, "batch") and (batch := _batch_fix(c, inp, memory)) is not None:
            causes.append(f"state the batch: {batch}")
        if (bw := _bandwidth_fix(c, inp)) is not None:
            causes.append(f"the part's bandwidth changes only with a cited datasheet ({bw})")
    return causes


_STATE = {
    "count": "state the accelerator count",
    "batch": "state the batch",
    "rate": "say whether the figure is per user or the aggregate of the batch",
    "bandwidth_gbps": "name the exact part in `accelerator_ids`",
    "part": "name the exact part in `accelerator_ids`",
    "compute_precision": "name the compute precision (FP16, FP8, FP4)",
    "peak_tflops": "name the compute precision (FP16, FP8, FP4)",
    "active_params_b": "state the active parameters",
    "active_bytes": "state the weights' size per token",
    "weight_bytes": "state the weights' size",
    "parallelism": "state the multi-GPU split (tensor or pipeline)",
}


def _reading_fix(d: Deciding) -> str | None:
    """What settles a verdict that turns on how the text reads."""
    if d.doubt is Doubt.RIVAL:
        return f"say which {d.input} this figure was measured at: the text states more than one"
    if d.doubt is Doubt.UNSURE_DENIAL:
        return f"say plainly whether this run had the {d.input} the text names ({d.value})"
    if d.doubt is Doubt.UNPLACED_SPECULATION:
        return (
            "say whether this run used speculative decoding (with its accepted tokens per "
            "step), or that the text names another run's"
        )
    return None


def _suspect(r: RecordResult) -> str | None:
    if r.deciding is not None and (by_reading := _reading_fix(r.deciding)):
        return by_reading
    c = _over(r, stated_only=False)
    if c is None:
        return (
            "if the figure was measured, say how in `methodology`; if it was computed from "
            "bandwidth it is not a benchmark: remove it or say so in `notes`"
        )
    inp = _inputs(r)
    memory = next((x for x in r.checks if x.check is CheckId.MEMORY), None)
    parts: list[str] = []
    moe = MOE_TRAP in r.traps
    for name in dict.fromkeys(c.assumed):
        if name == "count":
            at = _count_fix(c, inp)
            parts.append(f"state the accelerator count: {at}" if at else _STATE[name])
        elif name in ("active_params_b", "active_bytes") and moe:
            hint = _params_fix(c, inp) if c.check is CheckId.COMPUTE else _bytes_fix(c, inp)
            parts.append("state the active parameters of this MoE" + (f" ({hint})" if hint else ""))
        elif name == "active_params_b":
            hint = _params_fix(c, inp) if c.check is CheckId.COMPUTE else _bytes_fix(c, inp)
            parts.append(_STATE[name] + (f": {hint}" if hint else ""))
        elif name in ("active_bytes", "weight_bytes"):
            hint = _bytes_fix(c, inp)
            parts.append(_STATE[name] + (f": {hint}" if hint else ""))
        elif name == "batch":
            hint = _batch_fix(c, inp, memory)
            parts.append("state the batch" + (f": {hint}" if hint else ""))
        elif name == "rate":
            hint = _batch_fix(c, inp, memory)
            parts.append(_STATE[name] + (f": {hint}" if hint else ""))
        elif name in _STATE:
            parts.append(_STATE[name])
    parts = list(dict.fromkeys(parts))
    return "; ".join(parts) or "state the assumed inputs in the record, or pin them"


_LACKS = (
    (
        "accelerator",
        "name the accelerator in `accelerator_ids` (an accelerator id in the catalogue)",
    ),
    ("bandwidth", "add `memory_bandwidth_gbps` to the part's catalogue record"),
    ("model size", 'state the model\'s size in `model` ("70B") or its weights ("17.5 GB")'),
    ("weight bytes", "name a `format_id` with bits per weight, or state the weights' size"),
    ("active parameters", "state the active parameters of this MoE"),
    ("peak FLOPS", "add dense `flops` rows to the part's catalogue record"),
    ("batch", "state the batch"),
    ("tokens per step", "state the accepted tokens per step of the speculative decoding"),
)


def _unchecked(r: RecordResult) -> str | None:
    steps = [text for lack in r.lacks for word, text in _LACKS if lack.startswith(word)]
    # the memory roof is what most records are held to: its inputs first, FLOPS last
    steps.sort(key=lambda s: "flops" in s)
    steps = list(dict.fromkeys(steps))
    return "; ".join(steps) if steps else None


def causes_for(r: RecordResult) -> list[str]:
    """What to change in the record to settle its verdict, likeliest cause first; empty for a
    pass, a skipped record or an error (a record file's defect is not a roof's, see
    findings)."""
    if r.verdict is Verdict.VIOLATION:
        return _violation(r)
    one = _suspect(r) if r.verdict is Verdict.SUSPECT else None
    if r.verdict is Verdict.UNCHECKED:
        one = _unchecked(r)
    return [one] if one else []


def fix_for(r: RecordResult) -> str | None:
    """The causes of `causes_for` as one text (the JSON report's `fix`, the findings'
    advice), or None."""
    return "; or ".join(causes_for(r)) or None
