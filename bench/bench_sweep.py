"""Whole-corpus sweep: `roofbot check` (the default text report, and `--format json`), run as
the CLI runs it with the report written out, against the floor (the same files read and
parsed by orjson, the reader roofbot uses, and nothing else), measured side by side in one run, at several corpus sizes: cold (no
cache, on one process), filling the result cache, warm (every record from the cache), cold
on the default --jobs (every CPU), warm forced onto two processes, and beside
check-jsonschema validating the same files. Runs use the CLI's default --jobs unless a
column says otherwise. Prints ratios; never asserts a time.

    python bench/bench_sweep.py [N ...]      # default: 1000 10000 (100000: one round, ~10 min)
"""

from __future__ import annotations

import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from roofbot.adapters.cache import CacheSpec
from roofbot.adapters.repo import Repository
from roofbot.cli import _stream_json, _stream_text
from roofbot.engine import CacheStats

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


VALID_RECORDS = r"""
from roofbot.adapters.jsonfile import MAX_BYTES, RecordFileError, parse_record_bytes
from roofbot.adapters.repo import Repository
from roofbot.core.check import check_record


def valid_records(root):
    # the repository, its catalogue and its valid records, parsed: what check_record takes
    repo = Repository.open(root)
    catalogue, valid = repo.catalogue(), []
    for p in repo.record_paths():
        try:
            parsed = parse_record_bytes(repo.tree.read(p, MAX_BYTES))
        except RecordFileError:
            continue
        if repo.validate(p, parsed) is None:
            valid.append((parsed.data, p))
    return repo, catalogue, valid
"""
"""Child-process code (bench_ab.py, bench_instructions.py) that runs `check_record` alone:
source text, so that it runs against whichever checkout the child imports roofbot from."""


def valid_records(root: Path) -> tuple[Any, Any, list[tuple[dict[str, Any], str]]]:
    """VALID_RECORDS' `valid_records`, run in this process (bench_parts.py)."""
    scope: dict[str, Any] = {}
    exec(VALID_RECORDS, scope)
    return scope["valid_records"](root)


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
    """Reading and parsing every file and nothing else, with the reader roofbot uses
    (orjson; json.load before roofbot used it), as fast as Python does it: the paths are
    strings made before the clock starts (pathlib's open costs about 3 µs more a file)."""
    names = [str(p) for p in paths]
    loads = orjson.loads
    t = time.perf_counter()
    for name in names:
        try:
            with open(name, "rb") as fh:
                loads(fh.read())
        except ValueError:
            pass
    return time.perf_counter() - t


def sweep(
    root: Path, fmt: str = "text", cache: Path | None = None, fresh: bool = False, jobs: int = 0
) -> float:
    """One `roofbot check` (`--format json` with fmt="json") as the CLI runs it, in this
    process, with its default `--jobs` unless told: open the repository, fingerprint (with a
    cache), check every record, calibrate, and write the whole report (to /dev/null)."""
    if fresh and cache is not None:
        shutil.rmtree(cache, ignore_errors=True)
    t = time.perf_counter()
    repo = Repository.open(root)
    spec = CacheSpec.for_repo(repo, cache, root) if cache is not None else None
    stats = CacheStats()
    with open(os.devnull, "w", encoding="utf-8") as sink:
        if fmt == "json":
            _stream_json(repo, None, True, jobs, None, spec, stats, sink)
        else:
            _stream_text(repo, None, True, jobs, None, spec, stats, False, False, False, sink)
    elapsed = time.perf_counter() - t
    assert not stats.warnings, stats.warnings
    if cache is not None and not fresh:  # warm: every record, the broken files' errors too
        assert stats.misses == 0, (stats.hits, stats.misses)
    return elapsed


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
        "| records | floor rec/s | cold, one process | cold `--format json`, one process | "
        "filling the cache | warm rec/s | **warm** | warm `--format json` rec/s | "
        "**warm `--format json`** | cold on the default `--jobs`: speed-up | "
        "warm forced onto `--jobs 2` | check-jsonschema rec/s | cold (one process) against "
        "it | cold (default `--jobs`) against it | warm against it |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "repo"
            cache, cache_json = Path(tmp) / "cache", Path(tmp) / "cache-json"
            paths = generate(root, n)
            floor(paths)  # warm the page cache for everyone
            time.sleep(2.1)  # past the cache's racy window: warm runs hit on signatures
            rounds = []
            for _ in range(2 if n < 100_000 else 1):  # interleaved: like compares with like
                fill = sweep(root, "text", cache, fresh=True)
                sweep(root, "json", cache_json, fresh=True)
                rounds.append(
                    (
                        floor(paths),
                        sweep(root, "text", jobs=1),
                        sweep(root, "json", jobs=1),
                        fill,
                        sweep(root, "text", cache),
                        sweep(root, "json", cache_json),
                        sweep(root, "text"),
                        sweep(root, "text", cache, jobs=2),
                        check_jsonschema(root, paths) if n <= 10_000 else None,
                    )
                )
            f, cold, cold_json, fill, warm, warm_json, two, warm_two = (
                min(r[i] for r in rounds) for i in range(8)
            )
            cjs = [r[8] for r in rounds if r[8] is not None]
            cj = min(cjs) if cjs else None  # (each side's best round, like the rest)
            cj_text = (
                f"{n / cj:,.0f} | {cj / cold:.2f}x | {cj / two:.2f}x | {cj / warm:.1f}x faster"
                if cj
                else "- | - | - | -"
            )
            print(
                f"| {n:,} | {n / f:,.0f} | {cold / f:.1f}x | {cold_json / f:.1f}x | "
                f"{fill / cold:.2f}x cold | {n / warm:,.0f} | **{warm / f:.2f}x** | "
                f"{n / warm_json:,.0f} | **{warm_json / f:.2f}x** | {cold / two:.2f}x | "
                f"{warm_two / f:.2f}x | {cj_text} |"
            )
    print(
        "\n(each ratio: time over the floor's time, measured in the same round; against "
        "check-jsonschema: its time over roofbot's, above 1 when roofbot is faster)"
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of this process: {peak:.0f} MB")


if __name__ == "__main__":
    main()
