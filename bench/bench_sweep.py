"""Whole-corpus sweep: roofbot's records/s against the floor (json.load of the same files and
nothing else), measured side by side in one run. Prints ratios; never asserts a time.

    python bench/bench_sweep.py [N]      # default 10000 generated records
"""

from __future__ import annotations

import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

from roofbot.adapters.repo import Repository
from roofbot.engine import run_check

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def generate(root: Path, n: int, seed: int = 7) -> list[Path]:
    """A corpus in the records repository's layout: the fixtures' catalogue and schemas, and
    n benchmark records drawn from the fixtures' shapes (dense, MoE, multi-GPU, batched,
    unknown-batch, broken) with fresh ids and jittered values."""
    shutil.copytree(FIXTURES / "data", root / "data", ignore=shutil.ignore_patterns("benchmarks"))
    shutil.copytree(FIXTURES / "schemas", root / "schemas")
    shapes = [
        json.loads(p.read_text()) for p in sorted((FIXTURES / "data/benchmarks").glob("*.json"))
    ]
    bench = root / "data" / "benchmarks"
    bench.mkdir(parents=True)
    rng = random.Random(seed)
    paths = []
    for i in range(n):
        rec = dict(rng.choice(shapes))
        rec["id"] = f"gen-{i:06d}-{rec['id']}"[:120]
        if isinstance(rec.get("value"), int | float):
            rec["value"] = round(rec["value"] * rng.uniform(0.5, 1.5), 3)
        p = bench / f"{rec['id']}.json"
        text = json.dumps(rec, indent=2)
        if i % 97 == 0:
            text = text[: len(text) // 2]  # a broken file now and then
        p.write_text(text)
        paths.append(p)
    return paths


def floor(paths: list[Path]) -> float:
    t = time.perf_counter()
    for p in paths:
        try:
            with p.open("rb") as fh:
                json.load(fh)
        except ValueError:
            pass
    return time.perf_counter() - t


def roofbot(root: Path) -> float:
    t = time.perf_counter()
    report = run_check(Repository.open(root), calibration=False)
    assert len(report.records) > 0
    return time.perf_counter() - t


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        paths = generate(root, n)
        floor(paths)  # warm the page cache for both
        rounds = [(floor(paths), roofbot(root)) for _ in range(3)]
        f = min(a for a, _ in rounds)
        r = min(b for _, b in rounds)
        print(f"records: {n}")
        print(f"floor (json.load only): {f:.3f} s = {n / f:,.0f} records/s")
        print(
            f"roofbot check:          {r:.3f} s = {n / r:,.0f} records/s (schema validation included)"
        )
        print(f"ratio roofbot/floor:    {r / f:.1f}x")


if __name__ == "__main__":
    main()
