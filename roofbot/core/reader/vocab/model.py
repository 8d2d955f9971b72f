"""What the model is: its size and active share, its format and bits, the bytes its weights
take, and the precision its matrix math runs in."""

from __future__ import annotations

import re
from typing import Any

from roofbot.core.reader.quantity import AMOUNT, amount
from roofbot.core.reader.rule import Kind, Rule, const, rx

PRECISION_WORDS = {
    "nvfp4": "fp4", "mxfp4": "fp4", "fp4": "fp4", "fp6": "fp6", "fp8": "fp8", "e4m3": "fp8",
    "e5m2": "fp8", "bf16": "bf16", "bfloat16": "bf16", "fp16": "fp16", "float16": "fp16",
    "half": "fp16", "f16": "fp16", "f32": "fp32", "fp32": "fp32", "float32": "fp32", "int8": "int8", "int4": "int4",
    "w8a8": "int8", "w8a16": "fp16", "w4a16": "fp16", "w4a8": "fp8", "w4a4": "fp4",
}  # fmt: skip
"""Precision words as the text spells them -> the catalogue's `flops.precision` names."""

WEIGHT_ONLY = frozenset({"w8a16", "w4a16"})
"""Words that name a weight width but compute in 16-bit floating point."""

PRECISION_RULE: Rule[str] = Rule(
    "precision-word",
    Kind.PRECISION,
    rx(
        r"(?<![a-z0-9])w?(nvfp4|mxfp4|fp4|fp6|fp8|e4m3|e5m2|bf16|bfloat16|fp16|f16|float16|fp32|f32|int8|"
        r"int4|w8a8|w8a16|w4a16|w4a8|w4a4)(?![a-z0-9])"
    ),
    lambda m: next(g for g in m.groups() if g).lower(),
    (
        ("MPT-7B (FP16)", "fp16"),
        ("Llama 2 70B (MLPerf v6.1 submission, FP4 weights)", "fp4"),
        ("nvidia/Llama-3.1-8B-Instruct-FP8", "fp8"),
        ("Qwen3.5-397B-A17B-NVFP4", "nvfp4"),
        ("Llama 3.3 70B Instruct, bfloat16 weights", "bfloat16"),
        ("Llama 2 70B WMXFP4 on 8xMI355X", "mxfp4"),
        ("LLaMA-2-7B F16, 12.55 GiB", "f16"),
    ),
    (
        "gfx1100",
        "HBM3e 288GB",
        "never names the served numeric format - not FP8, not INT8",
        "no explicit fp8/w8a8 flag",
        "FP8 KV cache, UINT8 scales",
    ),
)

GGUF_TYPE_RULE: Rule[str] = Rule(
    "gguf-type",
    Kind.GGUF_TYPE,
    rx(r"(q(?<![\w-]q)[1-8]_(?:k_[sml]|k|[01])|iq(?<![\w-]iq)[1-4]_(?:xxs|xs|s|m|nl))(?![\w])"),
    lambda m: m[1].upper(),
    (("Llama 3.2 3B (Q4_K_M)", "Q4_K_M"), ("Q8_0 quantization, 24GB VRAM", "Q8_0")),
    ("Qwen3.8-27B (Q4_K_XL, 17.545 GB)", "gguf-q4-k-m"),
)
"""A GGUF quantization type by its llama.cpp name; its bits come from the catalogue."""

BITS_RULE: Rule[float] = Rule(
    "n-bit",
    Kind.BITS,
    rx(
        r"(?=\d)(?<![\w.])(\d+(?:\.\d+)?)(?:[- ]?bit\b(?![- ]?(?:memory|bus|interface))"
        r"|\s?(?:bpw|bits per weight)\b)"
    ),
    lambda m: float(m[1]),
    (
        ("MLX-LM Metal backend, batch size 1, 512 token prompt, 4-bit quantization", 4.0),
        ("Qwen3-30B-A3B-Instruct-2507 (MLX 4-bit, mlx-community repo)", 4.0),
        ("exllamav2 EXL2 at 4.65 bpw", 4.65),
        ("quantized to 6.0 bits per weight", 6.0),
    ),
    ("8192-bit memory interface", "256-bit bus"),
)

