"""The parts behind the fourth cold pass's figures (docs/performance.md quotes them), each
measured side by side in one run: what two CPU-bound processes get on this machine, how a
default-`--jobs` sweep splits its CPU between the parent and its workers, what a worker's
record costs to send back with and without its result, the text report's line cleaning, and
on the users' corpus (where it is present) the windows' width, the sibling-id scan and the
needle tests one by one against words and families.
Prints µs and ratios; never asserts.

    python bench/bench_parts.py [N]      # default: 10000 generated records
"""

from __future__ import annotations

import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_sweep import generate, valid_records

REAL = Path(
    os.environ.get("ROOFBOT_RECORDS_REPO")
    or Path(__file__).resolve().parents[2] / "shared" / "records-repo"
)

SPIN = "import time\nt = time.perf_counter()\nfor i in range(10_000_000): pass\n"
SPIN += "print(time.perf_counter() - t)"

SPLIT = """
import resource, runpy, sys, time
sys.argv = ["roofbot", "check", "--repo", sys.argv[1], "--no-cache", "-q"]
t = time.perf_counter()
try:
    runpy.run_module("roofbot", run_name="__main__")
except SystemExit:
    pass
s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
print(time.perf_counter() - t, s.ru_utime + s.ru_stime, c.ru_utime + c.ru_stime, file=sys.stderr)
"""


def spin(copies: int) -> float:
    """The slowest of `copies` CPU-bound processes started together, in seconds."""
    procs = [
        subprocess.Popen([sys.executable, "-c", SPIN], stdout=subprocess.PIPE)
        for _ in range(copies)
    ]
    return max(float(p.communicate()[0]) for p in procs)


def cpu_split(root: Path) -> list[float]:
    """Wall, the parent's CPU and its workers' CPU of `roofbot check --no-cache -q` (the
    default `--jobs`), in seconds."""
    out = subprocess.run(
        [sys.executable, "-c", SPLIT, str(root)], capture_output=True, text=True, check=False
    )
    return [float(x) for x in out.stderr.split()[-3:]]


def sending(root: Path) -> list[tuple[float, float]]:
    """(µs to pickle and unpickle, bytes) a record, as a worker sends it back: printed
    alone, and printed with its result."""
    from roofbot.adapters.repo import Repository
    from roofbot.cached import CachedChecks
    from roofbot.engine import check_path
    from roofbot.render.json_report import PreRendered
    from roofbot.render.kept import TextForm

    repo = Repository.open(root)
    catalogue = repo.catalogue()
    checks = CachedChecks(repo, catalogue, None, TextForm(repo.config.fail_on, False))
    bare, whole = [], []
    for p in repo.record_paths()[:500]:
        item = checks.check(p)
        if isinstance(item, PreRendered):
            bare.append(item)
            whole.append(item._replace(result=check_path(repo, catalogue, p)))
    out = []
    for items in (bare, whole):
        t = min(timeit.repeat(lambda i=items: pickle.loads(pickle.dumps(i)), number=5, repeat=3))
        out.append((t / 5 / len(items) * 1e6, len(pickle.dumps(items)) / len(items)))
    return out


def cleaning() -> tuple[float, float]:
    """µs to clean a 115-character message: walking every character, and as `_clean` does."""
    from roofbot.render.text import _clean

    def walk(text: str) -> str:
        return " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())

    s = (
        "gen-000123-mpt7b-a100-bs64-aggregate-decode-tps: batch stated as 1 and 64; "
        'read as unknown: unit: "tok/s (batch 1)"'
    )
    return tuple(  # type: ignore[return-value]
        min(timeit.repeat(lambda f=f: f(s), number=20_000, repeat=5)) / 20_000 * 1e6
        for f in (walk, _clean)
    )


