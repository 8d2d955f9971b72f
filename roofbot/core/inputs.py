"""The roofline inputs of one benchmark record, each with where it came from, and which
records are token rates at all."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from roofbot.core.provenance import Input
from roofbot.core.results import Message, RateKind

TOKEN_RATE_METRICS: Mapping[str, RateKind] = {
    "tok_s_per_user": RateKind.PER_SEQUENCE,
    "decode_tok_s": RateKind.PER_SEQUENCE,
    "tps_aggregate": RateKind.AGGREGATE,
    "prefill_tok_s": RateKind.PREFILL,
}

TOKEN_WORDS = (
    "トークン",  # Japanese: "トークン/秒", "42 トークン/s"
    "토큰",  # Korean: "토큰/초"
    "токен",  # Russian: "токенов/с", "токен/сек"
    "ток/с",  # Russian shorthand: "ток/с"
    "т/с",  # Russian shorthand for "t/s": "18 т/с"
    "词元",  # Chinese for token: "词元/秒"
    "jetons",  # French: "jetons/s"
)
"""A token, as units in other languages write it: each is a token rate's unit (beside "tok/s",
"tokens/s", "t/s" and "tps")."""
_TOKEN_UNIT = re.compile(
    r"\btok(?:en)?s?\b|\bt/s\b|tok/s|tps\b|" + "|".join(map(re.escape, TOKEN_WORDS)),
    re.IGNORECASE,
)
_NOT_TOKEN_UNIT = re.compile(
    r"\b[TPG]FLOPS\b|\bTOPS\b|^\s*x\b|\bspeedup\b|\bratio\b|\bmultiple\b|\bJ/tok"
    r"|\bms\b\s*(?:/|per)\s*(?:output\s+)?tok|\bTPOT\b|\bseconds? per tok"
    r"|\btok(?:en)?s?/s(?:ec)?/W\b|\btok(?:en)?s?/J\b|\btok(?:en)?s?/s(?:ec)?\s+per\s+(?:watt|W)\b"
    r"|\btok(?:en)?s? per joule",
    re.IGNORECASE,
)


_OTHER_QUANTITY = re.compile(
    r"\b[TPGM]?FLOPS\b|\bTOPS\b|^\s*x\b|\bspeedup\b|\bratio\b|\bmultiple\b|\bJ(?:oules?)?\b"
    r"|\bms\b|\bmilliseconds?\b|\bseconds?\b|\bwatts?\b|\bW\b|%|\bpercent\b|\bTPOT\b|\bTTFT\b",
    re.IGNORECASE,
)


def unit_names_other_quantity(unit: str) -> bool:
    """The unit is recognisably something other than a token rate (TFLOPS, ms, J/token, W, a
    ratio or multiple): such a record is reported and skipped. A unit that is empty or names
    nothing roofbot knows ("tk/s") is neither: a token-rate record with it is an error."""
    return not unit_is_token_rate(unit) and _OTHER_QUANTITY.search(unit) is not None


def unit_is_token_rate(unit: str) -> bool:
    """The unit's leading quantity is a token rate ("output tokens/s; ENERGY: 0.09 J/token"
    is; "TFLOPS FP16", "x MULTIPLE of the true tok/s" and "ms per output token" are not)."""
    tok, other = _TOKEN_UNIT.search(unit), _NOT_TOKEN_UNIT.search(unit)
    return tok is not None and (other is None or tok.start() < other.start())


@dataclass(frozen=True)
class Inputs:
    """Everything the arithmetic needs, each value with where it came from. `set_aside`
    holds, for `explain`, the readings of the text that were not taken and why."""

    rate: Input[RateKind]
    count: Input[int]
    part: Input[str] | None = None
    parallelism: Input[str] | None = None
    tensor_degree: Input[int] | None = None  # the devices one sequence streams through at once
    bandwidth_gbps: Input[float] | None = None
    other_bandwidth_gbps: Input[float] | None = None
    compute_precision: Input[str] | None = None
    peak_tflops: Input[float] | None = None
    batch: Input[int] | None = None
    params_b: Input[float] | None = None
    active_params_b: Input[float] | None = None
    bits_per_weight: Input[float] | None = None
    weight_bytes: Input[float] | None = None
    active_bytes: Input[float] | None = None
    speculative: Input[str] | None = None
    tokens_per_step: Input[float] | None = None
    sparse_only_precision: str | None = None
    variant: str | None = None  # why the part is ambiguous, for hardware-part-variant
    siblings: tuple[str, ...] = ()
    messages: tuple[Message, ...] = ()
    set_aside: tuple[tuple[str, str], ...] = ()
    weights_bound_only: bool = False  # weight bytes are a footprint: an upper bound
    moe_unbounded: bool = False  # a mixture of experts whose active share is stated nowhere

    def items(self) -> tuple[tuple[str, Input[Any]], ...]:
        """The resolved inputs in reading order, for reports."""
        names = (
            "rate", "part", "count", "parallelism", "tensor_degree", "bandwidth_gbps",
            "other_bandwidth_gbps",
            "compute_precision", "peak_tflops", "batch", "params_b", "active_params_b",
            "bits_per_weight", "weight_bytes", "active_bytes", "speculative", "tokens_per_step",
        )  # fmt: skip
        out: list[tuple[str, Input[Any]]] = []
        for n in names:
            v = getattr(self, n)
            if v is not None:
                out.append((n, v))
        return tuple(out)
