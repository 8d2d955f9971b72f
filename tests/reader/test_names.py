"""Names: a number inside a part's name is never a count, an article before a part's name
states one device, parts match the catalogue whatever the spelling, systems and engine flags
are data, and a parallel layout is read as its degrees. Each case is read through the whole
resolver on the bundled example catalogue (and, where the verdict is the point, checked)."""

from __future__ import annotations

from typing import Any

import pytest

from roofbot.adapters.repo import Repository
from roofbot.core.check import check_record
from roofbot.core.config import Config
from roofbot.core.inputs import Inputs
from roofbot.core.reader.reading import read_field
from roofbot.core.reader.rule import Kind
from roofbot.core.resolve import resolve
from roofbot.core.results import Verdict
from tests.conftest import FIXTURES

CATALOGUE = Repository.open(FIXTURES).catalogue()


def record(
    methodology: str = "",
    part: str = "nvidia-rtx-4090",
    name: str = "a run",
    model: str = "Llama 3.1 8B Q4_K_M",
    unit: str = "tok/s (tg128)",
    metric: str = "decode_tok_s",
    value: float = 10.0,
) -> dict[str, Any]:
    return {
        "id": "names-case", "type": "benchmark", "name": name, "model": model, "unit": unit,
        "metric": metric, "value": value, "methodology": methodology, "notes": "",
        "accelerator_ids": [part] if part else [], "engine_id": "llama-cpp",
        "format_id": None, "params_b": 8.0,
    }  # fmt: skip


def read(methodology: str = "", **kw: Any) -> Inputs:
    return resolve(record(methodology, **kw), CATALOGUE, {})


# ------------------------------------------------------------ a part's number is not a count
PART_NAME_NUMBERS = [
    ("Llama 3.1 8B Q4_K_M on an RTX 4090 GPU, llama-bench tg128", "nvidia-rtx-4090"),
    ("llama.cpp on RTX 4090 cards, tg128", "nvidia-rtx-4090"),
    ("measured on RTX 3090 GPUs with llama-bench", "nvidia-rtx-3090"),
    ("RTX 5090 GPUs, CUDA 12.8, llama-bench tg128", "nvidia-rtx-5090"),
    ("Radeon RX 7900 XTX GPU, ROCm 6.2", "amd-radeon-rx-7900-xtx"),
    ("an MI355X GPU, vLLM", "amd-instinct-mi355x"),
    ("an H100 GPU, vLLM", "nvidia-h100-sxm"),
    ("a 4090 card, llama-bench", "nvidia-rtx-4090"),
]


@pytest.mark.parametrize(("text", "part"), PART_NAME_NUMBERS)
def test_a_number_in_a_parts_name_is_never_a_count(text: str, part: str) -> None:
    assert read(text, part=part).count.value == 1


@pytest.mark.parametrize(
    ("text", "part"),
    [
        ("on a Radeon RX 7900 XTX GPU", "amd-radeon-rx-7900-xtx"),
        ("Llama 3.1 8B on an RTX 4090 GPU", "nvidia-rtx-4090"),
        ("on an H100, vLLM 0.6", "nvidia-h100-sxm"),
        ("on a 4090 with llama.cpp", "nvidia-rtx-4090"),
    ],
)
def test_a_or_an_before_a_parts_name_states_one_device(text: str, part: str) -> None:
    inp = read(text, part=part)
    assert inp.count.value == 1 and not inp.count.assumed, inp.count.source


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("2x RTX 4090 GPUs, -sm layer", 2),
        ("two RTX 4090 cards", 2),
        ("RTX 3090 x2 over PCIe", 2),
        ("an H100 node of 8 H100 GPUs", 8),
        ("a GB200 NVL72 rack", 72),
    ],
)
def test_a_count_beside_a_parts_name_is_still_read(text: str, want: int) -> None:
    assert read(text, part="nvidia-h100-sxm").count.value == want


def test_a_record_at_ten_times_one_cards_roof_on_an_rtx_4090_gpu_is_a_violation() -> None:
    """Read as 4,090 GPUs, a record at 1,000% of one card's roof passed."""
    ok = record("Llama 3.1 8B Q4_K_M on an RTX 4090 GPU, llama-bench tg128", value=2000.0)
    result = check_record(ok, "data/benchmarks/names-case.json", CATALOGUE, Config())
    assert result.verdict is Verdict.VIOLATION, result


