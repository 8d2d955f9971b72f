"""What the figure is: the decode batch it ran at, whether it is summed over sequences, whether
it was produced with speculative decoding, and whether it is a measurement at all."""

from __future__ import annotations

from typing import Any

from roofbot.core.reader.rule import UNKNOWN, Kind, Rule, const, integer, rx

BATCH_RULES: tuple[Rule[int], ...] = (
    Rule(
        "batch-size-n",
        Kind.BATCH,
        rx(r"batch(?<!\wbatch)[ _-]?size\s*(?:of|=|:)?\s*(\d+)\b"),
        integer(),
        (
            ("Databricks Table 2, MPT-7B row '1 x A100', batch size 64 column", 64),
            ("llama.cpp CUDA backend, batch size 1, 512 token prompt", 1),
            ("PP4 TP8 vs TP8, batch size 1", 1),
            ("Batch size 128, concurrency 128 in-flight requests.", 128),
        ),
        (
            "llama-bench, -p 16384 -n 8192 -b 2048 -ub 1024 -ngl 99",
            "batch size not a fixed published number (closed-loop Offline queue)",
        ),
    ),
    Rule(
        "batch-n",
        Kind.BATCH,
        rx(r"batch(?<![\w-]batch)(?: of)?[ -](\d+)\b(?![ -]to\b)"),
        integer(),
        (
            ("PER-REQUEST decode throughput at batch 1: -p 0 (no prompt) -n 64", 1),
            ("tok/s (batch-1 tensor-split decode across 2 cards)", 1),
            ("a batch of 16 requests", 16),
        ),
        ("raises aggregate throughput 13.9x from batch 1 to 64",),
    ),
    Rule(
        "bs-n",
        Kind.BATCH,
        rx(r"bs(?<![\w-]bs)\s*[=:]?\s*(\d+)\b"),
        integer(),
        (("vLLM serve, bs=1, greedy", 1), ("trtllm-bench BS=128 ISL 1024", 128), ("BS 16", 16)),
        ("same run as mpt7b-a100-bs64-per-user-decode-tps",),
    ),
    Rule(
        "b-equals",
        Kind.BATCH,
        rx(r"b(?<![\w-]b)\s*=\s*(\d+)\b", 0),
        integer(),
        (("tok/s (saturated prefill, 128K context, B=3, cold cache)", 3),),
        ("mean 29.402 -> 61.657 t/s", "-b 2048 -ub 1024"),
    ),
    Rule(
        "concurrency-n",
        Kind.BATCH,
        rx(r"concurrency(?<!\wconcurrency)\s*(?:of|=|:)?\s*(\d+)\b|--max-concurrency[= ](\d+)\b"),
        lambda m: int(m[1] or m[2]),
        (("vllm bench serve, concurrency 64, random dataset", 64),),
        (
            "OMITTED BY SOURCE: TP size, KV-cache dtype, concurrency, clock state.",
            "Concurrency NOT stated - the setup targets saturated decode nodes.",
        ),
    ),
    Rule(
        "n-concurrent",
        Kind.BATCH,
        rx(
            r"(?=\d)(?<![\w.])(\d+)\s+(?:concurrent|simultaneous|in-flight|parallel)\b(?!\s+tokens)"
        ),
        integer(),
        (
            ("output tokens/s aggregate across all in-flight requests (64 concurrent)", 64),
            ("source states '~7,000 TPS' peak at 500 concurrent users", 500),
        ),
        ("a 2048-token prompt, 128 tokens generated",),
    ),
    Rule(
        "single-stream",
        Kind.BATCH,
        rx(
            r"single(?<!\wsingle)[- ](?:stream|user|request|sequence)\b"
            r"|one(?<!\wone) (?:user|request) at a time\b|no(?<!\wno) batching\b|unbatched\b"
        ),
        const(1),
        (
            ("tok/s decode, single stream (one user at a time)", 1),
            ("Single machine, single user, no batching.", 1),
            ("one request at a time", 1),
        ),
        ("SINGLE REPORTER, PARTIALLY SPECIFIED.",),
    ),
    Rule(
        "llama-bench-tg",
        Kind.BATCH,
        rx(r"tg(?<![\w-]tg)(\d+)\b"),
        const(1),
        (
            ("tok/s (tg64, mean of two interleaved runs: 61.97 and 61.34)", 1),
            ("Decode figure is tg8192 = 8192 generated tokens", 1),
        ),
        ("pp512, aggregate prompt processing",),
    ),
    Rule(
        "not-fixed",
        Kind.BATCH,
        rx(
            r"batch size not a fixed (?:published )?number|not(?<!\wnot) a fixed published number"
            r"|max(?<!\wmax)(?:imum)? load\b|submitter-chosen scheduler batching\b"
        ),
        const(UNKNOWN),
        (
            ("LOADS: batch size not a fixed published number (closed-loop Offline queue)", UNKNOWN),
            ("throughput measured at max load", UNKNOWN),
        ),
        ("Offline: Llama 2 70B on AMD's own node",),
    ),
    Rule(
        "mlperf-scenario",
        Kind.BATCH,
        rx(r"(?:offline|server|interactive) scenario\b"),
        const(UNKNOWN),
        (("Datacenter suite, Offline scenario, submitted by AMD", UNKNOWN),),
        ("Offline: Llama 2 70B on AMD's own node",),
        weak=True,
    ),
)

