"""Extraction rules, as data. Each rule is a named pattern with the real phrasings (taken from
the users' records) it must read, and the ones it must leave alone. tests/test_rules.py runs
every example of every rule, so a rule and its evidence can't drift apart."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)

UNKNOWN = -1
"""A batch rule's value for text that says the batch is not one fixed number."""


@dataclass(frozen=True)
class Rule(Generic[T_co]):
    """A named pattern. `read` turns a match into the value; `examples` pair a real phrase
    with the value it must give; `rejects` are real phrases it must not match at all.
    `needles` are lower-case words one of which every match contains: text without any of
    them is skipped without running the pattern (the sweep's hot path); where every match
    also holds one of a second set of words, `also` names them and both must be present."""

    name: str
    pattern: re.Pattern[str]
    read: Callable[[re.Match[str]], T_co]
    examples: tuple[tuple[str, T_co], ...]
    rejects: tuple[str, ...] = ()
    needles: tuple[str, ...] = ()
    also: tuple[str, ...] = ()
    ascii: re.Pattern[str] | None = field(init=False, repr=False, compare=False, default=None)
    """The pattern compiled ASCII-only, once `ascii_pattern` has been asked for it."""
    words: tuple[str, ...] = field(init=False, repr=False, compare=False)
    families: tuple[tuple[Search, int], ...] = field(init=False, repr=False, compare=False)
    """The needles as `extract.find` tests them: `words` one by one, and each family (as
    `tp0` ... `tp9`, see `_families`) as one search that skips along to its letter; over every
    rule and field of the real corpus the tests take 1.5-2.2x less (`bench/bench_parts.py`)."""

    def __post_init__(self) -> None:
        words, families = _families(self.needles)
        object.__setattr__(self, "words", words)
        object.__setattr__(self, "families", families)

    def ascii_pattern(self) -> re.Pattern[str]:
        """The pattern compiled ASCII-only, which `find` runs on plain texts (`extract.plain`);
        compiled on first use, so a process that reads no text does not pay for it, and kept
        in `ascii`, a field from the start: an attribute added to an instance later (as
        `functools.cached_property` adds one) unshares its attribute keys, and every other
        attribute read of the rule got slower (check_record: 1.04x the instructions)."""
        pattern = self.ascii
        if pattern is None:
            flags = (self.pattern.flags & ~re.UNICODE) | re.ASCII
            pattern = re.compile(self.pattern.pattern, flags)
            object.__setattr__(self, "ascii", pattern)
        return pattern

    def may_match(self, folded: str) -> bool:
        """False only when no match is possible: `folded` is the text, case-folded. (The
        spec of the skip: `extract.find` writes the same test out inline, for speed, and
        tests/test_rules.py holds both to the patterns.)"""
        return (not self.needles or any(n in folded for n in self.needles)) and (
            not self.also or any(n in folded for n in self.also)
        )


Search = Callable[[str, int], "re.Match[str] | None"]
"""A compiled pattern's `search`: `(text, start) -> match`."""


def _families(needles: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[tuple[Search, int], ...]]:
    """Split needles into single words and families, each family a pattern's `search` and
    how far before its match the needle starts. Two shapes: three or more needles with one
    first letter (`tp0` ... `tp9`, `per gpu` ... `per-chip`: their alternation, longest
    first), and the ten needles of a digit then one word (`0x` ... `9x`: the word, then a
    look back for the digit). Each pattern opens with a letter the engine skips along to; one
    that opened with a digit class would be tried at every character."""
    digit_then: defaultdict[str, list[str]] = defaultdict(list)
    for n in needles:
        if n[0] in "0123456789" and len(n) > 1:
            digit_then[n[1:]].append(n)
    after_digit = [w for w, g in digit_then.items() if len(g) == 10]
    grouped = {d + w for w in after_digit for d in "0123456789"}
    by_first: defaultdict[str, list[str]] = defaultdict(list)
    for n in needles:
        if n not in grouped:
            by_first[n[0]].append(n)
    groups = [g for c, g in by_first.items() if len(g) >= 3 and not c.isdigit()]
    grouped |= {n for g in groups for n in g}
    families = tuple(
        (re.compile("|".join(re.escape(n) for n in sorted(g, key=len, reverse=True))).search, 0)
        for g in groups
    ) + tuple(
        (re.compile(f"{re.escape(w)}(?<=[0-9]{re.escape(w)})").search, 1) for w in after_digit
    )
    return tuple(n for n in needles if n not in grouped), families


