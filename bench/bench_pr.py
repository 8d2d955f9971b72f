"""A PR's cost grows with the PR, not with the corpus: `roofbot pr` (git mode, loopback GitHub)
on a PR that changes one record, in a corpus of 100 versus N records, side by side in one run;
then a PR that changes an accelerator (the reverse index over the corpus), and a PR that
changes 1,000 records (wall time and API calls). Prints ratios; never asserts a time.

    python bench/bench_pr.py [N]      # default 100000
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from github_server import FakeGitHub
from prkit import A100, MPT, PR, git, pull_event, run_roofbot, violating_copy

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_sweep import generate

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def corpus(tmp: Path, n: int) -> Path:
    """A git workspace: the fixtures plus n generated records committed on main."""
    repo = tmp / "workspace"
    repo.mkdir()
    gen = tmp / "gen"
    gen.mkdir()
    generate(gen, n)
    import shutil

    shutil.copytree(FIXTURES, repo, dirs_exist_ok=True, ignore=shutil.ignore_patterns("broken"))
    for p in (gen / "data" / "benchmarks").iterdir():
        p.rename(repo / "data" / "benchmarks" / p.name)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "gc.auto", "0")  # no repack started in the background mid-run
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    # Packed, as actions/checkout delivers a repository: `git add` leaves every blob a loose
    # object, and reading 100,000 loose objects' sizes (`ls-tree --long`) takes 1.2 s
    # where the packed corpus takes 0.08 s. (Before, `commit` started `gc --auto` in the
    # background, so the runs met a corpus packed, loose or being packed.)
    git(repo, "repack", "-adq")
    return repo


def pull_with(repo: Path, edits: dict[str, str], branch: str) -> tuple[str, str]:
    git(repo, "checkout", "-q", "main")
    base = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-qb", branch)
    for path, text in edits.items():
        (repo / path).write_text(text, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", branch)
    head = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "main")
    return base, head


class _Pull:
    def __init__(self, repo: Path, base: str, head: str) -> None:
        self.repo, self.base, self.head = repo, base, head


def timed(tmp: Path, repo: Path, edits: dict[str, str], branch: str) -> tuple[float, int]:
    base, head = pull_with(repo, edits, branch)
    best, calls = 1e9, 0
    for _ in range(3):
        with FakeGitHub() as gh:
            gh.add_pull(PR, head_sha=head, base_sha=base)
            event = pull_event(_Pull(repo, base, head), gh)  # type: ignore[arg-type]
            run = run_roofbot(tmp, repo, gh, "pull_request_target", event, timeout=3600)
            best, calls = min(best, run.seconds), len(gh.requests)
    return best, calls


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    one = {MPT: violating_copy()}
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        small, large = corpus(Path(a), 100), corpus(Path(b), n)
        ts, cs = timed(Path(a), small, one, "one-small")
        tl, cl = timed(Path(b), large, one, "one-large")
        print(f"1 record changed, corpus of 100: {ts:.2f} s, {cs} API calls")
        print(f"1 record changed, corpus of {n:,}: {tl:.2f} s, {cl} API calls")
        print(f"ratio large/small: {tl / ts:.2f}x")
        bw = (
            (FIXTURES / A100)
            .read_text("utf-8")
            .replace('"memory_bandwidth_gbps": 1555,', '"memory_bandwidth_gbps": 1935,')
        )
        ta, ca = timed(Path(b), large, {A100: bw}, "accelerator")
        print(
            f"accelerator bandwidth changed, corpus of {n:,} (reverse index): {ta:.2f} s, "
            f"{ca} API calls"
        )
        names = sorted(p.name for p in (large / "data" / "benchmarks").iterdir())[:1000]
        many = {}
        for name in names:
            path = large / "data" / "benchmarks" / name
            try:
                data = json.loads(path.read_text("utf-8"))
            except ValueError:
                continue
            if isinstance(data.get("value"), int | float):
                data["value"] = data["value"] * 1.01
            many[f"data/benchmarks/{name}"] = json.dumps(data, indent=2)
        tm, cm = timed(Path(b), large, many, "many")
        print(f"{len(many)} records changed, corpus of {n:,}: {tm:.2f} s, {cm} API calls")


if __name__ == "__main__":
    main()
