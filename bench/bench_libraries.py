"""Choosing the JSON reader and the schema validator by measurement: each candidate on the
same bytes and the same parsed records, interleaved over rounds (best of each), on a
generated corpus and on the users' records; then what each validator costs a process before
its first record (import and compiling the repository's schemas), in fresh processes.

    python bench/bench_libraries.py [N] [RECORDS_REPO]   # default: 3000 ../shared/records-repo

Candidates that are not installed are skipped (`pip install -e '.[bench]'` installs them).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_sweep import generate

from roofbot.adapters.jsonfile import RecordFileError, parse_record_bytes, parse_record_bytes_stdlib
from roofbot.adapters.schemas import Schemas

ROUNDS = 7


def _refusing(read: Callable[[bytes], Any]) -> Callable[[bytes], Any]:
    def run(raw: bytes) -> Any:
        try:
            return read(raw)
        except (ValueError, RecordFileError):  # every reader's refusal is a ValueError
            return None

    return run


def readers() -> dict[str, Callable[[bytes], Any]]:
    out: dict[str, Callable[[bytes], Any]] = {
        "json.loads (the standard library, no rules)": _refusing(json.loads),
        "roofbot's reference reader (json.loads, a hook for each rule)": _refusing(
            parse_record_bytes_stdlib
        ),
        "**roofbot's reader** (orjson, the reference where in doubt)": _refusing(
            parse_record_bytes
        ),
    }
    import orjson

    out["orjson.loads (no rules)"] = _refusing(orjson.loads)
    try:
        import msgspec

        out["msgspec.json.decode (no rules)"] = _refusing(msgspec.json.Decoder().decode)
    except ImportError:
        print("msgspec not installed: skipped", file=sys.stderr)
    return out


def validators(schemas: Schemas) -> dict[str, Callable[[Any], bool]]:
    """The benchmark schema's validators: roofbot's own two as it builds them, and
    fastjsonschema on the same schema."""
    authority, fast = schemas.validator("benchmark"), schemas.fast("benchmark")
    assert authority is not None and fast is not None, "the benchmark schema must compile"
    out: dict[str, Callable[[Any], bool]] = {"jsonschema (the authority)": authority.is_valid}
    try:
        import fastjsonschema

        compiled = fastjsonschema.compile(schemas.schema("benchmark"))

        def fastjson(record: Any) -> bool:
            try:
                compiled(record)
                return True
            except Exception:
                return False

        out["fastjsonschema"] = fastjson
    except ImportError:
        print("fastjsonschema not installed: skipped", file=sys.stderr)
    out["**jsonschema-rs** (roofbot's)"] = fast
    return out


def per_record(fns: dict[str, Callable[[Any], Any]], items: list[Any]) -> dict[str, float]:
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(ROUNDS):
        for name, fn in fns.items():
            t = time.perf_counter()
            for item in items:
                fn(item)
            best[name] = min(best[name], (time.perf_counter() - t) / len(items) * 1e6)
    return best


def corpus(root: Path) -> tuple[list[bytes], list[dict[str, Any]], Schemas]:
    raws = [p.read_bytes() for p in sorted((root / "data" / "benchmarks").glob("*.json"))]
    records = []
    for raw in raws:
        with contextlib.suppress(RecordFileError):
            records.append(parse_record_bytes_stdlib(raw).data)
    return raws, records, Schemas(root / "schemas")


def table(title: str, rows: dict[str, list[float]], columns: list[str], base: str) -> None:
    print(
        f"| {title} | "
        + " | ".join(f"µs a record, {c}" for c in columns)
        + f" | against {base.split(' (')[0]} |"
    )
    print("|---|" + "---|" * (len(columns) + 1))
    for name, values in rows.items():
        ratio = " / ".join(f"{v / b:.2f}x" for v, b in zip(values, rows[base], strict=True))
        print(f"| {name} | " + " | ".join(f"{v:.2f}" for v in values) + f" | {ratio} |")
    print()


START_UP = r"""
import json, sys, time
from pathlib import Path
import roofbot.cli, roofbot.engine, roofbot.core.check  # what a run has loaded by then
from roofbot.adapters.schemas import Schemas
folder = Schemas(Path(sys.argv[2]))
types = [p.name.split(".")[0] for p in sorted(Path(sys.argv[2]).glob("*.schema.json"))]
schemas = [folder.schema(t) for t in types]  # read and parsed before the clock
t0 = time.perf_counter()
if sys.argv[1] == "fastjsonschema":
    import fastjsonschema
    t1 = time.perf_counter()
    for s in schemas:
        fastjsonschema.compile(s)
else:
    import jsonschema_rs
    t1 = time.perf_counter()
    for t in types:
        assert folder.fast(t) is not None  # as roofbot builds it
t2 = time.perf_counter()
print(json.dumps([t1 - t0, (t2 - t1) / len(schemas)]))
"""


def start_up(schema_folder: Path) -> None:
    print(
        f"| before the first record ({schema_folder}, best of {ROUNDS} fresh processes) | import, ms | compiling one schema, ms |"
    )
    print("|---|---|---|")
    for lib in ("fastjsonschema", "jsonschema_rs"):
        runs = []
        for _ in range(ROUNDS):
            out = subprocess.run(
                [sys.executable, "-c", START_UP, lib, str(schema_folder)],
                capture_output=True, text=True, check=False,
            )  # fmt: skip
            if out.returncode:
                print(f"| {lib} | not installed | |")
                break
            runs.append(json.loads(out.stdout))
        else:
            print(
                f"| {lib} | {min(r[0] for r in runs) * 1e3:.1f} | {min(r[1] for r in runs) * 1e3:.2f} |"
            )
    print()


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    real = Path(
        sys.argv[2]
        if len(sys.argv) > 2
        else os.environ.get("ROOFBOT_RECORDS_REPO") or "../shared/records-repo"
    )
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp), n)
        sets = {f"{n:,} generated": corpus(Path(tmp))}
        if real.is_dir():
            sets[f"the users' {len(corpus(real)[0])}"] = corpus(real)
        reads = {k: per_record(readers(), raws) for k, (raws, _, _) in sets.items()}
        checks = {k: per_record(validators(sch), recs) for k, (_, recs, sch) in sets.items()}
        cols = list(sets)
        r_names, v_names = list(next(iter(reads.values()))), list(next(iter(checks.values())))
        table("reader", {n_: [reads[c][n_] for c in cols] for n_ in r_names}, cols, r_names[0])
        table(
            "validator (valid records)",
            {n_: [checks[c][n_] for c in cols] for n_ in v_names},
            cols,
            v_names[0],
        )
        start_up(Path(tmp) / "schemas")


if __name__ == "__main__":
    main()