# ------------------------------------------------------------ parts by name, from the catalogue
@pytest.mark.parametrize(
    ("text", "part"),
    [
        ("llama-bench on one h100 sxm5", "nvidia-h100-sxm"),
        ("RTX4090, llama.cpp b4000", "nvidia-rtx-4090"),
        ("NVIDIA H100-SXM, vLLM", "nvidia-h100-sxm"),
        ("geforce rtx 5090 founders edition", "nvidia-rtx-5090"),
        ("hardware: nvidia-rtx-3090 (the catalogue id)", "nvidia-rtx-3090"),
        ("Radeon RX7900XTX, ROCm 6.2", "amd-radeon-rx-7900-xtx"),
    ],
)
def test_a_part_matches_the_catalogue_whatever_the_case_spacing_or_hyphens(
    text: str, part: str
) -> None:
    inp = read(text, part="")
    assert inp.part is not None and inp.part.value == part, inp.part


def test_a_longer_name_wins_over_the_name_its_siblings_share(real_repo: Repository) -> None:
    """The users' catalogue has the H100 SXM, PCIe and NVL: "H100 SXM5" names the SXM part,
    "H100" alone names none of the three (it is ambiguous), "h100 pcie" the PCIe card."""
    cat = real_repo.catalogue()
    assert [a.id for a in cat.match_accelerators("8x H100 SXM5, vLLM")] == ["nvidia-h100-sxm"]
    assert [a.id for a in cat.match_accelerators("an h100 pcie card")] == ["nvidia-h100-pcie"]
    assert not any(a.id.startswith("nvidia-h100") for a in cat.match_accelerators("an H100"))


def test_a_binned_m3_max_under_the_full_m3_max(real_repo: Repository) -> None:
    rec = record("Apple M3 Max 30-core GPU 300 GB/s, llama.cpp", part="apple-m3-max")
    inp = resolve(rec, real_repo.catalogue(), {})
    assert inp.other_bandwidth_gbps is not None and inp.other_bandwidth_gbps.value == 300.0
    assert inp.variant is not None and "30-core GPU" in inp.variant


def test_a_part_named_in_the_text_other_than_accelerator_ids_is_a_part_variant() -> None:
    inp = read("on one h100 sxm5 with vLLM", part="nvidia-a100-40gb-sxm4")
    assert inp.variant is not None and "nvidia-h100-sxm" in inp.variant


def test_a_binned_variants_stated_bandwidth_is_read_and_the_variant_named() -> None:
    """Apple's M4 Max with a 32-core GPU streams 410 GB/s, the 40-core one 546 GB/s."""
    inp = read("Apple M4 Max 32-core GPU 410 GB/s, llama.cpp Metal", part="apple-m4-max")
    assert inp.bandwidth_gbps is not None and inp.other_bandwidth_gbps is not None
    assert {inp.bandwidth_gbps.value, inp.other_bandwidth_gbps.value} == {546.0, 410.0}
    assert inp.variant is not None and "32-core GPU" in inp.variant


def test_a_stated_bandwidth_resolves_a_system_with_no_catalogue_part() -> None:
    inp = read("NVIDIA DGX Spark (GB10) 273 GB/s, llama.cpp", part="")
    assert inp.bandwidth_gbps is not None and inp.bandwidth_gbps.value == 273.0
    assert inp.count.value == 1


@pytest.mark.parametrize(
    ("text", "want"),
    [("4,000 GB/s memory bandwidth", 4000.0), ("memory bandwidth of 4,000 GB/s", 4000.0)],
)
def test_a_bandwidth_with_a_thousands_separator(text: str, want: float) -> None:
    bw = read(text, part="").bandwidth_gbps
    assert bw is not None and bw.value == want


def test_a_capacity_between_the_parts_words_still_names_it(real_repo: Repository) -> None:
    cat = real_repo.catalogue()
    assert [a.id for a in cat.match_accelerators("4x NVIDIA H100 80GB SXM5")] == ["nvidia-h100-sxm"]
    assert [a.id for a in cat.match_accelerators("A100 80GB PCIe")] == ["nvidia-a100-80gb-pcie"]


