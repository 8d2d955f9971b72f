"""Start-up: `roofbot --version` and `roofbot check` on one record, against `python -c pass`,
measured side by side (interleaved, median of N), and the heaviest imports of the check
(`python -X importtime`). Prints ratios; never asserts a time.

    python bench/bench_startup.py [N]      # default 15 runs each
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ONE = ["check", "--repo", str(ROOT / "fixtures"),
       "data/benchmarks/mpt7b-a100-bs1-per-user-decode-tps.json", "--no-calibration"]  # fmt: skip
COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "roofbot --version": [sys.executable, "-m", "roofbot", "--version"],
    "roofbot check (1 record)": [sys.executable, "-m", "roofbot", *ONE],
}


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    times: dict[str, list[float]] = {k: [] for k in COMMANDS}
    for _ in range(n):
        for name, cmd in COMMANDS.items():
            t = time.perf_counter()
            subprocess.run(cmd, capture_output=True, check=False)
            times[name].append(time.perf_counter() - t)
    base = statistics.median(times["python -c pass"])
    for name, ts in times.items():
        m = statistics.median(ts)
        print(f"{name:<26} {m * 1000:7.0f} ms  {m / base:5.2f}x python -c pass")
    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "roofbot", *ONE],
                         capture_output=True, text=True, check=False).stderr  # fmt: skip
    rows = []
    for line in out.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].rstrip()))
    print("\nheaviest imports of `roofbot check` (cumulative microseconds):")
    for us, name in sorted(rows, reverse=True)[:12]:
        print(f"{us:9d}  {name}")
    loaded = {name.strip() for _, name in rows}
    for heavy in ("github", "jinja2", "jsonschema", "matplotlib"):
        print(f"{heavy:<11} imported by `check`: {'yes' if heavy in loaded else 'no'}")


if __name__ == "__main__":
    main()
