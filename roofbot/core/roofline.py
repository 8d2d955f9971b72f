"""The ceilings (contract section 3) and which of them apply to a record.

memory-roof          BW_eff / bytes per token (one sequence; BW_eff = tp x BW)
batched-memory-roof  B x memory-roof (an aggregate at a known batch B > 1)
compute-roof         count x peak FLOPS / (2 x active params) (needs no batch size)
"""

from __future__ import annotations

from roofbot.core.inputs import Inputs
from roofbot.core.provenance import Input
from roofbot.core.results import CheckId, RateKind, RoofCheck
from roofbot.core.units import GB


def _assumed(*inputs: tuple[str, Input[object] | None]) -> tuple[str, ...]:
    return tuple(name for name, i in inputs if i is not None and i.assumed)


def effective_bandwidth(inp: Inputs, bw: float) -> tuple[float, str, tuple[tuple[str, float], ...]]:
    """(BW_eff in GB/s, how it was formed, the pipeline reading where the split is unknown)."""
    n = inp.count.value
    if n <= 1:
        return bw, f"{bw:g} GB/s", ()
    split = inp.parallelism.value if inp.parallelism else None
    tp = inp.tensor_degree.value if inp.tensor_degree else None
    if tp is not None and tp != n:
        if tp <= 1:
            return bw, f"{bw:g} GB/s (one device a stage: pipeline stages stream one at a time)", ()
        return (
            bw * tp,
            f"{tp} x {bw:g} GB/s (one sequence streams through one tensor group of {tp} "
            f"of the {n} devices at a time)",
            (),
        )
    if tp is not None:
        return bw * n, f"{n} x {bw:g} GB/s (tensor parallel)", ()
    if split == "pipeline":
        return bw, f"{bw:g} GB/s (pipeline: one stage streams at a time)", ()
    if split == "tensor":
        return bw * n, f"{n} x {bw:g} GB/s (tensor parallel)", ()
    return (
        bw * n,
        f"{n} x {bw:g} GB/s (split unknown; pipeline would be {bw:g} GB/s)",
        (("pipeline", bw),),
    )


def memory_roof(inp: Inputs, value: float) -> RoofCheck | None:
    """BW_eff / active bytes per token; None when an input is missing."""
    if inp.bandwidth_gbps is None or inp.active_bytes is None or inp.active_bytes.value <= 0:
        return None
    bw_eff, bw_text, alt = effective_bandwidth(inp, inp.bandwidth_gbps.value)
    nbytes = inp.active_bytes.value
    ceiling = bw_eff * GB / nbytes
    formula = f"{bw_text} / {nbytes / GB:.4g} GB = {ceiling:.2f} tok/s"
    alternatives = [(label, b * GB / nbytes) for label, b in alt]
    if inp.other_bandwidth_gbps is not None:
        other, _, _ = effective_bandwidth(inp, inp.other_bandwidth_gbps.value)
        alternatives.append((f"{inp.other_bandwidth_gbps.value:g} GB/s", other * GB / nbytes))
    why = None
    if inp.weights_bound_only and value > ceiling:
        why = (
            "the weight bytes are a measured footprint, which bounds them from above: this roof "
            "is a lower bound on the true one and condemns nothing (state the weight bytes)"
        )
    elif inp.speculative is not None:
        if inp.tokens_per_step is None:
            why = (
                f"speculative decoding ({inp.speculative.value}) with no stated accepted tokens "
                "per step: one sequence may emit several tokens per weight pass"
            )
        else:
            ceiling *= inp.tokens_per_step.value
            formula += (
                f" x {inp.tokens_per_step.value:g} accepted tokens per step = {ceiling:.2f} tok/s"
            )
    assumed = _assumed(
        ("count", inp.count), ("bandwidth_gbps", inp.bandwidth_gbps), ("part", inp.part),
        ("active_bytes", inp.active_bytes), ("weight_bytes", inp.weight_bytes),
        ("parallelism", inp.parallelism), ("tensor_degree", inp.tensor_degree),
        ("rate", inp.rate),
    )  # fmt: skip
    return RoofCheck(
        CheckId.MEMORY, why is None, ceiling, value, formula, why, assumed, tuple(alternatives)
    )


def compute_roof(inp: Inputs, value: float) -> RoofCheck | None:
    if inp.peak_tflops is None or inp.active_params_b is None or inp.active_params_b.value <= 0:
        return None
    n = inp.count.value
    flops = n * inp.peak_tflops.value * 1e12
    ceiling = flops / (2 * inp.active_params_b.value * 1e9)
    prec = inp.compute_precision.value if inp.compute_precision else "?"
    formula = (
        f"{n} x {inp.peak_tflops.value:g} TFLOPS ({prec}) / (2 x {inp.active_params_b.value:g}B "
        f"active) = {ceiling:.2f} tok/s"
    )
    assumed = _assumed(
        ("count", inp.count), ("compute_precision", inp.compute_precision),
        ("peak_tflops", inp.peak_tflops), ("active_params_b", inp.active_params_b),
    )  # fmt: skip
    return RoofCheck(CheckId.COMPUTE, True, ceiling, value, formula, None, assumed)


def checks(inp: Inputs, value: float) -> tuple[RoofCheck, ...]:
    """Every ceiling that can be computed, each marked applied or not (contract table 3)."""
    out: list[RoofCheck] = []
    compute = compute_roof(inp, value)
    if compute is not None:
        out.append(compute)
    mem = memory_roof(inp, value)
    if mem is None:
        return tuple(out)
    rate, batch = inp.rate.value, inp.batch.value if inp.batch else None
    if rate is RateKind.PER_SEQUENCE or (rate is RateKind.AGGREGATE and batch == 1):
        out.append(mem)
        return tuple(out)
    if rate is RateKind.AGGREGATE and batch is not None and batch > 1:
        batched = RoofCheck(
            CheckId.BATCHED, mem.applies, batch * mem.ceiling, value,
            f"{batch} x {mem.ceiling:.2f} tok/s = {batch * mem.ceiling:.2f} tok/s", mem.why,
            (*mem.assumed, *(("batch",) if inp.batch and inp.batch.assumed else ())),
            tuple((label, batch * c) for label, c in mem.alternatives),
        )  # fmt: skip
        out.append(batched)
        why = f"aggregate at batch {batch}: the batch-1 roof bounds one sequence, not the batch"
    elif rate is RateKind.AGGREGATE:
        why = "aggregate at an unknown batch: the batch-1 roof does not bound it"
    else:
        why = (
            "prefill processes the prompt in parallel: the weight stream is not read once per token"
        )
    out.append(
        RoofCheck(
            CheckId.MEMORY,
            False,
            mem.ceiling,
            value,
            mem.formula,
            why,
            mem.assumed,
            mem.alternatives,
        )
    )
    return tuple(out)