def _int(group: int = 1) -> Callable[[re.Match[str]], int]:
    return lambda m: int(m[group])


def _const(value: T) -> Callable[[re.Match[str]], T]:
    return lambda m: value


def _digit_after(*prefixes: str) -> tuple[str, ...]:
    """Needles for "a word then a digit": ("tp",) -> "tp0" ... "tp9"; longer prefixes kept."""
    first, *rest = prefixes
    return (*(f"{first}{d}" for d in "0123456789"), *rest)


def _digit_before(suffix: str) -> tuple[str, ...]:
    """Needles for "a digit then a word": ("x",) -> "0x" ... "9x"."""
    return tuple(f"{d}{suffix}" for d in "0123456789")


def _re(pattern: str, flags: int = re.IGNORECASE) -> re.Pattern[str]:
    """The pattern as written, compiled literal first (see `_literal_first`)."""
    return re.compile(_literal_first(pattern), flags)


_DIGITS_START = re.compile(r"\(\?=\\d\)\(\?<!(\[[^\]]*\])\)\(\\d\+")
_WORD_START = re.compile(r"(?<!\\)\\b([A-Za-z][A-Za-z0-9]*)(?![A-Za-z0-9?*+{])")
_NOT_AFTER = re.compile(r"\(\?<!(\[[^\]]*\])\)(-?[A-Za-z][A-Za-z0-9]*)(?![A-Za-z0-9?*+{])")


def _literal_first(pattern: str) -> str:
    """`\\btensor` -> `tensor(?<!\\wtensor)` and `(?<![\\w-])-sm` -> `-sm(?<![\\w-]-sm)`: the
    same reading ("tensor, not after a word character"), checked after the word instead of
    before it; a number that starts no word, `(?=\\d)(?<![\\w.])(\\d+`, likewise becomes
    `(\\d(?<![\\w.]\\d)\\d*`. A pattern or alternative that opens with an assertion has it
    tried at every character; one that opens with its literal or a digit fails at once
    elsewhere (the tensor rule stepped 2.5x faster). Only a run of plain letters and digits
    that no quantifier follows is moved, so the two forms match exactly the same text
    (tests/test_rules.py holds every rule to the form it is written in)."""
    pattern = _DIGITS_START.sub(lambda m: f"(\\d(?<!{m[1]}\\d)\\d*", pattern)
    pattern = _NOT_AFTER.sub(lambda m: f"{m[2]}(?<!{m[1]}{m[2]})", pattern)
    return _WORD_START.sub(lambda m: f"{m[1]}(?<!\\w{m[1]})", pattern)


