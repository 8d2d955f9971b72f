"""Start-up: `roofbot --version`, `roofbot check` on one record, and the pre-commit hook's
entry (`roofbot check --changed FILES`, .pre-commit-hooks.yaml) on 1 and 3 changed records of a
git repository made from fixtures/, against `python -c pass`, measured side by side
(interleaved, median of N), and the heaviest imports of the hook (`python -X importtime`).
Prints ratios; never asserts a time.

    python bench/bench_startup.py [N] [--against DIR]... [--records DIR]

N: runs of each (default 15). --against DIR (repeatable): another checkout's `roofbot` package
folder's parent (e.g. `git worktree add /tmp/before main`), timed in the same rounds,
interleaved, with PYTHONPATH=DIR. Compare checkouts on one file system: where the files lie
moves start-up by several percent. --records DIR: the hook runs in a git repository made from
DIR (e.g. the users' corpus) instead of fixtures/. Every run may write bytecode (as an
installed package has it), and one untimed run of each command comes first.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ONE = ["check", "--repo", str(ROOT / "fixtures"),
       "data/benchmarks/mpt7b-a100-bs1-per-user-decode-tps.json", "--no-calibration"]  # fmt: skip
SCRIPT = Path(sys.executable).with_name("roofbot")
ROOFBOT = [str(SCRIPT)] if SCRIPT.is_file() else [sys.executable, "-m", "roofbot"]
"""The console script, as pre-commit and a user run it (else `python -m roofbot`)."""


def git_records(src: Path, where: Path) -> Path:
    """A records repository (fixtures/ without its broken corner, by default) committed to a
    new git repository."""
    repo = where / "records"
    shutil.copytree(src, repo, ignore=shutil.ignore_patterns("broken", ".git"))
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b"}  # fmt: skip
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "records"]):
        subprocess.run(["git", *cmd], cwd=repo, env=env, check=True)
    return repo


def roofed(repo: Path, k: int) -> list[str]:
    """The first `k` records a roof applies to: the hook's usual work."""
    out = subprocess.run([*ROOFBOT, "check", "--repo", str(repo), "--format", "json"],
                         capture_output=True, text=True, check=False).stdout  # fmt: skip
    return [r["path"] for r in json.loads(out)["records"] if r["checks"]][:k]


def commands(repo: Path) -> dict[str, list[str]]:
    hook = [*ROOFBOT, "check", "--changed"]
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        "roofbot --version": [*ROOFBOT, "--version"],
        "roofbot check (1 record)": [*ROOFBOT, *ONE],
        "pre-commit, 1 changed record": [*hook, *roofed(repo, 1)],
        "pre-commit, 3 changed records": [*hook, *roofed(repo, 3)],
    }


def run(cmd: list[str], repo: Path, env: dict[str, str]) -> tuple[float, float]:
    """One run's wall time and its CPU time (user + system, from wait4): on a shared machine
    the CPU time is the steadier of the two."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=repo, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0  # reaped here
    return time.perf_counter() - t, usage.ru_utime + usage.ru_stime


Times = dict[tuple[str, str], list[tuple[float, float]]]


def timed(cmds: dict[str, list[str]], envs: dict[str, dict[str, str]], repo: Path, n: int) -> Times:
    times: Times = {(e, k): [] for e in envs for k in cmds}
    for rnd in range(n + 1):  # round 0 writes the bytecode and is not counted
        for e, env in envs.items():
            for name, cmd in cmds.items():
                got = run(cmd, repo, env)
                if rnd:
                    times[(e, name)].append(got)
    return times


def table(times: Times, envs: list[str], names: list[str], which: int, label: str) -> None:
    base = statistics.median(t[which] for t in times[(envs[0], "python -c pass")])
    print(f"\n{label}: median of {len(times[(envs[0], names[0])])}; ratios to the first "
          f"column's `python -c pass` ({base * 1000:.0f} ms)")  # fmt: skip
    print(f"{'':<31}" + "".join(f"{e[-24:]:>26}" for e in envs))
    for name in names:
        cells = []
        for e in envs:
            m = statistics.median(t[which] for t in times[(e, name)])
            cells.append(f"{m * 1000:7.0f} ms {m / base:6.2f}x")
        print(f"{name:<31}" + "".join(f"{c:>26}" for c in cells))


def heaviest(cmd: list[str], repo: Path, env: dict[str, str]) -> None:
    args = [sys.executable, "-X", "importtime", "-m", "roofbot", *cmd[len(ROOFBOT) :]]
    out = subprocess.run(args, capture_output=True,
                         text=True, check=False, cwd=repo, env=env).stderr  # fmt: skip
    rows = []
    for line in out.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].rstrip()))
    top = sum(us for us, name in rows if not name.startswith("  "))
    print(f"\nheaviest imports of the hook, 1 record (cumulative µs; {top} µs in all):")
    for us, name in sorted(rows, reverse=True)[:14]:
        print(f"{us:9d}  {name}")
    loaded = {name.strip() for _, name in rows}
    for heavy in ("github", "jinja2", "jsonschema", "yaml", "roofbot.adapters.git",
                  "roofbot.action", "roofbot.render.markdown", "matplotlib"):  # fmt: skip
        print(f"{heavy:<24} imported by the hook: {'yes' if heavy in loaded else 'no'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", nargs="?", type=int, default=15)
    ap.add_argument("--against", type=Path, action="append", default=[])
    ap.add_argument("--records", type=Path, default=ROOT / "fixtures")
    opts = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    envs = {"this checkout": env}
    for other in opts.against:
        envs[str(other)] = {**env, "PYTHONPATH": str(other.resolve())}
    with tempfile.TemporaryDirectory() as tmp:
        repo = git_records(opts.records, Path(tmp))
        cmds = commands(repo)
        times = timed(cmds, envs, repo, opts.n)
        table(times, list(envs), list(cmds), 0, "wall time")
        table(times, list(envs), list(cmds), 1, "CPU time (user + system)")
        for e, env_e in envs.items():
            print(f"\n-- {e}")
            heaviest(cmds["pre-commit, 1 changed record"], repo, env_e)


if __name__ == "__main__":
    main()
