"""The reader's cost as a user meets it: `roofbot check` on the users' corpus, cold, and on 10,000 generated records, beside `python -c pass` in the same run.
The targets: the corpus in under 1 s, 10,000 records in under 15 s. Prints; never asserts.

    python bench/bench_reader.py [RECORDS_REPO] [N]
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_sweep import generate  # noqa: E402  (the generated corpus's shapes)


def best_of(cmd: list[str], rounds: int = 3) -> float:
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=False, env={**os.environ, "NO_COLOR": "1"})
        times.append(time.perf_counter() - t)
    return min(times)


def check(root: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "roofbot",
        "check",
        "--repo",
        str(root),
    ]


def main() -> None:
    corpus = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parents[1] / "shared" / "records-repo"
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
    empty = best_of([sys.executable, "-c", "pass"])
    print(f"python -c pass: {empty:.3f} s")
    if corpus.is_dir():
        t = best_of(check(corpus))
        print(
            f"users' corpus ({corpus}), cold: {t:.2f} s = {t / empty:.1f}x python -c pass (target < 1 s)"
        )
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp), n)
        t = best_of(check(Path(tmp)), rounds=1)
        print(
            f"{n} generated records, cold: {t:.2f} s = {t / empty:.0f}x python -c pass (target < 15 s)"
        )


if __name__ == "__main__":
    main()
