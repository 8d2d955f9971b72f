"""Resolving every roofline input of one benchmark record, each with its provenance.

The reader (`roofbot.core.reader`) says what the text affirms for this run; resolution takes
the most specific statement of each input (a pin, then `unit`, then `model`/`name`, then the
methodology, then the notes, then the catalogue). An assumption may only raise a ceiling, and
an input that only an assumption supplies is marked assumed."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from roofbot.core import resolve_device as device
from roofbot.core import resolve_model as model
from roofbot.core import resolve_rate as rate_of
from roofbot.core.catalogue import Catalogue
from roofbot.core.config import Pin
from roofbot.core.inputs import TOKEN_RATE_METRICS, Inputs, unit_is_token_rate
from roofbot.core.reader.clauses import MAX_FIELD
from roofbot.core.reader.reading import Reading, read_record
from roofbot.core.reader.rule import Kind
from roofbot.core.resolve_compute import compute
from roofbot.core.specificity import asides_of

__all__ = ["TOKEN_RATE_METRICS", "Inputs", "mentioned_ids", "resolve", "unit_is_token_rate"]

_ID_MENTION = re.compile(r"(?<![\w-])[a-z0-9]+(?:-[a-z0-9]+(?:\.[a-z0-9]+)*){3,}(?![\w-])")
"""A record id named in text: four or more dash-joined words; a dot only inside a word, so the
full stop after an id that ends a sentence is not taken for part of it."""

_EXPLAINED = {
    "count": Kind.COUNT, "parallelism": Kind.PARALLELISM, "batch": Kind.BATCH,
    "tensor_degree": Kind.TENSOR_DEGREE,
    "compute_precision": Kind.PRECISION, "bandwidth_gbps": Kind.BANDWIDTH,
    "speculative": Kind.SPECULATIVE, "weight_bytes": Kind.WEIGHT_SIZE,
}  # fmt: skip


def mentioned_ids(texts: Mapping[str, str], own: object = None) -> tuple[str, ...]:
    """The record ids a record's unit, methodology and notes name (not its own id `own`), in
    order: the siblings a trap compares it with."""
    found: list[str] = []
    for name in ("unit", "methodology", "notes"):
        for m in _ID_MENTION.finditer((texts.get(name) or "")[:MAX_FIELD]):
            if m[0] != own and m[0] not in found:
                found.append(m[0])
    return tuple(found)


def resolve(
    record: Mapping[str, Any],
    catalogue: Catalogue,
    pins: Mapping[str, Pin],
    reading: Reading | None = None,
) -> Inputs:
    """Resolve a token-rate benchmark record's inputs (its metric must be a token rate)."""
    ctx = device.Context(record, catalogue, pins, reading or read_record(record))
    batch = rate_of.batch(ctx)
    rate = rate_of.rate(ctx, str(record["metric"]), batch)
    part = device.part(ctx)
    count = device.count(ctx, part.acc)
    bw = device.bandwidth(ctx, part)
    flops = compute(ctx, part.acc)
    total, active = model.params(ctx)
    bits = model.bits(ctx)
    weight = model.stated_weight_bytes(ctx)
    from_bits = weight is None and total is not None and bits is not None
    if from_bits and total is not None and bits is not None:
        weight = model.weight_from_bits(total, bits)
    bound = weight is None and (weight := model.weight_bound(ctx)) is not None
    spec, tokens = rate_of.speculative(ctx)
    return Inputs(
        rate=rate,
        count=count,
        part=part.input,
        parallelism=device.parallelism(ctx, count),
        tensor_degree=device.tensor_degree(ctx, count),
        bandwidth_gbps=bw.used,
        other_bandwidth_gbps=bw.other,
        compute_precision=flops.precision,
        peak_tflops=flops.peak,
        batch=batch,
        params_b=total,
        active_params_b=active,
        bits_per_weight=bits if from_bits else None,
        weight_bytes=weight,
        active_bytes=model.active_bytes(ctx, weight, total, active),
        speculative=spec,
        tokens_per_step=tokens,
        sparse_only_precision=flops.sparse_only,
        variant=bw.why or part.why,
        siblings=mentioned_ids(ctx.reading.texts, record.get("id")) if batch is not None else (),
        messages=tuple(ctx.messages),
        set_aside=asides_of(ctx.reading, _EXPLAINED),
        weights_bound_only=bound,
        moe_unbounded=ctx.moe_unbounded,
    )