PARAMS_RULE: Rule[tuple[float, float | None]] = Rule(
    "params-in-name",
    Kind.PARAMS,
    re.compile(
        r"(?=\d)(?<![\w.])(\d+(?:\.\d+)?)\s?([BT])(?:\s*total)?"
        r"(?:\s*(?:-|/|,)\s*A?(\d+(?:\.\d+)?)\s?B(?:\s*active)?)?(?!\w|\.\d|\s+active)"
    ),
    lambda m: (float(m[1]) * (1000.0 if m[2] == "T" else 1.0), float(m[3]) if m[3] else None),
    (
        ("Llama 3.3 70B", (70.0, None)),
        ("Qwen3-30B-A3B-Instruct-2507 (MLX 4-bit)", (30.0, 3.0)),
        ("Qwen3.5-397B-A17B-NVFP4", (397.0, 17.0)),
        ("Qwen3.8-2.4T-A95B-NVFP4", (2400.0, 95.0)),
        ("command-a-plus (218B total / 25B active MoE, NVFP4 experts)", (218.0, 25.0)),
        ("Qwen3-0.6B.w8a8", (0.6, None)),
    ),
    ("RTX PRO 6000 Blackwell (96GB)", "16GB VRAM", "1.04211e+06", "(MoE, 3B active)"),
    cased=True,  # "70B", "2.4T": a size's capital letter, never "100 t/s"
)

ACTIVE_RULE: Rule[float] = Rule(
    "active-params",
    Kind.ACTIVE,
    rx(r"(?=\d)(?<![\w.])(\d+(?:\.\d+)?)\s?b\s+active\b|\ba(\d+(?:\.\d+)?)b\b"),
    lambda m: float(m[1] or m[2]),
    (("Qwen3.5 35B-A3B (MoE, 3B active)", 3.0), ("Qwen3-30B-A3B", 3.0)),
    ("MPT-7B (FP16)",),
)

MOE_RULE: Rule[str] = Rule(
    "moe-word",
    Kind.MOE,
    rx(
        r"moe\b|mixture[- ]of[- ]experts\b|experts?\b|expert[- ]parallel\w*|ep(?<![\w-]ep)\s?=\s?\d+"
    ),
    const("moe"),
    (
        ("gpt-oss-120b MXFP4 MoE (59.02 GiB)", "moe"),
        ("DeepSeek-V3 (671B MoE, FP8)", "moe"),
        ("production configuration, TP=8/EP=8 across 8x RTX PRO 6000", "moe"),
    ),
    ("Llama 3.3 70B",),
)

_NOT_APPROX = r"(?=\d)(?<![\w.~])(?<![~≈])(?<!about )(?<!approx\. )(?<!around )(?<!roughly )(?<!up to )(?<!~ )"
_SIZE = r"(?<![\w.~])" + AMOUNT + r"\s?(gib|gb|tib|tb)\b(?!/s)"
"""A size: a number by the quantity grammar, then its unit."""


def _size(m: re.Match[str]) -> tuple[float, str]:
    """The size as written; of a range, the lower end (fewer bytes: the lenient reading)."""
    return (amount(m[1])[0], _UNITS[m[2]])


_UNITS = {"gib": "GiB", "gb": "GB", "tib": "TiB", "tb": "TB"}
"""A size's unit, read lower-cased, as it is written."""

_NOT_WEIGHT_SIZE = (
    "A 70B model at 4-bit requires ~35GB of weights",
    "A 70B model at Q8_0 requires ~70GB of VRAM",
    "Peak memory 18.20 GB",
    "20.5 GB model footprint",
    "96GB GDDR7 at 1792 GB/s",
    "requires about 35GB of weights",
)

