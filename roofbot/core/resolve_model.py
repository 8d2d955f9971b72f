"""The model a figure ran: its parameters and active share, its bits per weight, and the bytes
its weights take per token."""

from __future__ import annotations

import re

from roofbot.core.model_names import close, one_size
from roofbot.core.provenance import Basis, Input
from roofbot.core.reader.rule import Kind
from roofbot.core.reader.vocab.model import PRECISION_WORDS, WEIGHT_ONLY
from roofbot.core.resolve_device import Context
from roofbot.core.units import GB, unit_factor

_WA = re.compile(r"\bw(\d+)a(\d+)\b", re.IGNORECASE)
_FIRST_NUMBER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)")
_PRECISION_BITS = {"fp4": 4.0, "fp6": 6.0, "fp8": 8.0, "bf16": 16.0, "fp16": 16.0, "fp32": 32.0,
                   "int8": 8.0, "int4": 4.0}  # fmt: skip


def bits_of(text: str | None) -> float | None:
    """Bits per weight from a format's `bits` text ("8.5008 avg (...)", "w4a16")."""
    if not text:
        return None
    m = _WA.search(text)
    if m:
        return float(m[1])
    n = _FIRST_NUMBER.search(text)
    return float(n[1]) if n and 1 <= float(n[1]) <= 32 else None


def several_models(ctx: Context) -> bool:
    """`model` lists several models ("Llama 3.2 3B / Phi-3 3.8B / Qwen 2.5 7B"), not one
    model's nominal size beside its exact count ("llama 7B Q8_0 | 6.67 GiB | 6.74 B")."""
    sizes = {m.value[0] for m in ctx.reading.stated(Kind.PARAMS, ("model",))}
    return any(not close(a, b) for a in sizes for b in sizes)


def params(ctx: Context) -> tuple[Input[float] | None, Input[float] | None]:
    """(total, active) parameters in billions; active is None for a mixture of experts
    whose active share is stated nowhere."""
    total, active = ctx.pin("params"), ctx.pin("active_params")
    text = ctx.reading.text("model")
    if several_models(ctx):  # the unit's leading clause says which model the value is
        text = ctx.reading.text("unit").split(";")[0]
    model = ctx.catalogue.match_model(text)
    if model is not None:
        src = f"model -> {model.path}"
        if total is None and model.params_b is not None:
            total = Input(model.params_b, f"{src}: params_b", Basis.CATALOGUE)
        if active is None and model.active_params_b is not None:
            active = Input(model.active_params_b, f"{src}: active_params_b", Basis.CATALOGUE)
        elif active is None and model.architecture == "dense" and total is not None:
            active = Input(total.value, f"{src}: dense", Basis.CATALOGUE)
        if total is not None and active is not None:
            return total, active
    sizes = ctx.reading.stated(Kind.PARAMS, ("model",))
    if len({m.value[0] for m in sizes}) > 1:
        head = [m for m in ctx.reading.stated(Kind.PARAMS, ("unit",)) if m.span.start < len(text)]
        sizes = head if len({m.value[0] for m in head}) == 1 else sizes
    totals = {m.value[0] for m in sizes}
    named = one_size(text) if model is None else None
    if total is None and not totals and named is not None:
        total = Input(named.total, f"model {named.quote!r}", Basis.TEXT)
    elif total is None and len(totals) == 1:
        total = Input(sizes[0].value[0], sizes[0].source, Basis.TEXT)
    elif total is None and len(totals) > 1 and named is not None and named.total in totals:
        # a nominal size beside its exact count ("llama 7B ... 6.74 B"): the count
        total = Input(named.total, f"model {named.quote!r} (the exact count)", Basis.TEXT)
    elif total is None and len(totals) > 1:
        listed = ", ".join(f"{t:g}B" for t in sorted(totals))
        ctx.note(f"model names {listed}: which one ran is not clear", "model")
        return None, None
    if active is None:
        with_active = [m for m in sizes if m.value[1] is not None]
        stated = ctx.reading.stated(Kind.ACTIVE, ("model",))
        moe = ctx.reading.stated(Kind.MOE, ("model",))
        if with_active:
            active = Input(float(with_active[0].value[1]), with_active[0].source, Basis.TEXT)
        elif stated:
            active = Input(float(stated[0].value), stated[0].source, Basis.TEXT)
        elif named is not None and named.active is not None and total is not None:
            active = Input(named.active, f"model {named.quote!r}: active", Basis.TEXT)
        elif total is not None and not moe and (model is None or model.architecture != "moe"):
            active = Input(total.value, f"{total.source} (dense: no MoE named)", total.basis)
        elif total is not None:
            ctx.moe_unbounded = True
            ctx.note(
                "the model is a mixture of experts whose active parameters are stated nowhere: "
                "no roof can bound it (state them in the model field, or pin active_params)",
                "model",
            )
    if active is None and ctx.reading.stated(Kind.MOE, ("model", "name", "methodology")):
        ctx.moe_unbounded = True
    return total, active