# ---------------------------------------------------------------- batch (decode sequences)
BATCH_RULES: tuple[Rule[int], ...] = (
    Rule(
        "batch-size-n",
        _re(r"\bbatch[ _-]?size\s*(?:of|=|:)?\s*(\d+)\b"),
        _int(),
        (
            ("Databricks Table 2, MPT-7B row '1 x A100', batch size 64 column", 64),
            ("llama.cpp CUDA backend, batch size 1, 512 token prompt", 1),
            ("PP4 TP8 vs TP8, batch size 1", 1),
        ),
        rejects=(
            "llama-bench, -p 16384 -n 8192 -b 2048 -ub 1024 -ngl 99",
            "batch size not a fixed published number (closed-loop Offline queue)",
        ),
        needles=("batch",),
    ),
    Rule(
        "batch-n",
        _re(r"(?<![\w-])batch[ -](\d+)\b(?![ -]to\b)"),
        _int(),
        (
            ("PER-REQUEST decode throughput at batch 1: -p 0 (no prompt) -n 64", 1),
            ("tok/s (batch-1 tensor-split decode across 2 cards)", 1),
            ("tok/s (tg256, per-request, batch 1, all layers on GPU)", 1),
        ),
        rejects=("raises aggregate throughput 13.9x from batch 1 to 64",),
        needles=("batch",),
    ),
    Rule(
        "bs-equals",
        _re(r"(?<![\w-])bs\s*[=:]\s*(\d+)\b"),
        _int(),
        (("vLLM serve, bs=1, greedy", 1), ("trtllm-bench BS=128 ISL 1024", 128)),
        rejects=("same run as mpt7b-a100-bs64-per-user-decode-tps",),
        needles=("bs=", "bs =", "bs:", "bs :"),
    ),
    Rule(
        "b-equals",
        _re(r"(?<![\w-])B\s*=\s*(\d+)\b", 0),
        _int(),
        (("tok/s (saturated prefill, 128K context, B=3, cold cache)", 3),),
        rejects=("mean 29.402 -> 61.657 t/s", "-b 2048 -ub 1024"),
        needles=("b=", "b ="),
    ),
    Rule(
        "concurrency-n",
        _re(r"\bconcurrency\s*(?:of|=|:)?\s*(\d+)\b"),
        _int(),
        (("vllm bench serve, concurrency 64, random dataset", 64),),
        rejects=("OMITTED BY SOURCE: TP size, KV-cache dtype, concurrency, clock state.",),
        needles=("concurrency",),
    ),
    Rule(
        "n-concurrent",
        _re(r"(?=\d)(?<![\w.])(\d+)\s+(?:concurrent|simultaneous|in-flight)\b"),
        _int(),
        (
            ("output tokens/s aggregate across all in-flight requests (64 concurrent)", 64),
            ("source states '~7,000 TPS' peak at 500 concurrent users", 500),
        ),
        rejects=("a 2048-token prompt, 128 tokens generated",),
        needles=("concurrent", "simultaneous", "in-flight"),
    ),
    Rule(
        "single-stream",
        _re(
            r"\bsingle[- ](?:stream|user|request|sequence)\b|\bone user at a time\b|\bno batching\b"
        ),
        _const(1),
        (
            ("tok/s decode, single stream (one user at a time)", 1),
            ("Single machine, single user, no batching.", 1),
        ),
        rejects=("SINGLE REPORTER, PARTIALLY SPECIFIED.",),
        needles=("single", "one user", "no batching"),
    ),
    Rule(
        "llama-bench-tg",
        _re(r"(?<![\w-])tg(\d+)\b"),
        _const(1),
        (
            ("tok/s (tg64, mean of two interleaved runs: 61.97 and 61.34)", 1),
            ("Decode figure is tg8192 = 8192 generated tokens", 1),
        ),
        rejects=("pp512, aggregate prompt processing",),
        needles=("tg",),
    ),
    Rule(
        "not-fixed",
        _re(
            r"batch size not a fixed (?:published )?number|\bnot a fixed published number"
            r"|\b(?:Offline|Server|Interactive) scenario\b|\bmax(?:imum)? load\b"
            r"|\bsubmitter-chosen scheduler batching\b"
        ),
        _const(UNKNOWN),
        (
            ("LOADS: batch size not a fixed published number (closed-loop Offline queue)", UNKNOWN),
            ("Datacenter suite, Offline scenario, submitted by AMD", UNKNOWN),
            ("throughput measured at max load", UNKNOWN),
        ),
        rejects=("Offline: Llama 2 70B on AMD's own node",),
        needles=("not a fixed", "scenario", "max load", "maximum load", "scheduler batching"),
    ),
)

# ---------------------------------------------------------------- accelerator count
_HW_WORD = r"(?:GPUs?|cards?|accelerators?|devices?|chips?|dies|MI\d+\w*|H\d00|B\d00)"

