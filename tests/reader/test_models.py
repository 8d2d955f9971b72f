"""The model a record ran, from the names contributors write: the catalogue's models whatever
the spelling (case, separators, ollama tags, Hugging Face repo ids, GGUF file names, quant and
format suffixes, Instruct/Chat/Coder variants of a catalogued model), never a model of another
size, generation or variant; and, where the catalogue has no such model, the sizes the name
states. Each phrasing is a real one (the users' records, the corpus's development half, the
names the model hubs and ollama publish)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from roofbot.adapters.repo import Repository
from roofbot.core.catalogue import Catalogue
from roofbot.core.model_aliases import ALIASES
from roofbot.engine import check_bytes

MATCHES = [
    # plain names, any case or separator
    ("Llama 3.1 8B", "llama-3-1-8b"),
    ("LLAMA 3.1 8B", "llama-3-1-8b"),
    ("llama_3_1_8b", "llama-3-1-8b"),
    ("Qwen2.5 72B", "qwen2-5-72b"),
    ("Qwen3 32B", "qwen3-32b"),
    # ollama tags
    ("llama3.1:8b", "llama-3-1-8b"),
    ("qwen2.5:72b-instruct-q4_K_M", "qwen2-5-72b"),
    ("qwen3:30b-a3b", "qwen3-30b-a3b"),
    ("gpt-oss:20b", "gpt-oss-20b"),
    ("mixtral:8x7b", "mixtral-8x7b"),
    # Hugging Face repo ids, with an org, a variant, a quant suffix
    ("meta-llama/Llama-3.1-8B-Instruct", "llama-3-1-8b"),
    ("mlx-community/Meta-Llama-3.1-8B-Instruct-4bit", "llama-3-1-8b"),
    ("Qwen/Qwen2.5-72B-Instruct-AWQ", "qwen2-5-72b"),
    ("mlx-community/Qwen2.5-72B-Instruct-6bit", "qwen2-5-72b"),
    ("deepseek-ai/DeepSeek-V3 (FP8 checkpoint)", "deepseek-v3"),
    ("meta-llama/Llama-4-Scout-17B-16E-Instruct", "llama-4-scout"),
    ("deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B", "deepseek-r1-distill-qwen-1p5b"),
    # GGUF file names and quant types
    ("Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", "llama-3-1-8b"),
    ("mixtral-8x7b-instruct-v0.1.Q5_K_M.gguf", "mixtral-8x7b"),
    ("TinyLlama-1.1B-Chat-v1.0 Q4_K_M", "tinyllama-1-1b-chat"),
    ("Gemma 3 4B Q8_0 GGUF", "gemma-3-4b-it"),
    # an Instruct / Coder / it variant of a catalogued model: the same parameters
    ("Qwen3-Coder-30B-A3B-Instruct, GGUF Q4_K_M, 18.63 GB", "qwen3-30b-a3b"),
    ("phi-4-mini-4bit", "phi-4-mini-instruct"),
    # mixtures of experts
    ("Mixtral 8x7B", "mixtral-8x7b"),
    ("Qwen3-30B-A3B", "qwen3-30b-a3b"),
    ("DeepSeek-V3", "deepseek-v3"),
    ("DeepSeek-V3 671B (Q4_K_M, 376.65 GiB)", "deepseek-v3"),
    ("DeepSeek-V3, 8 GPUs", "deepseek-v3"),  # a count after the name is no finer version
    # a distillation names its teacher first; the student's size says which model ran
    ("DeepSeek-R1-0528-Qwen3-8B (BF16)", "qwen3-8b"),
    # llama.cpp's architecture names (model_aliases.py): the size picks the model
    ("deepseek2 671B Q8_0 | 307.20 GiB | 672.05 B", "deepseek-v3"),
    ("qwen3moe 30B.A3B Q4_K - Medium | 17.28 GiB | 30.53 B", "qwen3-30b-a3b"),
    ("llama 8x7B Q4_0 | 24.63 GiB | 46.70 B", "mixtral-8x7b"),
]

UNMATCHED = [
    # another generation of a catalogued family
    "Llama 3 8B",
    "Meta-Llama-3-8B-Instruct.Q6_K.gguf",
    "Qwen2.5 7B",
    "DeepSeek-V3.1",
    # another size of a catalogued generation
    "Llama 3.1 70B",
    "Llama 3.1 405B FP8",
    "qwen3:14b",
    "qwen2.5-coder-32b, fp8-e4m3",
    # another variant of a catalogued model
    "DeepSeek-V2-Lite (MoE)",
    "GLM-4.5-Air",
    "DeepSeek V2 Lite",
    # a distillation into a student the catalogue lacks
    "DeepSeek-R1-Distill-Qwen-14B",
    # models the catalogue lacks
    "LLaMA 7B",
    "llama-2-7b",
    "Llama2 7B",
    "TheBloke/Llama-2-7B-GGUF",
    "llama 7B Q4_0 | 3.56 GiB | 6.74 B",
    # an alias whose stated size no candidate has (DeepSeek-V2-Lite is 15.7B)
    "deepseek2 16B Q8_0 | 15.56 GiB | 15.71 B",
]


@pytest.fixture(scope="module")
def catalogue(real_repo: Repository) -> Catalogue:
    return real_repo.catalogue()


def test_every_alias_matches_its_own_example(catalogue: Catalogue) -> None:
    for alias, ids, example in ALIASES:
        found = catalogue.match_model(example)
        assert found is not None and found.id in ids, (alias, example, found and found.id)


@pytest.mark.parametrize(("text", "want"), MATCHES)
def test_a_written_name_matches_its_catalogue_model(
    catalogue: Catalogue, text: str, want: str
) -> None:
    found = catalogue.match_model(text)
    assert found is not None and found.id == want, (text, found and found.id)


@pytest.mark.parametrize("text", UNMATCHED)
def test_a_name_of_another_model_matches_nothing(catalogue: Catalogue, text: str) -> None:
    found = catalogue.match_model(text)
    assert found is None, (text, found.id)


# (model field, params_b, active_params_b) read end to end, catalogue or not
PARAMS = [
    # catalogued: the catalogue's figures, never the name's rounding
    ("Mixtral 8x7B Instruct (32k context)", 46.7, 13.0),
    ("Qwen3-Coder-30B-A3B-Instruct Q4_K_M (18.63 GB)", 30.5, 3.3),
    ("Gemma 3 4B (bartowski GGUF) Q8_0", 4.3, 4.3),
    ("DeepSeek-R1-0528-Qwen3-8B", 8.19, 8.19),
    # uncatalogued: the sizes the name states, an ollama tag's or a repo id's alike
    ("llama3.2:3b (ollama default Q4_K_M)", 3.0, 3.0),
    ("qwen3:14b", 14.0, 14.0),
    ("MiniCPM3-4B", 4.0, 4.0),
    ("LFM2.5 350M", 0.35, 0.35),
    ("qwen3-vl:30b-a3b", 30.0, 3.0),
    ("NVIDIA-Nemotron-Nano-31B-A3-v3-Mcore-FP8-HF", 31.0, 3.0),
    # a llama-bench row: the exact count beside the nominal size
    ("llama 7B Q8_0 | 6.67 GiB | 6.74 B", 6.74, 6.74),
    # llama.cpp's name for DeepSeek V3/R1: the catalogue's figures, 37B active, not dense
    ("deepseek2 671B Q8_0 | 307.20 GiB | 672.05 B", 671.0, 37.0),
    # "16x3.8B" is not a total: an uncatalogued mixture's name gives no figure
    ("Phi-3.5-MoE-instruct 16x3.8B", None, None),
]


def _record(model: str) -> dict[str, Any]:
    return {
        "id": "models-probe",
        "type": "benchmark",
        "name": "probe: one RTX 4090, llama.cpp, batch 1 decode",
        "engine_id": "llama-cpp",
        "accelerator_ids": ["nvidia-rtx-4090"],
        "model": model,
        "format_id": None,
        "metric": "decode_tok_s",
        "value": 10.0,
        "unit": "tokens/second",
        "methodology": "llama-bench tg128, batch 1, one GPU",
        "measured_by": "third_party",
        "status": "draft",
        "confidence": 0.5,
        "updated": "2026-12-05",
        "sources": [],
    }


@pytest.mark.parametrize(("model", "total", "active"), PARAMS)
def test_the_parameters_of_a_written_name(
    real_repo: Repository,
    catalogue: Catalogue,
    model: str,
    total: float | None,
    active: float | None,
) -> None:
    raw = json.dumps(_record(model)).encode()
    result = check_bytes(
        real_repo, catalogue, "data/benchmarks/models-probe.json", raw, lambda _: None
    )
    got = {k: (i.value if i is not None else None) for k, i in dict(result.inputs).items()}
    assert got.get("params_b") == pytest.approx(total), (model, got.get("params_b"))
    assert got.get("active_params_b") == pytest.approx(active), (model, got.get("active_params_b"))
