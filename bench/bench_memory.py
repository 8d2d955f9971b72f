"""Peak memory of a whole-corpus sweep: generates N records (default 100,000) and runs
`roofbot check --format json` on them in a child process, three times: without the result
cache, filling it, and warm from it; reports each run's peak RSS and records/s.

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
        cmd = [sys.executable, "-m", "roofbot", "check", "--repo", str(root), "--format", "json",
               "--no-calibration", "--jobs", str(args.jobs),
               "--cache-dir", str(Path(tmp) / "cache")]  # fmt: skip
        for label, extra in (("no cache", ["--no-cache"]), ("filling the cache", []), ("warm", [])):
            t = time.perf_counter()
            with open(Path(tmp) / "report.json", "wb") as out:
                child = subprocess.Popen([*cmd, *extra], stdout=out)
                _, _, usage = os.wait4(child.pid, 0)
            seconds = time.perf_counter() - t
            size = (Path(tmp) / "report.json").stat().st_size / 1e6
            print(f"{args.n:,} records, --jobs {args.jobs}, {label}: {seconds:.1f} s "
                  f"({args.n / seconds:,.0f} records/s), peak RSS {usage.ru_maxrss / 1024:.0f} MB, "
                  f"JSON report {size:.0f} MB")  # fmt: skip


if __name__ == "__main__":
    main()
