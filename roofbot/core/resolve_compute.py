"""The precision a record's matrix math runs in, and the part's dense peak at it.

Where the text or the format names a precision, its dense row is used. Where the part has no
row there, the math runs at a wider precision the part does have, and the highest such peak is
taken (assumed). A weight-only format computes in FP16/BF16, or in int8 where the engine
quantizes the activations too (llama.cpp); the higher peak is taken (assumed). Where nothing is
named, the part's highest dense tensor peak (assumed). An fp32, tf32 or fp64 row never stands
in for tensor math: where no plausible row exists, there is no compute roof."""

from __future__ import annotations

from dataclasses import dataclass

from roofbot.core.catalogue import Accelerator
from roofbot.core.provenance import Basis, Input
from roofbot.core.reader.rule import Kind
from roofbot.core.reader.vocab.model import PRECISION_WORDS
from roofbot.core.resolve_device import LLAMA_CPP, Context
from roofbot.core.specificity import choose

_WIDTH = {"fp4": 4, "fp4_block_scaled": 4, "int4": 4, "fp6": 6, "fp8": 8, "int8": 8, "bf16": 16,
          "fp16": 16}  # fmt: skip
_TWIN = {"fp16": "bf16", "bf16": "fp16", "fp4": "fp4_block_scaled", "fp4_block_scaled": "fp4"}
_FLOATS = ("fp4", "fp4_block_scaled", "fp6", "fp8", "bf16", "fp16")
_TEXT_TIERS = (("unit",), ("model", "name"))


def _canon(word: str) -> str:
    return PRECISION_WORDS.get(word, word)


def _narrow_first(word: str) -> int:
    """Of two precisions named alike, the narrower computes faster: the lenient reading."""
    return -_WIDTH.get(_canon(word), 16)


@dataclass(frozen=True)
class Compute:
    precision: Input[str] | None = None
    peak: Input[float] | None = None
    sparse_only: str | None = None


def _named(ctx: Context) -> tuple[Input[str] | None, bool]:
    """(the precision named for this run, whether the run is weight-only quantized)."""
    if p := ctx.pin("compute_precision"):
        return Input(str(p.value).lower(), p.source, Basis.PIN), False
    chosen = choose(ctx.reading, Kind.PRECISION, _TEXT_TIERS, _narrow_first, _canon)
    if chosen is None:
        fmt = _format_precision(ctx)
        if fmt is not None:
            return fmt
        chosen = choose(ctx.reading, Kind.PRECISION, (("methodology",),), _narrow_first, _canon)
    if chosen is None:
        quantized = ctx.reading.stated(Kind.GGUF_TYPE, ("model", "name", "methodology"))
        quantized += ctx.reading.stated(Kind.BITS, ("model", "name", "methodology"))
        return None, bool(quantized)
    word = str(chosen.value)
    if word in ("w4a16", "w8a16"):
        return Input(
            "fp16", f"{chosen.mention.source} (weight-only: computes in 16 bits)", Basis.TEXT
        ), True
    src = chosen.to_input("precision")
    return Input(PRECISION_WORDS.get(word, word), src.source, src.basis), False


def _format_precision(ctx: Context) -> tuple[Input[str] | None, bool] | None:
    fmt = ctx.record.get("format_id")
    q = ctx.catalogue.quantization.get(fmt) if isinstance(fmt, str) else None
    if q is None:
        return None
    src = f"format_id -> {q.path}"
    blob = f"{q.id} {q.scheme or ''} {q.bits or ''}".lower()
    for word, prec in (
        ("fp8", "fp8"),
        ("fp4", "fp4"),
        ("w8a8", "int8"),
        ("w4a8", "fp8"),
        ("w4a4", "fp4"),
    ):
        if word in blob:
            return Input(prec, src, Basis.FIELD), False
    return None, True


def _peak(acc: Accelerator, prec: str) -> float | None:
    peaks = [p for q in (prec, _TWIN.get(prec)) if q and (p := acc.dense_peak(q)) is not None]
    return max(peaks) if peaks else None


def _best(acc: Accelerator, precisions: tuple[str, ...]) -> tuple[float, str] | None:
    found = [(p, q) for q in precisions if (p := acc.dense_peak(q)) is not None]
    return max(found) if found else None


def compute(ctx: Context, acc: Accelerator | None) -> Compute:
    named, weight_only = _named(ctx)
    if acc is None or not acc.flops:
        return Compute(named)
    llama = ctx.reading.text("engine_id").lower().replace("_", "-") in LLAMA_CPP
    rows = acc.path
    if named is not None:
        prec = named.value
        peak = _peak(acc, prec)
        sparse = prec if peak is None and acc.has_sparse_only(prec) else None
        if peak is not None:
            return Compute(named, Input(peak, f"{rows}: largest dense {prec} row", Basis.CATALOGUE))
        width = _WIDTH.get(prec, 16)
        wider = tuple(q for q in _FLOATS if _WIDTH[q] > width) + (
            ("int8",) if llama and width < 8 else ()
        )
        if prec == "int8":
            wider = ("bf16", "fp16")
        found = _best(acc, wider)
        if found is None:
            ctx.note(
                f"{acc.id} has no dense {prec} row, nor a wider one its math could run at: no compute roof"
            )
            return Compute(named, None, sparse)
        peak, q = found
        why = f"{named.source} names {prec}, which {acc.id} has no dense row for; its math runs at a wider precision, {q} (assumed)"
        return Compute(
            Input(q, why, Basis.ASSUMED),
            Input(peak, f"{rows}: dense {q} row", Basis.ASSUMED),
            sparse,
        )
    if weight_only:
        plausible = ("bf16", "fp16", *(("int8",) if llama else ()))
        found = _best(acc, plausible)
        if found is None:
            ctx.note(
                f"a weight-only format computes in fp16/bf16{' or int8' if llama else ''}; {acc.id} lists no such dense row: no compute roof"
            )
            return Compute()
        peak, q = found
        why = f"a weight-only format computes in {'/'.join(plausible)}; the highest of those peaks, {q} (assumed)"
        return Compute(
            Input(q, why, Basis.ASSUMED), Input(peak, f"{rows}: dense {q} row", Basis.ASSUMED)
        )
    found = _best(acc, (*_FLOATS, "int8", "int4"))
    if found is None:
        ctx.note(
            f"no compute precision is named and {acc.id} lists no dense tensor row: no compute roof"
        )
        return Compute()
    peak, q = found
    why = "no compute precision is named; the part's highest dense tensor peak is used (assumed)"
    return Compute(
        Input(q, why, Basis.ASSUMED), Input(peak, f"{rows}: dense {q} row", Basis.ASSUMED)
    )
