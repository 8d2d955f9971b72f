"""The traps (contract section 5): each one's detection sits beside its explanation and the
repository gotcha record it links to."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from roofbot.core.inputs import Inputs
from roofbot.core.reader.reading import Reading
from roofbot.core.reader.rule import Kind
from roofbot.core.results import CheckId, RateKind, RoofCheck


@dataclass(frozen=True)
class Sibling:
    """What a trap needs of a record this one names: its rate, batch and value."""

    id: str
    rate: RateKind
    batch: int | None
    value: float


@dataclass(frozen=True)
class TrapContext:
    inputs: Inputs
    checks: tuple[RoofCheck, ...]
    value: float
    reading: Reading
    siblings: tuple[Sibling, ...] = ()


@dataclass(frozen=True)
class Trap:
    """A known way a record's figure misleads: how to see it (`detect`), what it means for this
    record (`explain`), and how reports name it (`title`, `help`, and `field`: the record field
    it is about, for the finding's line)."""

    id: str
    gotcha: str | None  # the repository's own gotcha record id
    explain: Callable[[TrapContext], str]
    detect: Callable[[TrapContext], bool]
    field: str
    title: str
    help: str


def _mem(ctx: TrapContext) -> RoofCheck | None:
    return next((c for c in ctx.checks if c.check is CheckId.MEMORY), None)


def _batch(ctx: TrapContext) -> int | None:
    return ctx.inputs.batch.value if ctx.inputs.batch else None


def _aggregate(ctx: TrapContext) -> bool:
    return ctx.inputs.rate.value is RateKind.AGGREGATE


def _derived_text(ctx: TrapContext) -> bool:
    return bool(ctx.reading.stated(Kind.DERIVED, ("unit", "methodology", "notes")))


def _near_memory_roof(ctx: TrapContext) -> bool:
    m = _mem(ctx)
    return m is not None and m.applies and 99.0 <= m.percent <= 101.0


def _per_user_mismatch(ctx: TrapContext) -> Sibling | None:
    mine = ctx.inputs.rate.value
    for s in ctx.siblings:
        pair = {mine, s.rate}
        if pair != {RateKind.AGGREGATE, RateKind.PER_SEQUENCE}:
            continue
        b_self, b_sib = _batch(ctx), s.batch
        if b_self is None or b_sib is None or b_self != b_sib:
            continue
        agg, per = (ctx.value, s.value) if mine is RateKind.AGGREGATE else (s.value, ctx.value)
        expected = per * b_self
        if expected > 0 and abs(agg - expected) > 0.02 * expected:
            return s
    return None


def _explain_per_user(ctx: TrapContext) -> str:
    s = _per_user_mismatch(ctx)
    if s is None:
        return ""
    agg, per = (
        (ctx.value, s.value)
        if ctx.inputs.rate.value is RateKind.AGGREGATE
        else (s.value, ctx.value)
    )
    b = _batch(ctx)
    return (
        f"{s.id} is the same run's other convention: aggregate {agg:g} should be per-user "
        f"{per:g} x batch {b} = {per * (b or 0):g} (within 2%); one of the two is mislabelled"
    )


def _explain_variant(ctx: TrapContext) -> str:
    m, used, alt = _mem(ctx), ctx.inputs.bandwidth_gbps, ctx.inputs.other_bandwidth_gbps
    if used is not None and (alt is None or alt.value == used.value):
        return f"{ctx.inputs.variant}; both stream {used.value:g} GB/s: the memory roof is the same under either"
    other = ""
    if m is not None and ctx.inputs.other_bandwidth_gbps is not None:
        roof = dict(m.alternatives).get(f"{ctx.inputs.other_bandwidth_gbps.value:g} GB/s")
        if roof:
            other = (
                f": under {ctx.inputs.other_bandwidth_gbps.value:g} GB/s the memory roof is "
                f"{roof:.2f} tok/s and the record sits at {100 * ctx.value / roof:.1f}%"
            )
    return f"{ctx.inputs.variant}; the larger bandwidth is used unless pinned{other}"


TRAPS: tuple[Trap, ...] = (
    Trap(
        "batch-1-roof-on-aggregate",
        "bench-batch-size-above-one-makes-the-batch-1-roofline-illegally-tight",
        lambda ctx: (
            f"an aggregate at batch {_batch(ctx)} reads the weights once per step for "
            f"{_batch(ctx)} sequences: the batch-1 roof does not apply, the batched roof does"
        ),
        lambda ctx: _aggregate(ctx) and (_batch(ctx) or 0) > 1,
        field="methodology",
        title="An aggregate at batch B > 1: the batch-1 roof does not apply",
        help="The batched roof and the compute roof bound it; the batch-1 roof is shown, not applied.",
    ),
    Trap(
        "unknown-batch-is-not-batch-1",
        "bench-batch-size-above-one-makes-the-batch-1-roofline-illegally-tight",
        lambda ctx: (
            "the batch is not a known number, which is not batch 1: only the compute roof, "
            "which needs no batch size, applies"
        ),
        lambda ctx: _aggregate(ctx) and _batch(ctx) is None,
        field="methodology",
        title="Batch unknown: only the compute roof applies",
        help="An aggregate at an unknown batch is not at batch 1. State the batch to get a memory roof.",
    ),
    Trap(
        "moe-total-vs-active",
        None,
        lambda ctx: (
            f"a mixture of experts reads only its active weights per token "
            f"({ctx.inputs.active_params_b.value:g}B of {ctx.inputs.params_b.value:g}B): "
            "a total-weight roof would be the wrong divisor"
            if ctx.inputs.active_params_b and ctx.inputs.params_b
            else "a mixture of experts reads only its active weights per token, and this one's "
            "active share is stated nowhere: a total-weight roof would be the wrong divisor, so "
            "neither the memory nor the compute roof is applied"
        ),
        lambda ctx: (
            ctx.inputs.moe_unbounded
            or bool(
                ctx.inputs.active_params_b
                and ctx.inputs.params_b
                and ctx.inputs.active_params_b.value < ctx.inputs.params_b.value
            )
        ),
        field="model",
        title="A mixture of experts: the active weights, not the total, divide the bandwidth",
        help="Only the experts routed to read their weights per token.",
    ),
    Trap(
        "bandwidth-derived-figure",
        "bench-tok-s-derived-from-memory-bandwidth-is-not-a-benchmark",
        lambda ctx: (
            "the figure sits within 1% of bandwidth / bytes, or the record's own text derives it "
            "from bandwidth: a roof restated is not a measurement"
        ),
        lambda ctx: _near_memory_roof(ctx) or _derived_text(ctx),
        field="value",
        title="Looks derived from bandwidth rather than measured",
        help="Within 1% of bandwidth / bytes, or its own text derives the figure from bandwidth.",
    ),
    Trap(
        "per-user-vs-aggregate",
        "bench-batch-size-above-one-makes-the-batch-1-roofline-illegally-tight",
        _explain_per_user,
        lambda ctx: _per_user_mismatch(ctx) is not None,
        field="value",
        title="A per-user and an aggregate record of the same run disagree",
        help="The aggregate should be per-user x B within 2%.",
    ),
    Trap(
        "hardware-part-variant",
        "bench-greenbench-apple-set-exceeds-its-own-part-roof",
        _explain_variant,
        lambda ctx: ctx.inputs.variant is not None,
        field="accelerator_ids",
        title="The part is ambiguous, or the text names another device or bandwidth",
        help="The larger bandwidth is used unless pinned; the percent under the other is shown.",
    ),
    Trap(
        "sparse-peak",
        "aa-gotcha-vendor-sparsity-footnote-conventions-differ-by-vendor",
        lambda ctx: (
            f"the part lists only a sparse {ctx.inputs.sparse_only_precision} peak, which is not "
            "a dense rate and is never used as one"
        ),
        lambda ctx: ctx.inputs.sparse_only_precision is not None,
        field="accelerator_ids",
        title="Only a sparse FLOPS row exists at the compute precision",
        help="Sparse peaks are not dense peaks; the compute roof is not taken from them.",
    ),
    Trap(
        "speculative-decoding",
        None,
        lambda ctx: (
            f"speculative decoding ({ctx.inputs.speculative.value if ctx.inputs.speculative else ''}) "
            "emits several tokens per weight pass: the memory roof scales by the accepted tokens per "
            "step, and is not applied where that is not stated"
        ),
        lambda ctx: ctx.inputs.speculative is not None,
        field="methodology",
        title="Speculative decoding: more than one token per weight read",
        help="The memory roof is multiplied by the accepted tokens per step when stated.",
    ),
)

NOT_A_TOKEN_RATE = Trap(
    "not-a-token-rate",
    "bench-tflops-filed-as-tps-aggregate-survives-the-tok-s-filter",
    lambda ctx: "the metric is a token rate but the unit is not: reported, not checked",
    lambda ctx: False,  # decided from the unit before resolution, see check.py
    field="unit",
    title="A token-rate metric whose unit is not a token rate",
    help="Reported, not checked: fix the metric or the unit.",
)

BY_ID: Mapping[str, Trap] = {t.id: t for t in (*TRAPS, NOT_A_TOKEN_RATE)}


def detect(ctx: TrapContext) -> tuple[str, ...]:
    return tuple(t.id for t in TRAPS if t.detect(ctx))


def gotcha_for(trap_id: str, overrides: Mapping[str, str]) -> str | None:
    """The gotcha record a trap links to: `.roofbot.yml` traps override the built-in map."""
    if trap_id in overrides:
        return overrides[trap_id]
    trap = BY_ID.get(trap_id)
    return trap.gotcha if trap else None
