"""What to change in a record to settle its finding: the inverse of the roof that binds it.

A roof is `ceiling = f(inputs)`, and a record over it (percent > 100) is legal once one input
moves far enough that the ceiling reaches the value. This module solves for that input, in
the record's own terms: "legal if the batch is at least 3", "legal at ≤ 4.2 GB of weights per
token", "state the accelerator count: at 2 cards this is 61%", "state the active parameters of
this MoE". One sentence a record, the same in the comment, `roofbot explain`, the JSON report
(its `fix` key) and every findings format. Pure: it reads only the check result."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

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
    """A figure as a sentence writes it: three significant digits, no trailing zeros."""
    if x >= 100:
        return f"{x:,.0f}"
    return f"{x:.3g}"


def _at_most(x: float) -> str:
    """An upper bound as a sentence writes it, rounded down (to a whole number from 100, else
    to three significant digits): the figure it names is itself legal."""
    if x <= 0 or not math.isfinite(x):
        return "0"
    step = 1.0 if x >= 100 else 10.0 ** (math.floor(math.log10(x)) - 2)
    down = math.floor(x / step + 1e-9) * step
    return f"{down:,.0f}" if down >= 100 else f"{down:.3g}"


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
    step = 1.0 if x >= 100 else 10.0 ** (math.floor(math.log10(x)) - 2)
    up = math.ceil(x / step - 1e-9) * step
    return f"{up:,.0f}" if up >= 100 else f"{up:.3g}"


def _bandwidth_fix(c: RoofCheck, inp: Mapping[str, Any]) -> str | None:
    """Memory roofs grow with the part's bandwidth: the bandwidth at which the value is legal
    (what a catalogue edit that lowered it must give back)."""
    bw = inp.get("bandwidth_gbps")
    if c.check is CheckId.COMPUTE or not isinstance(bw, int | float) or bw <= 0:
        return None
    return f"legal at ≥ {_at_least(bw * c.percent / 100.0)} GB/s per part (it has {bw:g})"


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


def _violation(r: RecordResult) -> str | None:
    c = _over(r, stated_only=True)
    if c is None:
        return None
    inp = _inputs(r)
    memory = next((x for x in r.checks if x.check is CheckId.MEMORY), None)
    options: list[str] = [f"legal at a `value` ≤ {_at_most(c.ceiling)} tok/s (the {c.check.value})"]
    if c.check is CheckId.COMPUTE:
        count = _count_fix(c, inp)
        options += [f"with more accelerators: {count}"] if count else []
        options += [x for x in (_params_fix(c, inp),) if x]
    else:
        found = (_batch_fix(c, inp, memory), _bytes_fix(c, inp), _bandwidth_fix(c, inp))
        options += [x for x in found if x]
    return "; or ".join(options)


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


def fix_for(r: RecordResult) -> str | None:
    """The smallest change to the record that would settle its verdict, or None (a pass, a
    skipped record, an error: a record file's defect is not a roof's, see findings)."""
    if r.verdict is Verdict.VIOLATION:
        return _violation(r)
    if r.verdict is Verdict.SUSPECT:
        return _suspect(r)
    if r.verdict is Verdict.UNCHECKED:
        return _unchecked(r)
    return None