COUNT_RULES: tuple[Rule[int], ...] = (
    Rule(
        "n-x-part",
        _re(r"(?=\d)(?<![\w.-])(\d+)\s?[x×]\s?(?=(?:[A-Z]|GPU|MI\d))", 0),
        _int(),
        (
            ("Tensor-split across 2x RX 7900 XTX under ROCm on gfx1100", 2),
            ("Hardware: 1x NVIDIA A100 40GB.", 1),
            ("1 node, 8x AMD Instinct MI355X 288GB HBM3e", 8),
            ("AMD 8xMI355X, MLPerf Inference v6.1 Offline", 8),
        ),
        rejects=(
            "~26% faster than Ollama, and 8x faster than --enforce-eager",
            "adding a second card delivers only 1.31x throughput",
            "2 GPUs via HIP_VISIBLE_DEVICES=0,1 (2x32752 MiB, gfx906",
            "comm-mi50-2x-gpt-oss-120b-mxfp4-tensor-split-decode",
        ),
        needles=(*_digit_before("x"), *_digit_before(" x"), "×"),
    ),
    Rule(
        "x-n",
        _re(r"(?<=[A-Za-z0-9] )x(\d+)\b|(?<![\w-])x(\d+)\s+(?:GPUs?|cards?)\b", 0),
        lambda m: int(m[1] or m[2]),
        (("DGX H100 x8, TensorRT-LLM", 8),),
        rejects=("gfx906:sramecc+:xnack-", "gfx1100"),
        needles=_digit_after("x"),
    ),
    Rule(
        "n-gpus",
        _re(r"(?=\d)(?<![\w./])(\d+)[ -]?" + _HW_WORD + r"(?![\w-])"),
        _int(),
        (
            ("2 GPUs via HIP_VISIBLE_DEVICES=0,1", 2),
            ("output tokens/s (aggregate, 8 GPUs)", 8),
            ("decode tokens/s per 8-GPU node (aggregate)", 8),
            ("aggregate across all 72 GPUs", 72),
            ("tok/s (batch-1 tensor-split decode across 2 cards)", 2),
        ),
        rejects=(
            "16GB VRAM (e.g., RTX 5080, RTX 5070 Ti)",
            "8192 generated tokens",
            "-ngl 99",
            "setup: Apple M4 Pro 12C/16GPU MacBook Pro Mac16,8",
        ),
        needles=(
            "gpu",
            "card",
            "accelerator",
            "device",
            "chip",
            "dies",
            *_digit_after("mi"),
            "h100",
            "h200",
            "h800",
            "b100",
            "b200",
            "b300",
        ),
    ),
    Rule(
        "tp-n",
        re.compile(r"(?:(?<![\w-])|(?<=--))(?:TP|tp)\s*[=:]?\s*(\d+)\b"),
        _int(),
        (("TensorRT-LLM, TP8, FP8 KV cache", 8), ("--tp=2 on 2 GPUs", 2), ("TP=1", 1)),
        rejects=("perplexity-llama2-70b-h100-fp8-tp2-bs128-tps-per-gpu",),
        needles=_digit_after("tp", "tp=", "tp ", "tp:"),
    ),
    Rule(
        "nvl-n",
        _re(r"\bNVL(\d+)\b", 0),
        _int(),
        (("CoreWeave GB200 NVL72 rack", 72),),
        rejects=("NVIDIA H100 NVL",),
        needles=("nvl",),
    ),
    Rule(
        "visible-devices",
        re.compile(r"\b(?:HIP|CUDA|ROCR)_VISIBLE_DEVICES=((?:\d+,)*\d+)"),
        lambda m: len(m[1].split(",")),
        (("2 GPUs via HIP_VISIBLE_DEVICES=0,1 (2x32752 MiB", 2),),
        rejects=("scaled by HIP_VISIBLE_DEVICES.",),
        needles=("visible_devices",),
    ),
)

PER_DEVICE_RULE: Rule[int] = Rule(
    "per-device-unit",
    _re(
        r"\bper[- ](?:GPU|accelerator|device|card|chip)\b(?!\s*(?:power\s+)?(?:cap|limit|TDP|power))"
    ),
    _const(1),
    (
        ("output tokens/s per GPU (aggregate across concurrent requests)", 1),
        ("total tokens/s per GPU (aggregate across the rack)", 1),
    ),
    rejects=(
        "decode tokens/s per 8-GPU node (aggregate)",
        "output tokens/s (aggregate under a 1000W per-GPU cap; v6.0 result ID 6.0-0033)",
    ),
    needles=(
        "per gpu",
        "per accelerator",
        "per device",
        "per card",
        "per chip",
        "per-gpu",
        "per-accelerator",
        "per-device",
        "per-card",
        "per-chip",
    ),
)
"""A unit quoted per device means the roofs are one device's, whatever the text's count."""

ONE_DEVICE_MEMORY_RULE: Rule[float] = Rule(
    "device-memory",
    _re(
        r"(?=\d)(?<![\w.~])(\d+(?:\.\d+)?)\s?GB\s+(?:of\s+)?(?:VRAM|unified memory|HBM\w*|GDDR\w*)\b"
    ),
    lambda m: float(m[1]),
    (
        ("Q8_0 quantization, 96GB VRAM", 96.0),
        ("4-bit quantization, 128GB unified memory", 128.0),
        ("RTX 5090 with 32GB GDDR7 at 1792 GB/s", 32.0),
    ),
    rejects=("A 70B model at Q8_0 requires ~70GB of VRAM", "16 GB/s of HBM bandwidth"),
    needles=("vram", "unified memory", "hbm", "gddr"),
)
"""A device memory size stated in the text: when it is the resolved part's own memory, the
text describes one device (count 1, read rather than assumed)."""