WEIGHT_SIZE_RULES: tuple[Rule[tuple[float, str]], ...] = (
    Rule(
        "size-in-model-name",
        Kind.WEIGHT_SIZE,
        re.compile(r"\((?:[^()]*?,\s*)?" + _NOT_APPROX + _SIZE + r"\s*\)"),
        _size,
        (
            ("Bonsai-27B (Q1_0, 3.53 GiB)", (3.53, "GiB")),
            ("gpt-oss-120b MXFP4 MoE (59.02 GiB)", (59.02, "GiB")),
            ("Qwen3.8-27B (Q4_K_XL, 17.545 GB)", (17.545, "GB")),
            ("DeepSeek-V3 671B (Q4_K_M, 376.65 GiB)", (376.65, "GiB")),
        ),
        ("MPT-7B (FP16)", "Llama 3.3 70B (~35GB)", "Qwen3-14B (4-bit, about 9 GB)"),
    ),
    Rule(
        "size-after-model-name",
        Kind.WEIGHT_SIZE,
        re.compile(r",\s*" + _NOT_APPROX + _SIZE + r"\s*(?=$|,|;)"),
        _size,
        (
            ("LLaMA-2-7B F16, 12.55 GiB", (12.55, "GiB")),
            ("Qwen2.5-32B Q4_K_M, 18.5 GB", (18.5, "GB")),
        ),
        ("Llama 3.3 70B, ~40 GB", "Llama 3.3 70B, 64 GB/s"),
    ),
    Rule(
        "llama-bench-row",
        Kind.WEIGHT_SIZE,
        re.compile(r"\|\s*" + _NOT_APPROX + _SIZE + r"\s*\|\s*\d+(?:\.\d+)?\s*b\s*\|"),
        _size,
        (
            (
                "| llama 7B Q4_0 | 3.56 GiB | 6.74 B | CUDA | 99 | tg128 | 123.45 ± 0.50 |",
                (3.56, "GiB"),
            ),
        ),
        ("| model | size | params | backend |", "| 24 GB | RTX 4090 |"),
    ),
    Rule(
        "size-of-weights",
        Kind.WEIGHT_SIZE,
        re.compile(_NOT_APPROX + _SIZE + r"\s+of\s+(?:fp16\s+|bf16\s+)?weights\b"),
        _size,
        (("MPT-7B in FP16 is 14 GB of weights", (14.0, "GB")),),
        _NOT_WEIGHT_SIZE,
    ),
    Rule(
        "weights-are-size",
        Kind.WEIGHT_SIZE,
        re.compile(
            r"(?:weight(?<!\wweight)s?\s*(?:are|is|of|=|:)?|model size|file size|gguf size)"
            r"\s*(?:of|=|:|is)?\s*" + _NOT_APPROX + _SIZE
        ),
        _size,
        (
            ("model size 17.545 GB on disk", (17.545, "GB")),
            ("weights: 3.53 GiB", (3.53, "GiB")),
            ("Llama 2 70B, weights 140 GB in BF16", (140.0, "GB")),
            ("model size 1,024 GB on disk", (1024.0, "GB")),
        ),
        _NOT_WEIGHT_SIZE,
    ),
)
"""A size stated as the weights' own: never an approximation, a footprint or VRAM."""

WEIGHT_BOUND_RULE: Rule[tuple[float, str]] = Rule(
    "memory-footprint-bound",
    Kind.WEIGHT_BOUND,
    rx(
        r"(?=\d)(?<![\w.~])(\d+(?:\.\d+)?)\s?(gib|gb)\s+(?:model\s+)?footprint\b"
        r"|peak memory\s*(?:of|=|:)?\s*(\d+(?:\.\d+)?)\s?(gib|gb)\b"
    ),
    lambda m: (float(m[1] or m[3]), _UNITS[m[2] or m[4]]),
    (
        ("100% of model layers offloaded. 20.5 GB model footprint.", (20.5, "GB")),
        ("Peak memory 18.20 GB.", (18.2, "GB")),
    ),
    ("A 70B model at 4-bit requires ~35GB of weights", "96GB GDDR7 at 1792 GB/s"),
)
"""A measured footprint holds the weights and more: an upper bound on the weight bytes."""

MODEL_RULES: tuple[Rule[Any], ...] = (
    PRECISION_RULE, GGUF_TYPE_RULE, BITS_RULE, PARAMS_RULE, ACTIVE_RULE, MOE_RULE,
    *WEIGHT_SIZE_RULES, WEIGHT_BOUND_RULE,
)  # fmt: skip
