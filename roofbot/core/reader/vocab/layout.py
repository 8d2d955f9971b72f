"""A parallel layout in shorthand and words: "TP8PP2", "DP2 x TP4", "TP=8/EP=8", "4-way tensor
parallel", "pipeline-parallel size 2". Engine flags are in `flags`."""

from __future__ import annotations

import re

from roofbot.core.reader.rule import Kind, Rule, rx

_AFTER = r"(?![\d.])(?!(?!tp|pp|dp|ep|x\b)[a-z])"
"""After a degree's number: another degree may follow at once ("TP8PP2"), a word may not."""


def _short(d: str) -> str:
    return rf"{d}(?<![a-z_-]{d})(?:_size)?\s*[=:]?\s*(\d{{1,2}}){_AFTER}"


def _words(word: str) -> str:
    return (
        rf"(?=\d)(?<![\w.])(\d+)-way {word}[- ]parallel"
        rf"|{word}(?<!\w{word})[- ]parallel(?:ism)?[- ](?:size|degree)\s*(?:of|=|:)?\s*(\d+)\b"
    )


def _first(m: re.Match[str]) -> int:
    return int(next(g for g in m.groups() if g))


LAYOUT_RULES: tuple[Rule[int], ...] = (
    Rule(
        "tensor-degree",
        Kind.TENSOR_DEGREE,
        rx(_short("tp") + "|" + _words("tensor")),
        _first,
        (
            ("TensorRT-LLM, TP8PP2, FP8", 8),
            ("DP2 x TP4 on 8 GPUs", 4),
            ("8x RTX PRO 6000, TP=8/EP=8", 8),
            ("4-way tensor parallel over NVLink", 4),
            ("Tensor-parallel size 2 (the serving server spans TP=2)", 2),
        ),
        ("perplexity-llama2-70b-h100-fp8-tp2-bs128", "MTP2 heads", "http2"),
    ),
    Rule(
        "pipeline-degree",
        Kind.PIPELINE_DEGREE,
        rx(_short("pp") + "|" + _words("pipeline")),
        _first,
        (
            ("TensorRT-LLM, TP8PP2, FP8", 2),
            ("PP4 TP8, batch size 1", 4),
            ("bfloat16 weights, tensor-parallel size 4, pipeline-parallel size 1", 1),
        ),
        ("pp512 = 1460 t/s, tg128 = 61.9 t/s", "app2", "llama-bench pp 512, tg 128"),
    ),
    Rule(
        "data-degree",
        Kind.DATA_DEGREE,
        rx(_short("dp") + "|" + _words("data")),
        _first,
        (("DP2 x TP4 on 8 GPUs", 2), ("2-way data parallel, TP4", 2)),
        ("dp-attention", "1080p2"),
    ),
    Rule(
        "expert-degree",
        Kind.EXPERT_DEGREE,
        rx(_short("ep") + "|" + _words("expert")),
        _first,
        (("8x RTX PRO 6000, TP=8/EP=8", 8), ("8-way expert parallel", 8)),
        ("step 2 of 3", "rep3"),
    ),
)
"""Each degree where the text gives it in shorthand or words."""