# ---------------------------------------------------------------- parallelism
PARALLELISM_RULES: tuple[Rule[str], ...] = (
    Rule(
        "tensor",
        _re(
            r"(?<![\w-])-sm\s+tensor\b|\btensor[- ](?:parallel\w*|split)\b|(?<![\w-])TP\s*=?\s*\d+\b"
            r"|(?<![\w-])tp\s*=\s*\d+"
        ),
        _const("tensor"),
        (
            ("-fa 1 -o md -r 3 -sm tensor, 2 GPUs via HIP_VISIBLE_DEVICES=0,1", "tensor"),
            ("tok/s (batch-1 tensor-split decode across 2 cards)", "tensor"),
            ("TensorRT-LLM with TP8", "tensor"),
        ),
        rejects=("-tps N, PLE shard",),
        needles=("tensor", "-sm", *_digit_after("tp", "tp=", "tp ", "tp:")),
    ),
    Rule(
        "pipeline",
        _re(
            r"(?<![\w-])-sm\s+layer\b|\blayer[- ]split\b|\bpipeline[- ]parallel\w*|(?<![\w-])PP\s*=?\s*\d+\b"
        ),
        _const("pipeline"),
        (
            ("llama-server -sm layer across both cards", "pipeline"),
            ("pipeline parallelism over 4 nodes", "pipeline"),
            ("PP4 TP8 vs TP8, batch size 1", "pipeline"),
        ),
        rejects=("prefix-cache hit pipeline stage",),
        needles=("-sm", "layer", "pipeline", *_digit_after("pp", "pp=", "pp ", "pp:")),
    ),
)

# ---------------------------------------------------------------- rate kind
AGGREGATE_RULE: Rule[str] = Rule(
    "aggregate-words",
    _re(
        r"\baggregate\b|\btotal (?:token )?throughput\b|\bsummed over\b|\bacross (?:all )?(?:in-flight |concurrent )?requests\b"
    ),
    _const("aggregate"),
    (
        (
            "decode tokens/s per GPU (aggregate decode throughput per GPU across the rack)",
            "aggregate",
        ),
        ("tok/s (total token throughput)", "aggregate"),
    ),
    rejects=("tok/s (tg64, mean of two interleaved runs: 61.97 and 61.34)",),
    needles=("aggregate", "total", "summed", "across"),
)

PER_USER_RULE: Rule[str] = Rule(
    "per-user-words",
    _re(
        r"(?<!not )\bper[- ](?:user|request|sequence)\b|\bsingle[- ](?:stream|user)\b|\bone user\b"
    ),
    _const("per-sequence"),
    (
        ("PER-REQUEST decode throughput, batch 1, single stream", "per-sequence"),
        ("generated tokens/s per user", "per-sequence"),
    ),
    rejects=(
        "aggregate across all in-flight requests",
        "summed across concurrent requests, not per-request.",
    ),
    needles=(
        "per user",
        "per request",
        "per sequence",
        "per-user",
        "per-request",
        "per-sequence",
        "single stream",
        "single-stream",
        "single user",
        "single-user",
        "one user",
    ),
)

NOT_PUBLISHED_RULE: Rule[str] = Rule(
    "no-figure",
    _re(r"\bnot published\b|\bno (?:throughput )?figure (?:is )?published\b|\bunpublished\b"),
    _const("not published"),
    (
        ("tokens per second (not published)", "not published"),
        ("N/A (no throughput figure published)", "not published"),
    ),
    rejects=("output tokens/s (aggregate, harness 'Tokens per second')",),
    needles=("publish",),
)
"""A zero that stands for "no figure": the record carries no measurement to check."""

# ---------------------------------------------------------------- speculative decoding
SPECULATIVE_RULE: Rule[str] = Rule(
    "speculative",
    _re(
        r"(?:\bspeculative\b|\bspec(?:ulation)?[- ]decod\w*|(?<![\w-])MTP\b|\bEAGLE[- ]?\d?\b"
        r"|\bMedusa\b|\bdraft model\b|\bDSPARK\b|\blookahead decoding\b)"
        r"(?![^.]{0,40}\b(?:not|disabled|off)\b)"
    ),
    lambda m: m[0],
    (
        ("Qwen3-8B Q4_K_M + Qwen3-0.6B Q8_0 draft model", "draft model"),
        ("tok/s decode, single stream, DSPARK block_size=2", "DSPARK"),
        ("EAGLE-3 speculative decoding", "EAGLE-3"),
    ),
    rejects=(
        "sampling overhead",
        "MTPU board",
        "Multi-token prediction (MTP) was NOT enabled for this run",
    ),
    needles=(
        "specul",
        "spec-decod",
        "spec decod",
        "mtp",
        "eagle",
        "medusa",
        "draft model",
        "dspark",
        "lookahead decoding",
    ),
)

