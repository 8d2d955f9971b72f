"""Published measurements in the repository's format (`published/`: a llama.cpp scoreboard's
rows, an MLPerf row; facts and figures only, the prose ours), read and checked end to end. The
ground truth is computed by hand here, as the seed's figures are: each assertion shows its sum."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from roofbot.core.catalogue import build_catalogue
from roofbot.core.check import check_record
from roofbot.core.config import Config
from roofbot.core.results import CheckId, RecordResult, Verdict

HERE = Path(__file__).resolve().parent / "published"
GIB = 2**30

# The parts, with the vendors' figures (decimal GB/s; dense TFLOPS).
CATALOGUE = build_catalogue(
    accelerators=[
        {"id": "apple-m2-ultra", "name": "Apple M2 Ultra (Mac Studio, 2023)",
         "memory_bandwidth_gbps": 800, "vram_gb": 192, "flops": []},
        {"id": "apple-m1-max", "name": "Apple M1 Max (MacBook Pro, 2021)",
         "memory_bandwidth_gbps": 400, "vram_gb": 64, "flops": []},
        {"id": "nvidia-h200-sxm", "name": "NVIDIA H200 SXM 141GB", "memory_bandwidth_gbps": 4800,
         "vram_gb": 141, "flops": [{"precision": "bf16", "tflops": 989.5, "dense": True},
                                   {"precision": "fp8", "tflops": 1979, "dense": True}]},
    ],
    quantization=[{"id": "gguf-q4-0", "name": "GGUF Q4_0", "bits": "4.5"}],
)  # fmt: skip


def check(rid: str) -> RecordResult:
    record = json.loads((HERE / f"{rid}.json").read_text())
    return check_record(record, f"data/benchmarks/{rid}.json", CATALOGUE, Config())


def roof(r: RecordResult, which: CheckId) -> tuple[float, float, bool]:
    c = next(c for c in r.checks if c.check is which)
    return c.ceiling, c.percent, c.applies


def test_m2_ultra_q4_0_tg128_is_45_0_percent_of_its_roof() -> None:
    r = check("llamacpp-m2-ultra-76c-llama-7b-q4-0-tg128")
    weights = 3.56 * GIB  # stated in `model`: 3.822e9 bytes
    ceiling, percent, applies = roof(r, CheckId.MEMORY)
    assert ceiling == pytest.approx(800e9 / weights, rel=1e-6)  # 209.28 tok/s
    assert round(percent, 1) == 45.0 and applies  # 94.27 / 209.28
    assert r.verdict is Verdict.PASS
    inputs = dict(r.inputs)
    assert inputs["batch"].value == 1 and "tg128" in inputs["batch"].source
    assert inputs["count"].value == 1  # "pp512" is a prompt test, not a pipeline or a count


def test_m2_ultra_f16_is_69_1_percent() -> None:
    r = check("llamacpp-m2-ultra-76c-llama-7b-f16-tg128")
    ceiling, percent, _ = roof(r, CheckId.MEMORY)
    assert ceiling == pytest.approx(800e9 / (12.55 * GIB), rel=1e-6)  # 59.37 tok/s
    assert round(percent, 1) == 69.1  # 41.02 / 59.37


def test_m1_max_named_only_in_the_methodology_resolves_and_is_58_5_percent() -> None:
    r = check("llamacpp-m1-max-32c-llama-7b-q4-0-tg128")
    inputs = dict(r.inputs)
    assert inputs["part"].value == "apple-m1-max"
    assert inputs["count"].value == 1 and not inputs["count"].assumed  # a MacBook Pro: one chip
    _, percent, _ = roof(r, CheckId.MEMORY)
    assert round(percent, 1) == 58.5  # 61.19 / (400e9 / 3.822e9 = 104.64)


def test_mlperf_h200_row_is_bounded_by_the_compute_roof_alone() -> None:
    r = check("mlperf-v4-0-nvidia-8x-h200-llama2-70b-offline")
    inputs = dict(r.inputs)
    # 8 GPUs; the 2x Xeon and the PCIe x16 links are not accelerators
    assert inputs["count"].value == 8 and not inputs["count"].assumed
    assert "batch" not in inputs  # Offline: not a fixed published number
    assert inputs["compute_precision"].value == "fp8"
    ceiling, percent, applies = roof(r, CheckId.COMPUTE)
    assert ceiling == pytest.approx(8 * 1979e12 / (2 * 70e9))  # 113,085.7 tok/s
    assert round(percent, 1) == 28.0 and applies  # 31,712 / 113,085.7
    _, naive, applied = roof(r, CheckId.MEMORY)
    assert not applied and naive > 100  # the batch-1 roof would condemn a legal aggregate
    assert "unknown-batch-is-not-batch-1" in r.traps
    assert r.verdict is Verdict.PASS
