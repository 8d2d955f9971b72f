"""The worked examples of docs/traps.md: each trap on a fixture record, either as it is or with
one field changed. `python docs/examples.py` prints them; tests/test_docs.py runs them and
checks that the page shows what roofbot prints."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

#: trap id -> (fixture record id, {field: new value} or {} for the record as it is);
#: a key ending in "+" appends to that field's text.
EXAMPLES: dict[str, tuple[str, dict[str, object]]] = {
    "batch-1-roof-on-aggregate": ("mpt7b-a100-bs64-aggregate-output-tps", {}),
    "unknown-batch-is-not-batch-1": ("bench-mlperf-v6-1-amd-mi355x-llama2-70b-offline", {}),
    "moe-total-vs-active": ("mlx-m4-max-qwen3-30b-a3b-4bit-decode-tok-s", {}),
    "hardware-part-variant": ("apple-m4-pro-llama3-2-3b-ollama-system-joules-per-token", {}),
    "not-a-token-rate": ("alt-tpu-v6e-bf16-tps", {}),
    "bandwidth-derived-figure": (
        "local-rtx-5080-32b-q4-decode",
        {
            "value": 48,
            "notes": "Estimated from memory bandwidth: 960 GB/s divided by the file size.",
        },
    ),
    "per-user-vs-aggregate": ("mpt7b-a100-bs64-aggregate-output-tps", {"value": 700}),
    "speculative-decoding": (
        "mpt7b-a100-bs1-per-user-decode-tps",
        {
            "value": 150,
            "methodology+": " Run with EAGLE speculative decoding, 2.5 accepted tokens per step.",
        },
    ),
    "sparse-peak": (
        "local-rtx-pro-6000-70b-q8-decode",
        {"value": 20, "model": "Llama 3.3 70B (NVFP4)", "format_id": "nvfp4"},
    ),
}


def explain(trap: str) -> str:
    """`roofbot explain` of the example, on a copy of fixtures/ when a field is changed."""
    rid, edits = EXAMPLES[trap]
    with tempfile.TemporaryDirectory() as tmp:
        repo = FIXTURES
        if edits:
            repo = Path(tmp) / "repo"
            shutil.copytree(FIXTURES, repo, ignore=shutil.ignore_patterns("broken"))
            path = repo / "data" / "benchmarks" / f"{rid}.json"
            record = json.loads(path.read_text())
            for key, value in edits.items():  # "field+" appends to the field's text
                if key.endswith("+"):
                    record[key[:-1]] = f"{record[key[:-1]]}{value}"
                else:
                    record[key] = value
            path.write_text(json.dumps(record, indent=2))
        out = subprocess.run(
            [sys.executable, "-m", "roofbot", "explain", "--repo", str(repo), rid],
            capture_output=True, text=True, check=True, timeout=120,
        )  # fmt: skip
    return out.stdout


if __name__ == "__main__":
    for trap in sys.argv[1:] or EXAMPLES:
        print(f"### {trap}  {EXAMPLES[trap]}")
        print(explain(trap))
