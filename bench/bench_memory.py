"""Peak memory of a whole-corpus sweep: generates N records (default 100,000) and runs
`roofbot check` on them in a child process, in the default text format and with
`--format json`, three times each: without the result cache, filling it, and warm from it;
reports each run's peak RSS (of the parent: workers are forked children) and records/s.

    python bench/bench_memory.py [N] [--jobs J]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_sweep import generate


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("n", type=int, nargs="?", default=100_000)
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        generate(root, args.n)
        time.sleep(2.1)  # past the cache's racy window
        for fmt in ("text", "json"):
            cmd = [sys.executable, "-m", "roofbot", "check", "--repo", str(root), "--format", fmt,
                   "--no-calibration", "--jobs", str(args.jobs),
                   "--cache-dir", str(Path(tmp) / f"cache-{fmt}")]  # fmt: skip
            runs = (("no cache", ["--no-cache"]), ("filling the cache", []), ("warm", []))
            for label, extra in runs:
                t = time.perf_counter()
                with open(Path(tmp) / "report", "wb") as out:
                    child = subprocess.Popen([*cmd, *extra], stdout=out)
                    _, _, usage = os.wait4(child.pid, 0)
                seconds = time.perf_counter() - t
                size = (Path(tmp) / "report").stat().st_size / 1e6
                print(f"{args.n:,} records, --format {fmt}, --jobs {args.jobs}, {label}: "
                      f"{seconds:.1f} s ({args.n / seconds:,.0f} records/s), peak RSS "
                      f"{usage.ru_maxrss / 1024:.0f} MB, report {size:.0f} MB")  # fmt: skip


if __name__ == "__main__":
    main()
