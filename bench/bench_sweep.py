"""Whole-corpus sweep: roofbot's records/s against the floor (json.load of the same files and
nothing else), measured side by side in one run, at several corpus sizes; with --jobs 2, and
beside check-jsonschema validating the same files. Prints ratios; never asserts a time.

    python bench/bench_sweep.py [N ...]      # default: 1000 10000
"""

from __future__ import annotations

import json
import random
import resource
import shutil
import subprocess
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
    unknown-batch, long notes) with fresh ids and jittered values; 1% broken."""
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


def roofbot(root: Path, jobs: int = 1) -> float:
    t = time.perf_counter()
    report = run_check(Repository.open(root), calibration=False, jobs=jobs)
    assert len(report.records) > 0
    return time.perf_counter() - t


def check_jsonschema(root: Path, paths: list[Path]) -> float | None:
    exe = shutil.which("check-jsonschema")
    if exe is None:
        return None
    good = [str(p) for i, p in enumerate(paths) if i % 97]  # it stops at broken JSON files
    t = time.perf_counter()
    subprocess.run(
        [exe, "--schemafile", str(root / "schemas/benchmark.schema.json"), *good],
        capture_output=True,
        check=False,
    )
    return time.perf_counter() - t


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [1000, 10_000]
    print(
        "| records | floor rec/s | roofbot rec/s | ratio | --jobs 2 rec/s | speed-up | "
        "check-jsonschema rec/s | roofbot / check-jsonschema |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            paths = generate(root, n)
            floor(paths)  # warm the page cache for everyone
            rounds = [(floor(paths), roofbot(root), roofbot(root, 2)) for _ in range(2)]
            f = min(r[0] for r in rounds)
            one = min(r[1] for r in rounds)
            two = min(r[2] for r in rounds)
            cj = check_jsonschema(root, paths) if n <= 10_000 else None
            cj_text = f"{n / cj:,.0f} | {cj / one:.1f}x faster" if cj else "- | -"
            print(
                f"| {n:,} | {n / f:,.0f} | {n / one:,.0f} | {one / f:.1f}x | {n / two:,.0f} | "
                f"{one / two:.2f}x | {cj_text} |"
            )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak RSS of this process: {peak:.0f} MB")


if __name__ == "__main__":
    main()