TOKENS_PER_STEP_RULE: Rule[float] = Rule(
    "tokens-per-step",
    _re(
        r"(\d+(?:\.\d+)?)\s*(?:accepted tokens per (?:step|forward pass)|tokens per step)\b"
        r"|\bacceptance length\s*(?:of|=|:)?\s*(\d+(?:\.\d+)?)"
    ),
    lambda m: float(m[1] or m[2]),
    (("mean acceptance length 2.4 on prose", 2.4), ("3.1 accepted tokens per step", 3.1)),
    rejects=("128 tokens generated after a 2048-token prompt",),
    needles=("per step", "per forward", "acceptance"),
)

# ---------------------------------------------------------------- weight size stated
_NOT_APPROX = r"(?=\d)(?<![~≈])(?<!about )(?<!approx\. )(?<!around )(?<!roughly )(?<!up to )(?<!~ )"
_SIZE = r"(?=\d)(?<![\w.~])(\d+(?:\.\d+)?)\s?(GiB|GB|TiB|TB)\b"

WEIGHT_SIZE_RULES: tuple[Rule[tuple[float, str]], ...] = (
    Rule(
        "size-in-model-name",
        re.compile(r"\((?:[^()]*?,\s*)?" + _NOT_APPROX + _SIZE + r"\s*\)"),
        lambda m: (float(m[1]), m[2]),
        (
            ("Bonsai-27B (Q1_0, 3.53 GiB)", (3.53, "GiB")),
            ("gpt-oss-120b MXFP4 MoE (59.02 GiB)", (59.02, "GiB")),
            ("Qwen3.8-27B (Q4_K_XL, 17.545 GB)", (17.545, "GB")),
            ("DeepSeek-V3 671B (Q4_K_M, 376.65 GiB)", (376.65, "GiB")),
        ),
        rejects=("MPT-7B (FP16)", "Llama 3.3 70B (~35GB)", "Qwen3-14B (4-bit, about 9 GB)"),
        needles=("gb", "gib", "tb", "tib"),
    ),
    Rule(
        "size-of-weights",
        re.compile(
            _NOT_APPROX
            + _SIZE
            + r"\s+of\s+(?:FP16\s+|BF16\s+)?weights\b"
            + r"|\bweights?\s*(?:are|is|of|=|:)\s*"
            + _NOT_APPROX
            + _SIZE
            + r"|\b(?:model|file|GGUF) size\s*(?:of|=|:|is)?\s*"
            + _NOT_APPROX
            + _SIZE,
            re.IGNORECASE,
        ),
        lambda m: (float(m[1] or m[3] or m[5]), str(m[2] or m[4] or m[6])),
        (
            ("MPT-7B in FP16 is 14 GB of weights", (14.0, "GB")),
            ("model size 17.545 GB on disk", (17.545, "GB")),
            ("weights: 3.53 GiB", (3.53, "GiB")),
        ),
        rejects=(
            "A 70B model at 4-bit requires ~35GB of weights",
            "A 70B model at Q8_0 requires ~70GB of VRAM",
            "Peak memory 18.20 GB",
            "20.5 GB model footprint",
            "96GB GDDR7 at 1792 GB/s",
            "requires about 35GB of weights",
        ),
        needles=("weight", "model size", "file size", "gguf size"),  # not "batch size"
        also=("gb", "gib", "tb", "tib"),
    ),
)

WEIGHT_BOUND_RULE: Rule[tuple[float, str]] = Rule(
    "memory-footprint-bound",
    _re(
        r"(?=\d)(?<![\w.~])(\d+(?:\.\d+)?)\s?(GiB|GB)\s+(?:model\s+)?footprint\b"
        r"|\bpeak memory\s*(?:of|=|:)?\s*(\d+(?:\.\d+)?)\s?(GiB|GB)\b"
    ),
    lambda m: (float(m[1] or m[3]), str(m[2] or m[4])),
    (
        ("100% of model layers offloaded. 20.5 GB model footprint.", (20.5, "GB")),
        ("Peak memory 18.20 GB.", (18.2, "GB")),
    ),
    rejects=("A 70B model at 4-bit requires ~35GB of weights", "96GB GDDR7 at 1792 GB/s"),
    needles=("footprint", "peak memory"),
)
"""A measured memory footprint holds the weights and more: an upper bound on weight bytes,
so the roof it gives is a lower bound (used, marked assumed, only when nothing else is)."""

