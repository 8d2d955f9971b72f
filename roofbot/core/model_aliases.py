"""Names for catalogue models that their ids and names don't spell: the architecture names
llama.cpp prints in its `llama-bench` rows and model loaders. One line each, with the real
phrasing beside it. An alias may name several models: the size the text states picks one
(and none when no candidate has that size)."""

from __future__ import annotations

ALIASES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("deepseek2", ("deepseek-v2", "deepseek-v3"), "llama-bench: deepseek2 671B Q8_0 | 307.20 GiB | 672.05 B"),
    ("qwen3moe", ("qwen3-30b-a3b", "qwen3-235b-a22b"), "llama-bench: qwen3moe 30B.A3B Q4_K - Medium | 17.28 GiB | 30.53 B"),
    ("llama 8x7b", ("mixtral-8x7b",), "llama-bench: llama 8x7B Q4_0 | 24.63 GiB | 46.70 B (Mixtral)"),
    ("llama 8x22b", ("mixtral-8x22b",), "llama-bench: llama 8x22B Q4_K - Medium | 79.71 GiB | 140.62 B (Mixtral)"),
)  # fmt: skip
"""(alias, the catalogue ids it may name, where it is written so)."""
