"""Cues: the words that deny a statement, leave it unstated, or move it to another run.

A mention stands under a cue when the cue's scope covers it and the cue's words are not
part of the mention itself ("no batching" is a batch of 1, not a denied batch). The words of
denial ("not", "without", "MTP off") are data, one line each, in `denials`."""

from __future__ import annotations

from roofbot.core.reader.denials import AFTER_TERM, BEFORE_TERM
from roofbot.core.reader.rule import Cue, Scope, Stance, rx

DENIALS: tuple[Cue, ...] = (
    Cue(
        "omitted-header",
        Stance.DENIED,
        rx(
            r"(?:omitted|not stated|not disclosed|not given|unknown|absent)"
            r"(?: by (?:the )?source)?\s*:"
        ),
        Scope.SENTENCE_AHEAD,
        (
            ("OMITTED BY THE SOURCE: batch size, tensor-parallel degree.", "tensor-parallel"),
            ("Omitted by the source: clock settings, and whether the weights were FP8.", "FP8"),
        ),
        (("Hardware: 8x H100 SXM5, TP8", "8x"),),
    ),
    BEFORE_TERM,
    AFTER_TERM,
    Cue(
        "used-instead",
        Stance.DENIED,
        rx(r"(?:is(?<!\wis)|are(?<!\ware)|was(?<!\wwas)|were(?<!\wwere))\s+used\s+instead\b"),
        Scope.SENTENCE,
        (("Multi-Token Prediction: two-batch overlap is used instead.", "Multi-Token"),),
    ),
)

OTHER_RUNS: tuple[Cue, ...] = (
    Cue(
        "comparison",
        Stance.OTHER_RUN,
        rx(
            r"(?:vs(?<!\wvs)\.?|versus|compared (?:with|to)|relative to|than(?<!\wthan)|against|unlike)\s"
        ),
        Scope.AHEAD,
        (
            ("8034.85 tok/s on 8x Gaudi 2 vs 103480 tok/s on 8x MI355X", "8x MI355X"),
            ("8x faster than --enforce-eager with TP=4", "TP=4"),
            (
                "a laptop APU in a chassis with a shared thermal envelope, unlike the M4 Max desktop rows",
                "M4 Max",
            ),
        ),
        (("PP4 TP8 vs TP8, batch size 1", "batch size 1"),),
    ),
    Cue(
        "another-run",
        Stance.OTHER_RUN,
        rx(
            r"(?:the same (?:model|post|write-up|submission|blog)|sibling(?<!as the sibling)"
            r"|counterpart|other (?:run|record|row|submission|point|system|configuration)s?"
            r"|comparison|baseline|tradeoffs?|for reference|like-for-like|corroborating context"
            r"|context from|sanity check|about the \S+ submission|the post also gives|also gives"
            r"|paired \w+[- ]scenario|same (?:post|write-up|blog) (?:reports|also))\b"
        ),
        Scope.SENTENCE,
        (
            (
                "Useful corroborating context from the same AMD v5.0 write-up about the "
                "8xMI325X submission: offline scenario ran at batch sizes near the maximum",
                "8xMI325X",
            ),
            ("The bf16 row for the same model runs at 41 tok/s.", "bf16"),
            ("The post gives two better-balanced tradeoffs: TP=2 / batch 32 at 435", "batch 32"),
            ("the comparison baseline is vanilla TP32/TP16 style configurations", "TP32"),
            (
                "Same post reports ~2,600 TPS at 250 users, and A100 80GB PCIe on the same setup",
                "A100",
            ),
        ),
        (
            ("Batch size 128, concurrency 128 in-flight requests.", "Batch size 128"),
            (
                "Same production configuration as the sibling records: 8x RTX PRO 6000, TP=8/EP=8",
                "TP=8",
            ),
        ),
    ),
    Cue(
        "record-reference",
        Stance.OTHER_RUN,
        rx(r"\[\[[^\]]*\]\]|(?<![\w-])[a-z0-9]+(?:-[a-z0-9]+(?:\.[a-z0-9]+)*){3,}(?![\w-])", 0),
        Scope.CLAUSE,
        (("see [[mpt7b-a100-bs64-aggregate-output-tps]] at batch 64", "batch 64"),),
        (("llama-bench, batch size 1", "batch size 1"),),
        fields=frozenset({"unit", "methodology", "notes"}),
        cased=True,  # an id is lower case; a model's name ("Llama-3.1-8B-Instruct") is not
    ),
)

EARLIER_STATE: Cue = Cue(
    "earlier-state",
    Stance.OTHER_RUN,
    rx(r"(?:began|originally|starting_weights\w*|before quantization|were quantized from)\b"),
    Scope.SENTENCE,
    (
        (
            "That says the weights began fp16 and were quantized, but it never names the format",
            "fp16",
        ),
        (
            "The paired measurements.json gives weight_data_types 'fp16', starting_weights_filename 'Original'",
            "fp16",
        ),
    ),
    (("vllm serve --dtype bfloat16", "bfloat16"),),
)
"""A state of the model before the run (its source weights), not what ran."""

CUES: tuple[Cue, ...] = (*DENIALS, *OTHER_RUNS, EARLIER_STATE)
