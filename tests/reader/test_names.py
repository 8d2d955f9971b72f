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