def real_corpus() -> list[str]:
    """On the users' corpus: check_record µs a record with windows of 120 and of 48 (ten
    alternating rounds, min and median), and the sibling-id scan whole against word by word."""
    from roofbot.core import extract
    from roofbot.core.check import check_record
    from roofbot.core.extract import text_fields
    from roofbot.core.resolve import _ID_MENTION, _Resolver

    repo, catalogue, valid = valid_records(REAL)

    def sweep() -> float:
        t = time.perf_counter()
        for _ in range(5):
            for data, p in valid:
                check_record(data, p, catalogue, repo.config, repo.find_by_id)
        return (time.perf_counter() - t) / (5 * len(valid)) * 1e6

    widths: dict[int, list[float]] = {120: [], 48: []}
    saved = extract.WINDOW
    try:
        for _ in range(10):
            for w, times in widths.items():
                extract.WINDOW = w
                times.append(sweep())
    finally:
        extract.WINDOW = saved
    rows = [
        f"| windows of {w} | {min(t):.0f} | {statistics.median(t):.0f} |" for w, t in widths.items()
    ]

    resolvers = [_Resolver(d, catalogue, {}, text_fields(d)) for d, _ in valid]

    def whole(r: _Resolver) -> tuple[str, ...]:
        found: list[str] = []
        for name in ("unit", "methodology", "notes"):
            for m in _ID_MENTION.finditer(r.text[name][:20_000]):
                if m[0] != r.record.get("id") and m[0] not in found:
                    found.append(m[0])
        return tuple(found)

    assert all(whole(r) == r.siblings() for r in resolvers)
    scans = [
        min(timeit.repeat(lambda f=f: [f(r) for r in resolvers], number=5, repeat=3))
        / (5 * len(resolvers))
        * 1e6
        for f in (whole, _Resolver.siblings)
    ]
    rows.append(f"| sibling ids, the whole text scanned | {scans[0]:.1f} | |")
    rows.append(f"| sibling ids, word by word | {scans[1]:.1f} | |")
    return rows + gates([r.text for r in resolvers])


def gates(records: list[dict[str, str]]) -> list[str]:
    """Every rule's needle test on every text field of the users' records: the needles one
    by one (`Rule.may_match`, as `find` tested them before) against words and families (as
    `find` tests them now), in µs a record."""
    from roofbot.core.rules import ALL_RULES

    texts = [t.casefold() for fields in records for t in fields.values() if t]
    rules = [r for r in ALL_RULES if r.needles]

    def one_by_one() -> None:
        for low in texts:
            for r in rules:
                for n in r.needles:
                    if n in low:
                        break

    def families() -> None:
        for low in texts:
            for r in rules:
                for n in r.words:
                    if n in low:
                        break
                else:
                    for search, _ in r.families:
                        if search(low, 0) is not None:
                            break

    spent = [
        min(timeit.repeat(f, number=5, repeat=5)) / (5 * len(records)) * 1e6
        for f in (one_by_one, families)
    ]
    return [
        f"| every rule's needle test on every field, needles one by one | {spent[0]:.0f} | |",
        f"| the same, words and families | {spent[1]:.0f} ({spent[0] / spent[1]:.1f}x less) | |",
    ]


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    one, two = spin(1), spin(2)
    print(f"two CPU-bound processes at once: each {two / one:.2f}x as long as one alone")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        generate(root, n)
        wall, parent, workers = cpu_split(root)
        print(
            f"`roofbot check --no-cache` on {n:,} records, default --jobs: {wall:.2f} s, "
            f"the parent's CPU {parent:.2f} s, the workers' {workers:.2f} s"
        )
        (alone, alone_size), (with_result, with_size) = sending(root)
        print(
            f"a record sent back: {alone:.1f} µs, {alone_size:,.0f} bytes printed alone; "
            f"{with_result:.1f} µs, {with_size:,.0f} bytes with its result"
        )
    walk, clean = cleaning()
    print(f"cleaning a 115-character message: {walk:.2f} µs walked, {clean:.2f} µs as _clean does")
    if REAL.is_dir():
        print("\n| on the users' corpus | µs a record, min | median |\n|---|---|---|")
        print("\n".join(real_corpus()))
    else:
        print(f"(the users' corpus is not at {REAL}: its rows are skipped)")


if __name__ == "__main__":
    main()