# ---------------------------------------------------------------- device bandwidth stated
BANDWIDTH_RULE: Rule[float] = Rule(
    "device-bandwidth",
    _re(
        r"(?:GDDR\w*|HBM\w*|LPDDR\w*|unified memory|memory|VRAM)\s+(?:at|of|with)\s+"
        r"(\d+(?:\.\d+)?)\s?(GB/s|TB/s)"
        r"|\b(\d+(?:\.\d+)?)\s?(GB/s|TB/s)\s+(?:memory\s+)?bandwidth\b"
        r"|\bbandwidth\s+(?:of|is|=|:)\s*(\d+(?:\.\d+)?)\s?(GB/s|TB/s)"
    ),
    lambda m: (
        float(m[1] or m[3] or m[5]) * (1000.0 if (m[2] or m[4] or m[6]).upper() == "TB/S" else 1.0)
    ),
    (
        ("RTX PRO 6000 Blackwell with 96GB GDDR7 at 1792 GB/s", 1792.0),
        ("M4 Max with 128GB unified memory at 546 GB/s", 546.0),
        ("M5 Ultra with 512GB unified memory at 1.2TB/s", 1200.0),
        ("48 GB unified LPDDR5X, 273 GB/s memory bandwidth", 273.0),
    ),
    rejects=(
        "the pair moves 825.7 GB/s = 43.0% of their combined 1920 GB/s DRAM peak",
        "Single-card baseline is 632.5 of 960 GB/s",
    ),
    needles=("gb/s", "tb/s"),
)

# ---------------------------------------------------------------- precisions and sizes
GGUF_TYPE_RULE: Rule[str] = Rule(
    "gguf-type",
    _re(r"(?<![\w-])(Q[2-8]_(?:K_[SML]|K|[01])|IQ[1-4]_(?:XXS|XS|S|M|NL))(?![\w])"),
    lambda m: m[1].upper(),
    (
        ("Llama 3.2 3B (Q4_K_M)", "Q4_K_M"),
        ("Q8_0 quantization, 24GB VRAM", "Q8_0"),
    ),
    rejects=("Qwen3.8-27B (Q4_K_XL, 17.545 GB)", "gguf-q4-k-m"),
    needles=("q2_", "q3_", "q4_", "q5_", "q6_", "q7_", "q8_", "iq"),
)
"""A GGUF quantization type by its llama.cpp name; its bits come from the catalogue."""

PRECISION_RULE: Rule[str] = Rule(
    "precision-word",
    _re(
        r"(?<![a-z0-9])(NVFP4|MXFP4|FP4|FP6|FP8|BF16|FP16|FP32|INT8|INT4|W8A8|W4A16|W4A8|W4A4)(?![a-z0-9])"
    ),
    lambda m: m[1].lower(),
    (
        ("MPT-7B (FP16)", "fp16"),
        ("Llama 2 70B (MLPerf v6.1 submission, FP4 weights)", "fp4"),
        ("nvidia/Llama-3.1-8B-Instruct-FP8", "fp8"),
        ("Qwen3.5-397B-A17B-NVFP4", "nvfp4"),
    ),
    rejects=("gfx1100", "HBM3e 288GB"),
    needles=(
        "nvfp4",
        "mxfp4",
        "fp4",
        "fp6",
        "fp8",
        "bf16",
        "fp16",
        "fp32",
        "int8",
        "int4",
        "w8a8",
        "w4a16",
        "w4a8",
        "w4a4",
    ),
)

BITS_RULE: Rule[float] = Rule(
    "n-bit",
    _re(r"(?=\d)(?<![\w.])(\d+(?:\.\d+)?)[- ]?bit\b(?![- ]?(?:memory|bus|interface))"),
    lambda m: float(m[1]),
    (
        (
            "MLX-LM Metal backend, batch size 1, 512 token prompt, 128 token output, 4-bit quantization",
            4.0,
        ),
        ("Qwen3-30B-A3B-Instruct-2507 (MLX 4-bit, mlx-community repo)", 4.0),
    ),
    rejects=("8192-bit memory interface", "256-bit bus"),
    needles=("bit",),
)