# ------------------------------------------------------------ systems: a name that implies parts
@pytest.mark.parametrize(
    ("text", "part", "count"),
    [
        ("DGX H100, TensorRT-LLM 0.9", "nvidia-h100-sxm", 8),
        ("one NVIDIA HGX H200 8-GPU board", "nvidia-h200-sxm", 8),
        ("AWS p5.48xlarge, vLLM 0.6.3", "nvidia-h100-sxm", 8),
        ("a p5e.48xlarge instance", "nvidia-h200-sxm", 8),
        ("GCP a3-highgpu-8g, SGLang", "nvidia-h100-sxm", 8),
        ("GCP a3-highgpu-4g", "nvidia-h100-sxm", 4),
        ("Azure ND H100 v5 VM", "nvidia-h100-sxm", 8),
        ("p4d.24xlarge, FasterTransformer", "nvidia-a100-40gb-sxm4", 8),
        ("a2-highgpu-2g", "nvidia-a100-40gb-sxm4", 2),
        ("Cloud TPU v6e-8 slice, JetStream", "google-tpu-v6e", 8),
        ("trillium v6e-4", "google-tpu-v6e", 4),
        ("2x DGX H100 over InfiniBand", "nvidia-h100-sxm", 16),
        ("AMD Instinct MI355X Platform", "amd-instinct-mi355x", 8),
    ],
)
def test_a_system_or_instance_names_its_part_and_count(text: str, part: str, count: int) -> None:
    inp = read(text, part="")
    assert inp.part is not None and inp.part.value == part, inp.part
    assert inp.count.value == count and not inp.count.assumed, inp.count


def test_an_explicit_count_beside_a_system_wins() -> None:
    assert read("DGX H100, using 4 GPUs of the 8", part="").count.value == 4


def test_a_system_whose_part_is_not_the_records_is_a_part_variant() -> None:
    inp = read("AWS p5e.48xlarge (8x H200)", part="nvidia-h100-sxm")
    assert inp.variant is not None and "nvidia-h200-sxm" in inp.variant


def test_every_system_row_reads_its_example_and_names_a_source() -> None:
    from roofbot.core.reader.vocab.systems import SYSTEMS, systems_in

    for row in SYSTEMS:
        assert row.source, row
        found = systems_in(row.example.lower())
        assert any(s.part == row.part for s, _ in found), row.example


# ------------------------------------------------------------ engine flags are data
def _affirmed(text: str, kind: Kind) -> list[Any]:
    found, _ = read_field("methodology", text)
    return [m.value for m in found if m.kind is kind and m.affirmed]


@pytest.mark.parametrize(
    "text",
    [
        "llama-bench -m llama-3.1-8b.gguf -ctk q8_0 -ctv q8_0 -fa 1",
        "llama-server --cache-type-k q8_0 --cache-type-v q4_0",
        "OLLAMA_KV_CACHE_TYPE=q8_0 ollama run llama3.1:8b",
    ],
)
def test_a_kv_cache_type_is_never_the_weights_format(text: str) -> None:
    assert _affirmed(text, Kind.GGUF_TYPE) == []
    assert _affirmed(text, Kind.PRECISION) == []


@pytest.mark.parametrize(
    ("text", "want"),
    [
        (
            "python -m sglang.bench_one_batch --model-path meta-llama/Llama-3.1-8B --batch-size 32",
            32,
        ),
        ("python benchmarks/benchmark_latency.py --batch-size 8 --input-len 128", 8),
        ("trtllm-bench throughput --concurrency 64", 64),
    ],
)
def test_an_engines_batch_flag(text: str, want: int) -> None:
    assert want in _affirmed(text, Kind.BATCH)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.bfloat16)", "bf16"),
        ("python quantize.py --qformat fp8 --kv_cache_dtype fp8", "fp8"),
        ("vllm serve --dtype half", "fp16"),
    ],
)
def test_an_engines_weights_dtype_flag(text: str, want: str) -> None:
    inp = read(text, part="nvidia-h100-sxm", metric="tps_aggregate")
    assert inp.compute_precision is not None and inp.compute_precision.value == want


@pytest.mark.parametrize(
    "text",
    [
        "python -m sglang.launch_server --speculative-algorithm EAGLE --speculative-num-steps 3",
        "llama-server -m big.gguf -md small.gguf --draft-max 16",
        "model.generate(**inputs, assistant_model=assistant)",
        "exllamav2 test_inference.py --draft_model_dir /models/draft",
    ],
)
def test_an_engines_speculation_flag(text: str) -> None:
    assert read(text, part="nvidia-h100-sxm").speculative is not None


def test_every_engine_flag_row_reads_its_example() -> None:
    from roofbot.core.reader.vocab.flags import FLAGS

    for row in FLAGS:
        found, _ = read_field("methodology", row.example)
        kinds = {m.kind for m in found if m.affirmed}
        assert row.role.kind in kinds or row.role.kind is None, row


# ------------------------------------------------------------ a parallel layout
def roofs(text: str, part: str = "nvidia-h100-sxm", **kw: Any) -> dict[str, float]:
    from roofbot.core import roofline

    inp = read(text, part=part, **kw)
    return {c.check.value: c.ceiling for c in roofline.checks(inp, 10.0)}


