"""The same fact written the ways contributors write it, and the sentences that only look like
it: for each input, the reader takes the fact and leaves the look-alikes. A Hypothesis property
then composes a fact, a denied fact and a sentence about another run, and holds that only the
affirmed fact about this run is read."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roofbot.adapters.repo import Repository
from roofbot.core.inputs import Inputs
from roofbot.core.resolve import resolve
from tests.conftest import FIXTURES

CATALOGUE = Repository.open(FIXTURES).catalogue()


def read(
    methodology: str = "",
    unit: str = "output tokens/s",
    name: str = "a run",
    model: str = "Llama 3.3 70B",
    metric: str = "decode_tok_s",
    part: str = "nvidia-h100-sxm",
    engine: str = "vllm",
    format_id: str | None = None,
) -> Inputs:
    record: dict[str, Any] = {
        "id": "paraphrase", "type": "benchmark", "name": name, "model": model, "unit": unit,
        "metric": metric, "value": 10.0, "methodology": methodology, "notes": "",
        "accelerator_ids": [part] if part else [], "engine_id": engine, "format_id": format_id,
    }  # fmt: skip
    return resolve(record, CATALOGUE, {})


def count_of(inp: Inputs) -> tuple[int, bool]:
    return inp.count.value, inp.count.assumed


EIGHT = [
    "Hardware: 8x H100 SXM5 in one host.",
    "8 x NVIDIA H100 80GB SXM, NVLink.",
    "eight H100s over NVLink",
    "served on 8 H100 GPUs",
    "one 8-GPU H100 node",
    "TensorRT-LLM, TP8, FP8 KV cache",
    "vllm serve --tensor-parallel-size 8",
    "sglang --tp 8 on one node",
    "8-way tensor parallel",
    "DGX H100 x8, TensorRT-LLM",
    "HIP_VISIBLE_DEVICES=0,1,2,3,4,5,6,7",
]


@pytest.mark.parametrize("text", EIGHT)
def test_eight_accelerators_written_eleven_ways(text: str) -> None:
    assert count_of(read(text)) == (8, False)


NOT_A_COUNT = [
    "host link 4x PCIe 4.0 x16",
    "2x Intel Xeon Platinum 8380 (40 cores each)",
    "16-core Metal 3 GPU",
    "NVIDIA H100 80GB",
    "llama-bench pp512 and tg128",
    "24x 100Gb/s Ethernet on a 10x L3 fat-tree",
    "3x faster than the A100 row",
    "8x faster than --enforce-eager",
    "mlx 0.29.2.dev20251008+85a8824a8, mlx-lm 0.28.2",
    "OMITTED BY SOURCE: GPU count per node, TP size.",
    "Useful context from the write-up about the 8xMI325X submission: batch 2048.",
]


@pytest.mark.parametrize("text", NOT_A_COUNT)
def test_numbers_that_are_not_an_accelerator_count(text: str) -> None:
    assert count_of(read(text)) == (1, True)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("a dual RTX 3090 rig", 2),
        ("two RTX 4090s, llama.cpp", 2),
        ("CUDA_VISIBLE_DEVICES=1,1,1", 1),
        ("GB300 NVL72 8-GPU slice", 8),
        ("CoreWeave GB200 NVL72 rack", 72),
    ],
)
def test_counts_in_words_flags_and_racks(text: str, want: int) -> None:
    assert read(text).count.value == want


def test_the_unit_is_more_specific_than_the_methodology() -> None:
    inp = read("12 nodes x 8 H100 = 96 H100 GPUs", unit="output tokens/s per 8-GPU node")
    assert count_of(inp) == (8, False)
    assert "unit" in inp.count.source
    assert count_of(read("8x H100 SXM5", unit="output tokens/s per GPU")) == (1, False)


def test_two_counts_of_equal_standing_are_an_ambiguity_shown_both_ways() -> None:
    inp = read("one node of 4 H100 GPUs; the cluster has 8 H100 GPUs")
    assert count_of(inp) == (8, True)
    assert "also states" in inp.count.source and "4" in inp.count.source


SIXTEEN = [
    "batch size 16",
    "BS 16, ISL 1024",
    "trtllm-bench bs=16",
    "a batch of 16 requests",
    "at batch 16",
    "vllm bench serve, concurrency 16",
    "16 concurrent requests",
    "llama-batched-bench -npl 16 -npp 128 -ntg 128",
    "saturated, B=16, cold cache",
    "vllm bench serve --max-concurrency 16",
]


@pytest.mark.parametrize("text", SIXTEEN)
def test_a_batch_of_sixteen_written_ten_ways(text: str) -> None:
    batch = read(text).batch
    assert batch is not None and batch.value == 16


@pytest.mark.parametrize(
    "text", ["one request at a time", "single stream decode", "llama-bench tg128", "bs=1"]
)
def test_one_sequence(text: str) -> None:
    batch = read(text).batch
    assert batch is not None and batch.value == 1


@pytest.mark.parametrize(
    "text",
    [
        "llama-bench -p 512 -n 128 -b 2048 -ub 512 -ngl 99",
        "batch size not a fixed published number (closed-loop Offline queue)",
        "Concurrency NOT stated - the setup targets saturated decode nodes.",
        "OMITTED BY SOURCE: batch size, concurrency, clock state.",
        "MLPerf Offline scenario, closed division",
        "The post gives two better-balanced tradeoffs: TP=2 / batch 32 at 435 tok/s/GPU.",
    ],
)
def test_no_batch_for_this_run(text: str) -> None:
    assert read(text).batch is None


def test_another_runs_batch_does_not_displace_this_runs() -> None:
    text = (
        "Batch size 128, concurrency 128 in-flight requests. The post gives two better-balanced "
        "tradeoffs in absolute terms: TP=4 / batch 128 at 626 tok/s/GPU, and TP=2 / batch 32."
    )
    batch = read(text, metric="tps_aggregate").batch
    assert batch is not None and batch.value == 128 and not batch.assumed


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("vllm serve --dtype bfloat16", "bf16"),
        ("NIM profile: bfloat16 weights, tensor-parallel size 4", "bf16"),
        ("Llama 3.3 70B Instruct BF16", "bf16"),
        ("vllm serve --quantization fp8", "fp8"),
        ("FP8 (E4M3) weights and activations", "fp8"),
        ("W4A16 GPTQ checkpoint", "fp16"),
        ("FP16 weights, batch 1", "fp16"),
        ("vllm serve --dtype float16", "fp16"),
        ("an NVFP4 checkpoint on an RTX 5090", "fp4"),
        ("MXFP4 weights and activations on an RTX 5090", "fp4"),
        ("SmoothQuant INT8 W8A8", "int8"),
        ("bf16 weights, no quantization", "bf16"),
    ],
)
def test_precision_stated_as_words_and_flags(text: str, want: str) -> None:
    part = "nvidia-rtx-5090" if "RTX 5090" in text else "nvidia-h100-sxm"  # a part with fp4 rows
    inp = read(text, metric="tps_aggregate", part=part)
    assert inp.compute_precision is not None
    assert inp.compute_precision.value == want and not inp.compute_precision.assumed


@pytest.mark.parametrize(
    "text",
    [
        "it never names the served numeric format - not FP8, not INT8",
        "no explicit fp8/w8a8 flag on the command line",
        "FP8 KV cache, TensorRT-LLM",
        "--kv-cache-dtype fp8",
        "That says the weights began fp16 and were quantized, but the format is unknown.",
    ],
)
def test_a_precision_denied_or_of_something_else_is_not_stated(text: str) -> None:
    inp = read(text, metric="tps_aggregate")
    assert inp.compute_precision is not None and inp.compute_precision.assumed


@pytest.mark.parametrize(
    "text",
    [
        "EAGLE-3 speculative decoding",
        "Medusa heads on a Vicuna 13B",
        "Qwen3-0.6B draft model",
        "vLLM with prompt lookup decoding",
        "n-gram speculation, 4 tokens",
        "MTP enabled, 2 layers",
        "multi-token prediction on",
        "spec decoding with a 1B drafter",
        "EAGLE2 draft heads",
        "Medusa-2 on two heads",
        "lookahead decoding, window 7",
    ],
)
def test_speculative_decoding_by_any_name(text: str) -> None:
    assert read(text).speculative is not None


@pytest.mark.parametrize(
    "text",
    [
        "Multi-token prediction (MTP) was NOT enabled for this run",
        "run without speculative decoding",
        "speculative decoding disabled",
        "Multi-Token Prediction: two-batch overlap is used instead.",
    ],
)
def test_speculative_decoding_denied(text: str) -> None:
    assert read(text).speculative is None


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("2 GPUs, -sm tensor", "tensor"),
        ("two RTX 4090s, --split-mode row", "tensor"),
        ("2 GPUs, tensor parallel", "tensor"),
        ("2 GPUs, TP=2", "tensor"),
        ("2 GPUs, vllm serve --tensor-parallel-size 2", "tensor"),
        ("2 GPUs, -sm layer", "pipeline"),
        ("2 GPUs, layer split", "pipeline"),
        ("2 GPUs, pipeline parallel", "pipeline"),
        ("2 GPUs, llama-server -tp 2", "tensor"),
        ("2 GPUs, PP2", "pipeline"),
        ("2 GPUs, --split-mode layer", "pipeline"),
    ],
)
def test_the_split(text: str, want: str) -> None:
    split = read(text).parallelism
    assert split is not None and split.value == want


def test_pp512_is_a_prompt_test_not_pipeline_parallelism() -> None:
    assert read("2 GPUs, llama-bench pp512 tg128").parallelism is None


@pytest.mark.parametrize(
    "text",
    [
        "RTX 5090 with 32GB GDDR7 at 1792 GB/s",
        "1792 GB/s memory bandwidth",
        "bandwidth of 1792 GB/s",
        "RTX 5090 (1.792 TB/s GDDR7)",
        "a workstation card, 32 GB GDDR7, 1792 GB/s",
        "GDDR7 at 1.792 TB/s",
        "VRAM at 1792 GB/s",
        "bandwidth: 1792 GB/s",
        "1.792 TB/s memory bandwidth",
        "memory of 1792 GB/s",
    ],
)
def test_a_device_bandwidth_resolves_a_record_with_no_part(text: str) -> None:
    bw = read(text, part="").bandwidth_gbps
    assert bw is not None and bw.value == 1792.0


@pytest.mark.parametrize(
    ("unit", "want"),
    [
        ("tok/s per user", "per-sequence"),
        ("output tokens/s (aggregate)", "aggregate"),
        ("tokens/s, per-request or aggregate are NOT stated", "per-sequence"),
        ("generated tokens/s per user", "per-sequence"),
        ("per-request decode throughput", "per-sequence"),
        ("tok/s, single stream", "per-sequence"),
        ("tokens/s summed over 64 sequences", "aggregate"),
        ("tok/s (total token throughput)", "aggregate"),
        ("output tokens/s across all in-flight requests", "aggregate"),
        ("aggregate output tokens/s", "aggregate"),
    ],
)
def test_per_user_or_aggregate(unit: str, want: str) -> None:
    rate = read(unit=unit).rate
    assert rate.value.value == want
    assert rate.assumed == ("NOT stated" in unit)


# ------------------------------------------------------------------ composed clauses
def cap(s: str) -> str:
    return s[0].upper() + s[1:]


FACTS = [("at batch {n}", "batch"), ("on {n}x H100 SXM5", "count")]
DENIALS = ["batch size is NOT stated", "OMITTED BY SOURCE: the GPU count, batch size"]
OTHERS = [
    "The post gives other tradeoffs: batch {m} on {m}x H100.",
    "Compared with the baseline of batch {m} on {m}x H100, it is faster.",
]


@settings(max_examples=200, deadline=None)
@given(
    st.integers(2, 64),
    st.integers(65, 512),
    st.sampled_from(FACTS),
    st.sampled_from(DENIALS),
    st.sampled_from(OTHERS),
    st.permutations(range(3)),
)
def test_only_the_affirmed_fact_about_this_run_is_read(
    n: int, m: int, fact: tuple[str, str], denial: str, other: str, order: list[int]
) -> None:
    sentences = [cap(fact[0].format(n=n)) + ".", cap(denial) + ".", other.format(m=m)]
    text = " ".join(sentences[i] for i in order)
    inp = read(text, metric="tps_aggregate")
    batch = inp.batch.value if inp.batch else None
    if fact[1] == "batch":
        assert batch == n, text
        assert inp.count.value == 1, text
    else:
        assert inp.count.value == n and not inp.count.assumed, text
        assert batch is None, text


@pytest.mark.parametrize(
    ("unit", "rate"),
    [
        ("ms per output token (TPOT, median)", False),
        ("TPOT ms", False),
        ("ms/token at batch 1", False),
        ("TFLOPS FP16", False),
        ("output tokens/s; ENERGY: 0.09 J/token", True),
        ("tok/s (tg128)", True),
        ("トークン/秒", True),
        ("토큰/초", True),
        ("токенов/с", True),
        ("т/с", True),
        ("词元/秒", True),
        ("jetons/s", True),
    ],
)
def test_a_latency_filed_as_a_token_rate_is_not_one(unit: str, rate: bool) -> None:
    from roofbot.core.inputs import unit_is_token_rate

    assert unit_is_token_rate(unit) is rate


@pytest.mark.parametrize(
    ("unit", "other"),
    [
        ("TFLOPS FP16", True),
        ("ms", True),
        ("J/token", True),
        ("x speedup", True),
        ("W", True),
        ("tok/s", False),  # a token rate: checked, never "another quantity"
        ("", False),  # says nothing: an error on a token-rate metric, not a skip
        ("tk/s", False),
    ],
)
def test_a_unit_is_a_token_rate_another_quantity_or_nothing_known(unit: str, other: bool) -> None:
    from roofbot.core.inputs import unit_names_other_quantity

    assert unit_names_other_quantity(unit) is other


def test_every_field_the_reader_scans_is_bounded() -> None:
    from roofbot.core.reader.clauses import MAX_FIELD
    from roofbot.core.reader.reading import read_record

    huge = "8x H100 " * 300_000  # 2.4 MB in one field
    record = {"unit": huge, "model": huge, "name": huge, "methodology": huge, "notes": huge}
    reading = read_record(record)
    assert all(len(t) <= MAX_FIELD for t in reading.texts.values())
    assert all(m.span.end <= MAX_FIELD for m in reading.mentions)
