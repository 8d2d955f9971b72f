"""Where a cold sweep's time goes, stage by stage, on a generated corpus: listing, reading,
strict parsing, schema validation and `check_record`, in µs a record, beside the floor
(the same files read and parsed by orjson, roofbot's reader). Three rounds, interleaved; prints the best of each.

    python bench/bench_stages.py [N]      # default: 3000
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_sweep import floor, generate

from roofbot.adapters.jsonfile import MAX_BYTES, RecordFileError, parse_record_bytes
from roofbot.adapters.repo import Repository
from roofbot.adapters.tree import safe_relpath
from roofbot.core.check import check_record

STAGES = ("floor (orjson.loads)", "listing", "reading", "strict parse", "schema", "check_record")


def one_round(root: Path) -> dict[str, float]:
    repo = Repository.open(root)
    catalogue = repo.catalogue()
    spent = dict.fromkeys(STAGES, 0.0)
    t = time.perf_counter()
    paths = repo.record_paths()
    spent["listing"] = time.perf_counter() - t
    spent["floor (orjson.loads)"] = floor([root / p for p in paths])
    for p in paths:
        t0 = time.perf_counter()
        raw = repo.tree.read(safe_relpath(p), MAX_BYTES)
        t1 = time.perf_counter()
        try:
            parsed = parse_record_bytes(raw)
        except RecordFileError:
            continue
        t2 = time.perf_counter()
        problem = repo.validate(p, parsed)
        t3 = time.perf_counter()
        if problem is None:
            check_record(parsed.data, p, catalogue, repo.config, repo.find_by_id)
        t4 = time.perf_counter()
        spent["reading"] += t1 - t0
        spent["strict parse"] += t2 - t1
        spent["schema"] += t3 - t2
        spent["check_record"] += t4 - t3
    return {k: v / len(paths) * 1e6 for k, v in spent.items()}


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        generate(root, n)
        rounds = [one_round(root) for _ in range(3)]
    print(f"| stage ({n:,} generated records) | µs a record (best of 3) |")
    print("|---|---|")
    for stage in STAGES:
        print(f"| {stage} | {min(r[stage] for r in rounds):.1f} |")


if __name__ == "__main__":
    main()
