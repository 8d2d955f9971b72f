"""Instructions, not seconds: an A/B of checkouts of roofbot counted by valgrind's cachegrind,
for changes smaller than this machine's drift (wall-clock A/B runs here spread by 30% between
rounds; an instruction count is the same on every run). It is a proxy: it does not see cache
misses or branch mispredictions, so a change is kept on its wall-clock A/B too where that can
tell.

    python bench/bench_instructions.py MODE N CHECKOUT [CHECKOUT ...]
    python bench/bench_instructions.py check REPO CHECKOUT [CHECKOUT ...]

MODE: `check` (`check_record` on the parsed valid records of a generated corpus of N, or of
a records repository such as the users' corpus), `cold` (`roofbot check --no-cache --jobs 1`
over it, less the same run on a corpus of a tenth as many records, so that start-up and every
cost paid once, as compiling a pattern on first use, cancel; and check-jsonschema on the same
files where it is installed, less its run on a tenth of them), `cold-json` (the same
run with `--format json`, which writes every record's JSON), `warm` and `warm-json`
(`roofbot check --jobs 1`, in text or `--format json`, from a cache each checkout filled
beforehand, less the same on the tenth). Prints instructions a record for each checkout and
the ratio to the first. Needs valgrind; never asserts. (Valgrind counts the process's own
instructions: a warm record's `lstat`, spent in the kernel, is not among them.)
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_sweep import VALID_RECORDS, generate

CHECK = (
    VALID_RECORDS
    + r"""
import gc, sys
from pathlib import Path
repo, catalogue, valid = valid_records(Path(sys.argv[1]))
for data, p in valid:  # a first pass: what is built on first use (a pattern) is set-up too
    check_record(data, p, catalogue, repo.config, repo.find_by_id)
gc.freeze()  # as a sweep: the set-up's objects are not walked again
gc.set_threshold(10_000, *gc.get_threshold()[1:])  # engine.SWEEP_GEN0
for _ in range(int(sys.argv[2])):
    for data, p in valid:
        check_record(data, p, catalogue, repo.config, repo.find_by_id)
print(len(valid))
"""
)


def instructions(args: list[str], cwd: Path) -> tuple[int, str]:
    """Instructions the command ran (valgrind counts the whole process), and its stdout."""
    out = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
         sys.executable, *args],
        cwd=cwd, capture_output=True, text=True, check=False,
        env={**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(cwd)},
    )  # fmt: skip
    m = re.search(r"I\s+refs:\s+([\d,]+)", out.stderr)
    if out.returncode not in (0, 1):  # 1: a report with failures; 2 and up: the run broke
        raise SystemExit(f"{args} exited {out.returncode}:\n{out.stderr[-2000:]}")
    if m is None:
        raise SystemExit(f"valgrind said:\n{out.stderr[-2000:]}")
    return int(m[1].replace(",", "")), out.stdout


def per_record(mode: str, checkout: Path, root: Path, tenth: Path) -> float:
    if mode == "check":
        base, _ = instructions(["-c", CHECK, str(root), "0"], checkout)
        full, valid = instructions(["-c", CHECK, str(root), "2"], checkout)
        return (full - base) / (2 * int(valid))
    run = ["-m", "roofbot", "check", "--no-cache", "--jobs", "1", "-q", "--repo"]
    if mode == "cold-json":
        run[3:3] = ["--format", "json"]
    if mode.startswith("warm"):
        cache = root.parent / f"cache-{abs(hash(str(checkout)))}"
        fmt = ["--format", "json"] if mode == "warm-json" else []
        run = ["-m", "roofbot", "check", *fmt, "--cache-dir", str(cache), "--jobs", "1", "-q"]
        for corpus in (tenth, root):  # fill the cache, at full speed
            subprocess.run(
                [sys.executable, *run, "--repo", str(corpus)], cwd=checkout, capture_output=True,
                check=False, env={**os.environ, "PYTHONPATH": str(checkout)},
            )  # fmt: skip
        run.append("--repo")
    base, _ = instructions([*run, str(tenth)], checkout)
    full, _ = instructions([*run, str(root)], checkout)
    return (full - base) / (records(root) - records(tenth))


def records(root: Path) -> int:
    return len(list((root / "data/benchmarks").glob("*.json")))


def jsonschema_per_record(root: Path) -> float | None:
    """check-jsonschema on the corpus's files that parse (it stops at a broken one), less
    the same on a tenth of them, a file; None where it is not installed."""
    if importlib.util.find_spec("check_jsonschema") is None:
        return None
    good = [
        str(p) for i, p in enumerate(sorted((root / "data/benchmarks").glob("*.json"))) if i % 97
    ]
    run = ["-m", "check_jsonschema", "--schemafile", str(root / "schemas/benchmark.schema.json")]
    tenth = good[: len(good) // 10]
    full, _ = instructions([*run, *good], root)
    part, _ = instructions([*run, *tenth], root)
    return (full - part) / (len(good) - len(tenth))


def main() -> None:
    if len(sys.argv) < 4 or sys.argv[1] not in ("check", "cold", "cold-json", "warm", "warm-json"):
        raise SystemExit(__doc__)
    mode, n, checkouts = sys.argv[1], sys.argv[2], [Path(c).resolve() for c in sys.argv[3:]]
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed")
    if mode == "check" and Path(n).is_dir():  # a real corpus: its records, read as they are
        counts = [per_record(mode, c, Path(n).resolve(), Path()) for c in checkouts]
        table(f"check: instructions a record ({n})", checkouts, counts)
        return
    with tempfile.TemporaryDirectory() as tmp:
        root, tenth = Path(tmp) / "corpus", Path(tmp) / "tenth"
        generate(root, int(n))
        generate(tenth, int(n) // 10)
        time.sleep(2.1)  # past the cache's racy window: a warm run hits on every signature
        counts = [per_record(mode, c, root, tenth) for c in checkouts]
        cj = jsonschema_per_record(root) if mode == "cold" else None
    table(f"{mode}: instructions a record ({int(n):,} generated)", checkouts, counts)
    if cj is not None:
        print(f"| check-jsonschema (validates only) | {cj:,.0f} | {cj / counts[0]:.3f}x |")


def table(title: str, checkouts: list[Path], counts: list[float]) -> None:
    print(f"| checkout | {title} | against the first |")
    print("|---|---|---|")
    for c, k in zip(checkouts, counts, strict=True):
        print(f"| {c} | {k:,.0f} | {k / counts[0]:.3f}x |")


if __name__ == "__main__":
    main()
