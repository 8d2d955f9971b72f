"""What the figure is: per sequence or summed over a batch, at which batch, and whether
speculative decoding produced several tokens per weight pass."""

from __future__ import annotations

from roofbot.core.inputs import TOKEN_RATE_METRICS
from roofbot.core.provenance import Basis, Input
from roofbot.core.reader.rule import UNKNOWN, Kind
from roofbot.core.resolve_device import Context
from roofbot.core.results import RateKind
from roofbot.core.specificity import TIERS, choose

_BATCH_TIERS = TIERS[:3]


def batch(ctx: Context) -> Input[int] | None:
    """The decode batch this run states, or None where it is unknown or unstated."""
    if p := ctx.pin("batch"):
        return p
    for tier in _BATCH_TIERS:
        found = ctx.reading.stated(Kind.BATCH, tier)
        if not found:
            continue
        strong = [m for m in found if not m.weak] or found
        unknown = next((m for m in strong if m.value == UNKNOWN), None)
        if unknown is not None:
            if any(m.value != UNKNOWN for m in strong):
                ctx.note(
                    f"batch is both stated and called unfixed; read as unknown ({unknown.source})"
                )
            return None
        chosen = choose(ctx.reading, Kind.BATCH, (tier,))
        if chosen is None:
            return None
        if chosen.rivals:
            ctx.note(
                f"batch stated as {chosen.value} and "
                + " and ".join(str(m.value) for m in chosen.rivals)
                + "; the larger is taken, as an assumption"
            )
        return chosen.to_input("batch")
    return None


def rate(ctx: Context, metric: str, b: Input[int] | None) -> Input[RateKind]:
    kind = TOKEN_RATE_METRICS[metric]
    if metric != "decode_tok_s":
        return Input(kind, f"metric: {metric}", Basis.FIELD)
    agg = per = None
    for tier in (("unit",), ("name",), ("methodology",)):
        agg = next(iter(ctx.reading.stated(Kind.AGGREGATE, tier)), None)
        per = next(iter(ctx.reading.stated(Kind.PER_SEQUENCE, tier)), None)
        if agg or per:
            break
    if agg and not per:
        return Input(RateKind.AGGREGATE, f"metric: decode_tok_s, {agg.source}", Basis.TEXT)
    if b is not None and b.value > 1 and not per:
        return Input(RateKind.AGGREGATE, f"metric: decode_tok_s at batch {b.value}", Basis.TEXT)
    if per:
        return Input(RateKind.PER_SEQUENCE, f"metric: decode_tok_s, {per.source}", Basis.TEXT)
    if b is not None and b.value == 1:
        return Input(RateKind.PER_SEQUENCE, "metric: decode_tok_s at batch 1", Basis.TEXT)
    return Input(
        RateKind.PER_SEQUENCE,
        "metric: decode_tok_s; the text states neither a batch nor per-user (assumed one sequence)",
        Basis.ASSUMED,
    )


def speculative(ctx: Context) -> tuple[Input[str] | None, Input[float] | None]:
    """Speculative decoding this run used, and the accepted tokens per step if stated."""
    found = ctx.reading.stated(Kind.SPECULATIVE, ("name", "model", "unit", "methodology"))
    if not found:
        return None, None
    spec = Input(str(found[0].value), found[0].source, Basis.TEXT)
    if p := ctx.pin("tokens_per_step"):
        return spec, p
    tps = ctx.reading.stated(Kind.TOKENS_PER_STEP, ("unit", "methodology", "notes"))
    return spec, (Input(tps[0].value, tps[0].source, Basis.TEXT) if tps else None)