@pytest.mark.parametrize(
    ("text", "devices", "tp"),
    [
        ("LLM(model=name, tensor_parallel_size=4)", 4, 4),
        ("vllm serve m -tp 8 -pp 2", 16, 8),
        ("TensorRT-LLM, TP8PP2, FP8", 16, 8),
        ("DP2 x TP4", 8, 4),
        ("vllm serve m --data-parallel-size 2 --tensor-parallel-size 4", 8, 4),
        ("python -m sglang.launch_server --tp 8 --dp 8 --enable-dp-attention", 8, 8),
        ("8x H100 SXM5, TP4 (two replicas)", 8, 4),
        ("2 GPUs, -pp 2", 2, 1),
        ("4-way tensor parallel, 2-way pipeline parallel", 8, 4),
    ],
)
def test_a_parallel_layout_gives_the_devices_and_the_tensor_group(
    text: str, devices: int, tp: int
) -> None:
    inp = read(text, part="nvidia-h100-sxm")
    assert inp.count.value == devices and not inp.count.assumed, inp.count
    assert inp.tensor_degree is not None and inp.tensor_degree.value == tp, inp.tensor_degree


def test_one_sequence_streams_through_one_tensor_group_the_compute_roof_counts_every_device() -> (
    None
):
    """DP2 x TP4 on H100s: the memory roof is 4 x BW, the compute roof 8 x peak."""
    one = roofs("one H100 SXM", metric="tps_aggregate", unit="output tokens/s, batch 1")
    dp2tp4 = roofs("DP2 x TP4", metric="tps_aggregate", unit="output tokens/s, batch 1")
    assert dp2tp4["memory-roof"] == pytest.approx(4 * one["memory-roof"])
    assert dp2tp4["compute-roof"] == pytest.approx(8 * one["compute-roof"])
    tp8pp2 = roofs("TP8PP2", metric="tps_aggregate", unit="output tokens/s, batch 1")
    assert tp8pp2["memory-roof"] == pytest.approx(8 * one["memory-roof"])
    assert tp8pp2["compute-roof"] == pytest.approx(16 * one["compute-roof"])


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("1x L4, vLLM 0.6", 1),
        ("a pair of L40S cards", 2),
        ("H100*8, TensorRT-LLM", 8),
        ("a pair of RTX 3090s over NVLink", 2),
    ],
)
def test_counts_in_new_forms(text: str, want: int) -> None:
    inp = read(text, part="nvidia-h100-sxm")
    assert inp.count.value == want and not inp.count.assumed, inp.count


# ------------------------------------------------------------ quantities by one grammar
def test_a_size_and_a_precision_stated_in_the_model_field_are_read() -> None:
    inp = read("llama-bench tg128", model="LLaMA-2-7B F16, 12.55 GiB", part="nvidia-rtx-4090")
    assert inp.weight_bytes is not None
    assert inp.weight_bytes.value == pytest.approx(12.55 * 2**30)
    assert inp.compute_precision is not None and inp.compute_precision.value == "fp16"


@pytest.mark.parametrize(
    ("text", "gb"),
    [
        ("Llama 2 70B, weights 140 GB in BF16, TP8", 140.0),
        (
            "| llama 7B Q4_0 | 3.56 GiB | 6.74 B | CUDA | 99 | tg128 | 123.45 ± 0.50 |",
            3.56 * 2**30 / 1e9,
        ),
        ("model size 1,024 GB on disk", 1024.0),
    ],
)
def test_a_weight_size_in_new_phrasings(text: str, gb: float) -> None:
    inp = read(text, part="nvidia-h100-sxm", model="a model")
    assert inp.weight_bytes is not None and inp.weight_bytes.value / 1e9 == pytest.approx(gb)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("exllamav2 EXL2 at 4.65 bpw", 4.65),
        ("quantized to 6.0 bits per weight", 6.0),
    ],
)
def test_bits_per_weight(text: str, want: float) -> None:
    assert want in _affirmed(text, Kind.BITS)


@pytest.mark.parametrize(
    ("text", "low", "high"),
    [
        ("4,000", 4000.0, 4000.0),
        ("1.2k", 1200.0, 1200.0),
        ("3.35-3.9", 3.35, 3.9),
        ("123.45 ± 0.50", 123.45, 123.45),
        ("2 to 4", 2.0, 4.0),
        ("1.5M", 1.5e6, 1.5e6),
    ],
)
def test_a_number_as_contributors_write_it(text: str, low: float, high: float) -> None:
    from roofbot.core.reader.quantity import amount

    assert amount(text) == (low, high)