PARAMS_RULE: Rule[tuple[float, float | None]] = Rule(
    "params-in-name",
    _re(
        r"(?=\d)(?<![\w.])(\d+(?:\.\d+)?)\s?([BT])(?:\s*total)?"
        r"(?:\s*(?:-|/|,)\s*A?(\d+(?:\.\d+)?)\s?B(?:\s*active)?)?(?!\w|\.\d|\s+active)",
        0,
    ),
    lambda m: (
        float(m[1]) * (1000.0 if m[2] == "T" else 1.0),
        float(m[3]) if m[3] else None,
    ),
    (
        ("Llama 3.3 70B", (70.0, None)),
        ("Qwen3-30B-A3B-Instruct-2507 (MLX 4-bit)", (30.0, 3.0)),
        ("Qwen3.5-397B-A17B-NVFP4", (397.0, 17.0)),
        ("Qwen3.8-2.4T-A95B-NVFP4", (2400.0, 95.0)),
        ("command-a-plus (218B total / 25B active MoE, NVFP4 experts)", (218.0, 25.0)),
        ("Qwen3-0.6B.w8a8", (0.6, None)),
    ),
    rejects=("RTX PRO 6000 Blackwell (96GB)", "16GB VRAM", "1.04211e+06", "(MoE, 3B active)"),
)

ACTIVE_RULE: Rule[float] = Rule(
    "active-params",
    _re(r"(?=\d)(?<![\w.])(\d+(?:\.\d+)?)\s?B\s+active\b|\bA(\d+(?:\.\d+)?)B\b"),
    lambda m: float(m[1] or m[2]),
    (("Qwen3.5 35B-A3B (MoE, 3B active)", 3.0), ("Qwen3-30B-A3B", 3.0)),
    rejects=("MPT-7B (FP16)",),
    needles=("active", *_digit_after("a")),
)

MOE_RULE: Rule[str] = Rule(
    "moe-word",
    _re(r"\bMoE\b|\bmixture[- ]of[- ]experts\b|\bexperts?\b"),
    _const("moe"),
    (("gpt-oss-120b MXFP4 MoE (59.02 GiB)", "moe"), ("DeepSeek-V3 (671B MoE, FP8)", "moe")),
    rejects=("Llama 3.3 70B",),
    needles=("moe", "mixture", "expert"),
)

ALL_RULES: tuple[Rule[object], ...] = (  # every rule, for the tests that run their examples
    *BATCH_RULES,
    *COUNT_RULES,
    PER_DEVICE_RULE,
    ONE_DEVICE_MEMORY_RULE,
    *PARALLELISM_RULES,
    AGGREGATE_RULE,
    PER_USER_RULE,
    NOT_PUBLISHED_RULE,
    SPECULATIVE_RULE,
    TOKENS_PER_STEP_RULE,
    *WEIGHT_SIZE_RULES,
    WEIGHT_BOUND_RULE,
    BANDWIDTH_RULE,
    PRECISION_RULE,
    GGUF_TYPE_RULE,
    BITS_RULE,
    PARAMS_RULE,
    ACTIVE_RULE,
    MOE_RULE,
)

# ---------------------------------------------------------------- a figure derived, not measured
DERIVED_RULE: Rule[str] = Rule(
    "derived-from-bandwidth",
    _re(
        r"\bbandwidth\s+(?:yields|gives|implies|predicts|means)\b"
        r"|\b(?:derived|computed|calculated|estimated)\s+from\s+(?:the\s+)?(?:memory\s+)?bandwidth\b"
        r"|\bbandwidth\s*/\s*(?:model|weight)\s*(?:size|bytes)\b"
        r"|\bdivid(?:e|ed|ing)\s+(?:the\s+)?(?:memory\s+)?bandwidth\s+by\b"
    ),
    lambda m: m[0],
    (
        ("The 546 GB/s bandwidth yields ~18 tokens/sec for decode.", "bandwidth yields"),
        ("tok/s estimated from memory bandwidth and model size", "estimated from memory bandwidth"),
        ("dividing bandwidth by a guessed bytes-per-token", "dividing bandwidth by"),
    ),
    rejects=(
        "Projections in the issue are explicitly labelled projections from measured bandwidths",
        "the pair moves 825.7 GB/s = 43.0% of their combined 1920 GB/s DRAM peak",
    ),
    needles=("bandwidth",),
)

ALL_RULES = (*ALL_RULES, DERIVED_RULE)