AGGREGATE_RULE: Rule[str] = Rule(
    "aggregate-words",
    Kind.AGGREGATE,
    rx(
        r"aggregate(?<!\waggregate)\b|total(?<!\wtotal) (?:token |output )?throughput\b|summed over\b"
        r"|across(?<!\wacross) (?:all )?(?:in-flight |concurrent )?requests\b"
    ),
    const("aggregate"),
    (
        (
            "decode tokens/s per GPU (aggregate decode throughput per GPU across the rack)",
            "aggregate",
        ),
        ("tok/s (total token throughput)", "aggregate"),
    ),
    (
        "tok/s (tg64, mean of two interleaved runs: 61.97 and 61.34)",
        "whether the figures are per-request or aggregate are NOT stated",
    ),
)

PER_SEQUENCE_RULE: Rule[str] = Rule(
    "per-user-words",
    Kind.PER_SEQUENCE,
    rx(
        r"per(?<!\wper)[- ](?:user|request|sequence|stream)\b|single(?<!\wsingle)[- ](?:stream|user)\b"
        r"|one(?<!\wone) user\b"
    ),
    const("per-sequence"),
    (
        ("PER-REQUEST decode throughput, batch 1, single stream", "per-sequence"),
        ("generated tokens/s per user", "per-sequence"),
    ),
    (
        "aggregate across all in-flight requests",
        "summed across concurrent requests, not per-request.",
        "whether the figures are per-request or aggregate are NOT stated",
    ),
)

NO_FIGURE_RULE: Rule[str] = Rule(
    "no-figure",
    Kind.NO_FIGURE,
    rx(
        r"not(?<!\wnot) published\b|no(?<!\wno) (?:throughput )?figure (?:is )?published\b"
        r"|unpublished\b"
    ),
    const("not published"),
    (
        ("tokens per second (not published)", "not published"),
        ("N/A (no throughput figure published)", "not published"),
    ),
    ("output tokens/s (aggregate, harness 'Tokens per second')",),
)
"""A zero that stands for "no figure": the record carries no measurement to check."""

SPECULATIVE_RULE: Rule[str] = Rule(
    "speculative",
    Kind.SPECULATIVE,
    rx(
        r"speculative\b|spec(?:ulation)?[- ]decod\w*|mtp\b(?<![\w-]mtp)|eagle(?:[- ]?\d)?\b"
        r"|medusa\b|draft model\b|dspark\b|lookahead decoding\b"
        r"|prompt[- ]lookup(?: decoding)?\b|n-?gram (?:speculation|decoding|drafting)\b"
        r"|multi-token prediction\b"
    ),
    lambda m: m[0],
    (
        ("Qwen3-8B Q4_K_M + Qwen3-0.6B Q8_0 draft model", "draft model"),
        ("tok/s decode, single stream, DSPARK block_size=2", "dspark"),
        ("EAGLE-3 speculative decoding", "eagle-3"),
        ("vLLM with prompt lookup decoding", "prompt lookup decoding"),
        ("--speculative-config ngram, n-gram speculation", "n-gram speculation"),
    ),
    (
        "sampling overhead",
        "MTPU board",
        "Multi-token prediction (MTP) was NOT enabled for this run",
        "Multi-Token Prediction: two-batch overlap is used instead.",
    ),
)

TOKENS_PER_STEP_RULE: Rule[float] = Rule(
    "tokens-per-step",
    Kind.TOKENS_PER_STEP,
    rx(r"(\d+(?:\.\d+)?)\s*(?:accepted tokens per (?:step|forward pass)|tokens per step)\b"),
    lambda m: float(m[1]),
    (("3.1 accepted tokens per step", 3.1),),
    ("128 tokens generated after a 2048-token prompt",),
)
ACCEPTANCE_RULE: Rule[float] = Rule(
    "acceptance-length",
    Kind.TOKENS_PER_STEP,
    rx(r"acceptance length\s*(?:of|=|:)?\s*(\d+(?:\.\d+)?)"),
    lambda m: float(m[1]),
    (("mean acceptance length 2.4 on prose", 2.4),),
    ("acceptance rate 0.7 on prose",),
)
"""Speculative decoding's tokens per target-model step, as its acceptance length."""

_FROM_BANDWIDTH = r"from\s+(?:the\s+)?(?:memory\s+)?bandwidth\b"

DERIVED_RULE: Rule[str] = Rule(
    "derived-from-bandwidth",
    Kind.DERIVED,
    rx(
        r"bandwidth\s+(?:yields|gives|implies|predicts|means)\s+(?:~|about |around |roughly )?(?=\d)"
        rf"|derived\s+{_FROM_BANDWIDTH}|computed\s+{_FROM_BANDWIDTH}"
        rf"|calculated\s+{_FROM_BANDWIDTH}|estimated\s+{_FROM_BANDWIDTH}"
        r"|bandwidth\s*/\s*(?:model|weight)\s*(?:size|bytes)\b"
        r"|divid(?:e|ed|ing)\s+(?:the\s+)?(?:memory\s+)?bandwidth\s+by\b"
    ),
    lambda m: " ".join(m[0].split()).rstrip(" ~"),
    (
        ("The 546 GB/s bandwidth yields ~18 tokens/sec for decode.", "bandwidth yields"),
        ("tok/s estimated from memory bandwidth and model size", "estimated from memory bandwidth"),
        ("dividing bandwidth by a guessed bytes-per-token", "dividing bandwidth by"),
    ),
    (
        "Projections in the issue are explicitly labelled projections from measured bandwidths",
        "the pair moves 825.7 GB/s = 43.0% of their combined 1920 GB/s DRAM peak",
        "The 1792 GB/s bandwidth yields high decode throughput for 13B models.",
    ),
)

RATE_RULES: tuple[Rule[Any], ...] = (
    *BATCH_RULES, AGGREGATE_RULE, PER_SEQUENCE_RULE, NO_FIGURE_RULE, SPECULATIVE_RULE,
    TOKENS_PER_STEP_RULE, ACCEPTANCE_RULE, DERIVED_RULE,
)  # fmt: skip
