"""End to end through `roofbot preview` on a real git repository: a number in a part's name is
never a count. A new record "on an RTX 4090 GPU" at 1,000% of one card's memory roof was read
as 4,090 GPUs and passed; it is a violation ("an" states one card)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from prkit import make_pull

from tests.conftest import FIXTURES

SOURCE = "data/benchmarks/local-rtx-5090-32b-q4-decode.json"
NEW = "data/benchmarks/names-qwen3-32b-rtx-4090-decode.json"


def _record(name: str, methodology: str, value: float, engine: str = "llama-cpp") -> str:
    data = json.loads((FIXTURES / SOURCE).read_text("utf-8"))
    data.update(
        id="names-qwen3-32b-rtx-4090-decode", name=name, accelerator_ids=["nvidia-rtx-4090"],
        methodology=methodology, value=value, status="draft", notes="", engine_id=engine,
    )  # fmt: skip
    return json.dumps(data, indent=2) + "\n"


def _preview(repo: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(repo.parent)}
    return subprocess.run([sys.executable, "-m", "roofbot", "preview", "--head", "pr"], cwd=repo,
                          capture_output=True, text=True, timeout=120, check=False, env=env)  # fmt: skip


@pytest.mark.parametrize(
    ("name", "methodology"),
    [
        ("Qwen3 32B Q4_K_M on an RTX 4090 GPU", "llama.cpp CUDA, batch size 1, tg128"),
        ("Qwen3 32B Q4_K_M on a Radeon RX 7900 XTX GPU", "llama.cpp ROCm, batch size 1"),
    ],
)
def test_a_record_at_ten_times_one_cards_roof_is_red(
    tmp_path: Path, name: str, methodology: str
) -> None:
    # 1008 GB/s / (32B x 4.8944 bits / 8 = 19.58 GB) = 51.5 tok/s: 515 tok/s is 1,000%
    pull = make_pull(tmp_path, {NEW: _record(name, methodology, 515.0)})
    out = _preview(pull.repo)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "violation" in out.stdout and "names-qwen3-32b-rtx-4090-decode" in out.stdout


def test_plural_cards_with_no_count_are_suspect_never_a_pass(tmp_path: Path) -> None:
    """ "RTX 4090 cards" states no count: 1 is assumed, and over the roof only through it the
    record is suspect (the report asks for the count), never a pass on 4,090 cards."""
    pull = make_pull(
        tmp_path,
        {NEW: _record("Qwen3 32B AWQ, RTX 4090 cards", "vLLM, batch size 1", 515.0, "vllm")},
    )
    out = _preview(pull.repo)
    # a suspect the pull request adds is held, never green, until the record states its count
    assert out.returncode == 1, out.stderr
    assert (
        "held: 1 suspect record" in out.stderr and "names-qwen3-32b-rtx-4090-decode" in out.stderr
    )


def test_the_same_record_within_one_cards_roof_is_green(tmp_path: Path) -> None:
    pull = make_pull(
        tmp_path,
        {NEW: _record("Qwen3 32B Q4_K_M on an RTX 4090 GPU", "llama.cpp, batch size 1", 40.0)},
    )
    out = _preview(pull.repo)
    assert out.returncode == 0, out.stdout + out.stderr
