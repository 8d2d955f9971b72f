"""Whole-corpus sweep: `roofbot check` (the default text report, and `--format json`), run as
the CLI runs it with the report written out, against the floor (the same files read and
parsed by `json.loads`, and nothing else), measured side by side in one run at several corpus
sizes, and beside check-jsonschema validating the same files. Prints ratios; never asserts a
time. Also the generator of the corpora the other bench scripts use (`generate`).

    python bench/bench_sweep.py [N ...]      # default: 1000 10000 (100000: one round, ~10 min)
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

from click.testing import CliRunner

from roofbot.cli import cli

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
    """Reading and parsing every file and nothing else, with the standard library's reader
    (the one roofbot uses), as fast as Python does it: the paths are strings made before the
    clock starts (pathlib's open costs about 3 µs more a file)."""
    names = [str(p) for p in paths]
    loads = json.loads
    t = time.perf_counter()
    for name in names:
        try:
            with open(name, "rb") as fh:
                loads(fh.read())
        except ValueError:
            pass
    return time.perf_counter() - t


def sweep(root: Path, fmt: str = "text") -> float:
    """One `roofbot check --format FMT` as the CLI runs it, in this process: open the
    repository, check every record, calibrate, and write the whole report."""
    t = time.perf_counter()
    CliRunner().invoke(cli, ["check", "--repo", str(root), "--format", fmt, "-q"])
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
        "| records | floor rec/s | cold rec/s | cold | cold `--format json` | "
        "check-jsonschema rec/s | cold against it |"
    )
    print("|---|---|---|---|---|---|---|")
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "repo"
            paths = generate(root, n)
            floor(paths)  # warm the page cache for everyone
            rounds = []
            for _ in range(2 if n < 100_000 else 1):  # interleaved: like compares with like
                rounds.append(
                    (
                        floor(paths),
                        sweep(root, "text"),
                        sweep(root, "json"),
                        check_jsonschema(root, paths) if n <= 10_000 else None,
                    )
                )
            f, cold, cold_json = (min(r[i] for r in rounds) for i in range(3))
            cjs = [r[3] for r in rounds if r[3] is not None]
            cj = min(cjs) if cjs else None  # (each side's best round, like the rest)
            cj_text = f"{n / cj:,.0f} | {cj / cold:.2f}x" if cj else "- | -"
            print(
                f"| {n:,} | {n / f:,.0f} | {n / cold:,.0f} | {cold / f:.1f}x | "
                f"{cold_json / f:.1f}x | {cj_text} |"
            )
    print(
        "\n(each ratio: time over the floor's time, measured in the same round; against "
        "check-jsonschema: its time over roofbot's, above 1 when roofbot is faster)"
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of this process: {peak:.0f} MB")


if __name__ == "__main__":
    main()
