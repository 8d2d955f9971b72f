"""An interleaved A/B of two checkouts of roofbot on one generated corpus: each round runs a
child process per checkout (alternating which goes first) that measures the floor and a
sweep three times and prints its best ratio; the medians over the rounds compare the two.
For a change whose gain is smaller than this machine's drift: make a second checkout with
`git worktree add ../base HEAD~1`, then

    python bench/bench_ab.py MODE N ROUNDS ../base .

MODE: `json` (warm `check --format json`), `text` (warm `check`), `cold` (`check`, no cache,
one process), `check` (`check_record` alone on the parsed valid records: the stage the
extraction changes touch, with less noise than a whole sweep). Prints ratios against the
floor; never asserts a time.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_sweep import VALID_RECORDS

CHILD = (
    VALID_RECORDS
    + r"""
import sys, json, time
from pathlib import Path
sys.path.insert(0, "bench")
from bench_sweep import floor, sweep
mode, root, cache = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
paths = sorted((root / "data/benchmarks").glob("*.json"))
if mode in ("json", "text") and not cache.exists():
    sweep(root, mode, cache, fresh=True, jobs=1)
if mode == "check":  # check_record alone, on the valid records, parsed beforehand
    repo, catalogue, valid = valid_records(root)

def run():
    if mode == "check":
        t = time.perf_counter()
        for data, p in valid:
            check_record(data, p, catalogue, repo.config, repo.find_by_id)
        return time.perf_counter() - t
    if mode == "cold":
        return sweep(root, "text", jobs=1)
    return sweep(root, mode, cache, jobs=1)

print(json.dumps(min(run() / floor(paths) for _ in range(3))))
"""
)


def main() -> None:
    mode, n, rounds, *checkouts = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), *sys.argv[4:]
    dirs = [str(Path(c).resolve()) for c in checkouts]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        subprocess.run(
            [sys.executable, "-c", "import sys; sys.path.insert(0, 'bench'); "
             "from bench_sweep import generate; from pathlib import Path; "
             f"generate(Path({str(root)!r}), {n})"],
            cwd=dirs[0], check=True,
        )  # fmt: skip
        time.sleep(2.1)  # past the cache's racy window
        ratios: dict[str, list[float]] = {d: [] for d in dirs}
        for r in range(rounds):
            for d in dirs if r % 2 == 0 else dirs[::-1]:
                cache = Path(tmp) / f"cache-{dirs.index(d)}"
                env = dict(os.environ, PYTHONPATH=d)
                out = subprocess.run(
                    [sys.executable, "-c", CHILD, mode, str(root), str(cache)],
                    cwd=d, env=env, capture_output=True, text=True, check=True,
                )  # fmt: skip
                ratios[d].append(json.loads(out.stdout.strip().splitlines()[-1]))
        for d in dirs:
            v = ratios[d]
            print(f"{d}: {mode} / floor, median {statistics.median(v):.2f}x, best "
                  f"{min(v):.2f}x, all {', '.join(f'{x:.2f}' for x in v)}")  # fmt: skip


if __name__ == "__main__":
    main()
