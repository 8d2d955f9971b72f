"""A speed change must not change a report: this runs `roofbot check` of another checkout
(no cache, one process: the plainest way it reports) and of this one in every way a sweep can
run (cold, filling a cache, warm from it, warm on two processes, cold on two), in text and
JSON, on each corpus, and compares the reports byte for byte.

    python bench/same_reports.py BASE [CORPUS ...]

BASE: a checkout to compare with, e.g. `git worktree add ../base HEAD~1`. CORPUS: records
repositories (default: the fixtures, and the users' corpus where it is beside this checkout).
Prints one line a comparison, `same` or `DIFF` with the first differing line; exits 1 if any
differ. The process's exit code is compared too.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
MODES = (
    ("cold", ["--no-cache", "--jobs", "1"]),
    ("filling", ["--cache-dir", "{cache}", "--jobs", "1"]),
    ("warm", ["--cache-dir", "{cache}", "--jobs", "1"]),
    ("warm, 2 jobs", ["--cache-dir", "{cache}", "--jobs", "2"]),
    ("cold, 2 jobs", ["--no-cache", "--jobs", "2"]),
)


def report(checkout: Path, corpus: Path, fmt: str, options: list[str]) -> tuple[int, str]:
    """`roofbot check` of `checkout` (its source first on the path): exit code and output."""
    proc = subprocess.run(
        [sys.executable, "-m", "roofbot", "check", "--repo", str(corpus), "--format", fmt,
         *options],
        cwd=checkout, capture_output=True, text=True, check=False,
        env={**os.environ, "PYTHONPATH": str(checkout)},
    )  # fmt: skip
    return proc.returncode, proc.stdout + proc.stderr


def first_difference(a: str, b: str) -> str:
    for i, (x, y) in enumerate(zip(a.splitlines(), b.splitlines(), strict=False)):
        if x != y:
            return f"line {i + 1}: {x[:80]!r} / {y[:80]!r}"
    return f"lengths {len(a)} / {len(b)}"


def compare(base: Path, corpora: list[Path]) -> int:
    differ = 0
    for corpus in corpora:
        for fmt in ("text", "json"):
            want = report(base, corpus, fmt, ["--no-cache", "--jobs", "1"])
            with tempfile.TemporaryDirectory() as cache:
                for name, options in MODES:
                    got = report(HERE, corpus, fmt, [o.format(cache=cache) for o in options])
                    same = got == want
                    differ += not same
                    why = (
                        ""
                        if same
                        else f"  (exit {want[0]} / {got[0]}; "
                        + (first_difference(want[1], got[1]) + ")")
                    )
                    print(f"{'same' if same else 'DIFF'}  {corpus}  {fmt}  {name}{why}")
    return 1 if differ else 0


def main() -> None:
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    base = Path(sys.argv[1]).resolve()
    corpora = [Path(c).resolve() for c in sys.argv[2:]]
    if not corpora:
        corpora = [HERE / "fixtures"]
        real = Path(
            os.environ.get("ROOFBOT_RECORDS_REPO") or HERE.parent / "shared" / "records-repo"
        )
        if (real / "data" / "benchmarks").is_dir():
            corpora.append(real)
    sys.exit(compare(base, corpora))


if __name__ == "__main__":
    main()
