"""roofbot against check-jsonschema, as a user runs each: whole processes, start-up included,
on the same generated corpus (check-jsonschema gets the files that parse: it stops at a broken
one). Alternates `roofbot check` and check-jsonschema against the repository's own schema, ROUNDS times; prints every time,
the medians and the bests, and check-jsonschema's time over roofbot's (above 1: roofbot is
faster). A cold roofbot validates, checks and reports every record; check-jsonschema only
validates.

    python bench/bench_vs_jsonschema.py [N] [ROUNDS]      # default: 10000 7
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_sweep import generate


def timed(args: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(args, capture_output=True, check=False)
    return time.perf_counter() - t


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    exe = shutil.which("check-jsonschema")
    if exe is None:
        raise SystemExit("check-jsonschema is not installed (pip install check-jsonschema)")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        paths = generate(root, n)
        good = [str(p) for i, p in enumerate(paths) if i % 97]  # bench_sweep: every 97th broken
        runs = {
            "roofbot": [sys.executable, "-m", "roofbot", "check", "--repo", str(root), "-q"],
            "check-jsonschema": [exe, "--schemafile",
                                 str(root / "schemas/benchmark.schema.json"), *good],
        }  # fmt: skip
        times: dict[str, list[float]] = {k: [] for k in runs}
        for i in range(rounds):
            order = list(runs) if i % 2 == 0 else list(reversed(runs))  # neither always first
            for name in order:
                times[name].append(timed(runs[name]))
    cj = times["check-jsonschema"]
    print(f"| {n:,} records, {rounds} rounds | median s | best s | check-jsonschema's "
          "over it, medians | bests | every run (s) |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    for name, ts in times.items():
        med, best = statistics.median(ts), min(ts)
        print(
            f"| {name} | {med:.2f} | {best:.2f} | {statistics.median(cj) / med:.2f}x | "
            f"{min(cj) / best:.2f}x | {', '.join(f'{t:.2f}' for t in ts)} |"
        )


if __name__ == "__main__":
    main()