@pytest.mark.parametrize(
    ("text", "value", "unit"),
    [
        ("3.35 TB/s", 3350.0, "GB/s"),
        ("4,000 GB/s", 4000.0, "GB/s"),
        ("12.55 GiB", 12.55 * 2**30 / 1e9, "GB"),
        ("61.9 t/s", 61.9, "tok/s"),
        ("45 tok/sec", 45.0, "tok/s"),
        ("989 TFLOPS", 989.0, "TFLOPS"),
        ("700 W", 700.0, "W"),
        ("0.09 J/token", 0.09, "J/token"),
        ("12 ms", 12.0, "ms"),
        ("4.65 bpw", 4.65, "bpw"),
        ("3.1 tok/s/W", 3.1, "tok/s/W"),
    ],
)
def test_a_quantity_is_a_number_with_its_unit(text: str, value: float, unit: str) -> None:
    from roofbot.core.reader.quantity import quantities

    [q] = quantities(text)
    assert q.unit == unit and q.value == pytest.approx(value)


@pytest.mark.parametrize(
    ("unit", "rate"),
    [
        ("tok/s/W", False),
        ("tokens/s per watt", False),
        ("tok/J", False),
        ("t/s", True),
        ("tok/sec", True),
    ],
)
def test_a_rate_per_watt_is_not_a_token_rate(unit: str, rate: bool) -> None:
    from roofbot.core.inputs import unit_is_token_rate

    assert unit_is_token_rate(unit) is rate


@pytest.mark.parametrize(
    "text",
    [
        "total memory bandwidth of 26.8 TB/s across the node",
        "the node's memory bandwidth: 26.8 TB/s",
        "measured memory bandwidth of 2.9 TB/s (87% of peak)",
        "NVLink bandwidth of 900 GB/s",
        "NVLink 4.0 at 900 GB/s between GPUs",
        "26.8 TB/s aggregate across 8 GPUs, 3.35 TB/s each",
    ],
)
def test_a_bandwidth_that_is_not_this_devices_peak_is_not_read_as_it(text: str) -> None:
    """A node's total, an achieved figure, a link: what a quantity is comes from what it is
    attached to. None of these is the H100's 3.35 TB/s peak, and none displaces it."""
    inp = read(text, part="nvidia-h100-sxm")
    assert inp.bandwidth_gbps is not None and inp.bandwidth_gbps.value == 3350.0
    assert inp.other_bandwidth_gbps is None or inp.other_bandwidth_gbps.value == 3350.0


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("RTX 4090 PCIe card with 1008 GB/s GDDR6X", 1008.0),
        ("memory bandwidth of 3.35 TB/s per GPU", 3350.0),
        ("Apple M3 Max 30-core GPU 300 GB/s", 300.0),
    ],
)
def test_this_devices_peak_is_still_read(text: str, want: float) -> None:
    assert read(text, part="").bandwidth_gbps is not None
    assert read(text, part="").bandwidth_gbps.value == want  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("CoreWeave GB200 NVL72 rack", 72),
        ("GB300 NVL72 8-GPU slice", 8),
        ("a GB200 NVL36 rack", 36),
    ],
)
def test_a_rack_counts_its_parts_and_a_slice_its_own(text: str, want: int) -> None:
    assert read(text, part="nvidia-gb200-nvl72").count.value == want


def test_two_tensor_degrees_of_equal_standing_take_the_larger_as_an_assumption() -> None:
    inp = read("8x H100, TP4 in one run and TP8 in the other", part="nvidia-h100-sxm")
    assert inp.tensor_degree is not None
    assert inp.tensor_degree.value == 8 and inp.tensor_degree.assumed


def test_a_pipeline_degree_of_one_is_no_pipeline_split() -> None:
    text = "NIM profile: bfloat16 weights, tensor-parallel size 4, pipeline-parallel size 1"
    split = read(text, part="nvidia-h100-sxm").parallelism
    assert split is not None and split.value == "tensor" and not split.assumed


@pytest.mark.parametrize(
    "text",
    ["vllm serve TheBloke/Llama-2-13B-AWQ --quantization awq", "vllm serve m -q gptq_marlin"],
)
def test_a_weight_only_quantization_flag_computes_in_sixteen_bits(text: str) -> None:
    inp = read(text, part="nvidia-h100-sxm", metric="tps_aggregate")
    assert inp.compute_precision is not None and inp.compute_precision.value == "fp16"
    assert "weight-only" in inp.compute_precision.source


def test_an_article_gives_way_to_any_other_count() -> None:
    inp = read("ran on an H100 with TP=8", part="nvidia-h100-sxm")
    assert inp.count.value == 8 and not inp.count.assumed, inp.count