def bits(ctx: Context) -> Input[float] | None:
    """Bits per weight: the format record's, a GGUF type the model names, or the text's."""
    fmt = ctx.record.get("format_id")
    if isinstance(fmt, str) and fmt:
        q = ctx.catalogue.quantization.get(fmt)
        if q is None:
            ctx.note(
                f"format_id {fmt!r} does not resolve to a catalogue quantization format: "
                "bits per weight are not taken from it",
                "format_id",
            )
        elif (b := bits_of(q.bits)) is not None:
            src = f"format_id -> {q.path}: bits {q.bits!r}"
            return Input(b, src, Basis.CATALOGUE)
        else:
            ctx.note(f"{q.path}: bits {q.bits!r} is not a number of bits")
    for m in ctx.reading.stated(Kind.GGUF_TYPE, ("model",)):
        q = ctx.catalogue.quantization.get("gguf-" + m.value.lower().replace("_", "-"))
        if q is not None and (b := bits_of(q.bits)) is not None:
            src = f"model names {m.value} -> {q.path}: bits {q.bits!r}"
            return Input(b, src, Basis.CATALOGUE)
    stated = ctx.reading.stated(Kind.BITS, ("model", "methodology", "unit"))
    if stated:
        return Input(min(float(m.value) for m in stated), stated[0].source, Basis.TEXT)
    widths = [
        (_PRECISION_BITS[PRECISION_WORDS[m.value]], m)
        for m in ctx.reading.stated(Kind.PRECISION, ("model", "unit", "methodology"))
        if m.value not in WEIGHT_ONLY and not m.value.startswith("w")
    ]
    if widths:
        b, m = min(widths, key=lambda w: w[0])
        return Input(b, m.source, Basis.TEXT)
    return None


def stated_weight_bytes(ctx: Context) -> Input[float] | None:
    """Weight bytes pinned, or stated exactly in the text (never an approximation)."""
    if p := ctx.pin("weight_bytes"):
        return p
    found = [
        m
        for m in ctx.reading.stated(Kind.WEIGHT_SIZE, ("model",))
        if m.rule in ("size-in-model-name", "size-after-model-name")
    ]
    fields = ("methodology",) if several_models(ctx) else ("methodology", "notes")
    found += [
        m
        for m in ctx.reading.stated(Kind.WEIGHT_SIZE, fields)
        if m.rule in ("size-of-weights", "weights-are-size", "llama-bench-row")
    ]
    if not found:
        return None
    sizes = sorted(((m.value[0] * unit_factor(m.value[1]), m) for m in found), key=lambda s: s[0])
    n, m = sizes[0]
    if len({s for s, _ in sizes}) > 1:
        listed = "; ".join(x.source for _, x in sizes[:3])
        ctx.note(f"several weight sizes are stated; the smallest is used: {listed}")
    return Input(n, f"{m.source} = {n / GB:.4g} GB", Basis.TEXT)


def weight_from_bits(total: Input[float], b: Input[float]) -> Input[float]:
    n = total.value * 1e9 * b.value / 8
    basis = Basis.ASSUMED if total.assumed or b.assumed else Basis.DERIVED
    return Input(n, f"params {total.value:g}B x {b.value:g} bits / 8 = {n / GB:.4g} GB", basis)


def weight_bound(ctx: Context) -> Input[float] | None:
    """A measured footprint: it holds the weights and more, so it bounds them from above."""
    found = ctx.reading.stated(Kind.WEIGHT_BOUND, ("methodology", "unit"))
    if not found:
        return None
    n = found[0].value[0] * unit_factor(found[0].value[1])
    src = f"{found[0].source}: at most {n / GB:.4g} GB of weights (a footprint bounds them from above)"
    return Input(n, src, Basis.ASSUMED)


def active_bytes(
    ctx: Context,
    weight: Input[float] | None,
    total: Input[float] | None,
    active: Input[float] | None,
) -> Input[float] | None:
    if p := ctx.pin("bytes_per_token"):
        return p
    if weight is None or total is None or active is None:
        return None
    if active.value >= total.value:
        basis = weight.basis if weight.basis is Basis.ASSUMED else Basis.DERIVED
        return Input(weight.value, "weight bytes (dense: every weight is read per token)", basis)
    n = weight.value * active.value / total.value
    basis = Basis.ASSUMED if weight.assumed or active.assumed else Basis.DERIVED
    src = f"weight bytes x {active.value:g}/{total.value:g} active = {n / GB:.4g} GB"
    return Input(n, src, basis)
