"""Peak memory of a whole-corpus sweep: generates N records (default 100,000) and runs
`roofbot check --format json` on them in a child process, reporting its peak RSS and records/s.

    python bench/bench_memory.py [N] [--jobs J]
"""

from __future__ import annotations

import argparse
import resource
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
        root = Path(tmp)
        generate(root, args.n)
        cmd = [sys.executable, "-m", "roofbot", "check", "--repo", str(root), "--format", "json",
               "--no-calibration", "--jobs", str(args.jobs)]  # fmt: skip
        t = time.perf_counter()
        with open(root / "report.json", "wb") as out:
            subprocess.run(cmd, stdout=out, check=False)
        seconds = time.perf_counter() - t
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        size = (root / "report.json").stat().st_size / 1e6
        print(f"{args.n:,} records, --jobs {args.jobs}: {seconds:.1f} s "
              f"({args.n / seconds:,.0f} records/s), peak RSS {peak:.0f} MB, "
              f"JSON report {size:.0f} MB")  # fmt: skip


if __name__ == "__main__":
    main()
