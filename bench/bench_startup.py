"""Start-up: `roofbot --version`, `roofbot check` on one record, and the pre-commit hook's
entry (`roofbot check --changed FILES`, .pre-commit-hooks.yaml) on 1 and 3 changed records of a
git repository made from fixtures/, against `python -c pass`, measured side by side
(interleaved, median of N), and the heaviest imports of the hook (`python -X importtime`).
Prints ratios; never asserts a time.

    python bench/bench_startup.py [N] [--against DIR]... [--records DIR] [--stages]

N: runs of each (default 15). --against DIR (repeatable): another checkout's `roofbot` package
folder's parent (e.g. `git worktree add /tmp/before main`), timed in the same rounds,
interleaved, with PYTHONPATH=DIR. Compare checkouts on one file system: where the files lie
moves start-up by several percent. --records DIR: the hook runs in a git repository made from
DIR (e.g. the users' corpus) instead of fixtures/. Every run may write bytecode (as an
installed package has it), and one untimed run of each command comes first. --stages: also
the hook's stages on 1 record, timed inside one process (the least of N processes each).
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


STAGES = """
import sys, time
from pathlib import Path
marks = [("", time.perf_counter())]
def mark(name): marks.append((name, time.perf_counter()))
import click; mark("import click")
import roofbot.cli; mark("import roofbot.cli (every command's module)")
import roofbot.engine, roofbot.locate, roofbot.pins; mark("import roofbot's core, adapters (yaml)")
from roofbot.adapters.repo import Repository
from roofbot.cli.check import changed_records, render, _run
from roofbot.locate import find_root, require_records
from roofbot.pins import pin_problems
root = find_root(Path("."))
repository = Repository.open(root); mark("open the repository (.roofbot.yml)")
import jsonschema; mark("import jsonschema")
for t in ("accelerator", "model", "quantization", "gotcha", "benchmark"):
    repository.schemas.validator(t)
mark("check_schema: the 5 schemas against their metaschema")
repository.catalogue(); mark("the catalogue: read and validate its files")
require_records(repository, root); pin_problems(repository); mark("the records glob, the pins")
rels = changed_records(repository, sys.argv[1:]); mark("the records the change touches")
report = _run(repository, rels, calibration=True, quiet=True); mark("check them and calibrate")
render("text", report, repository, root, quiet=False, verbose=False); mark("render the text")
for (_, a), (name, b) in zip(marks, marks[1:]):
    print(f"{name}\t{(b - a) * 1000:.2f}")
"""


def stages(files: list[str], repo: Path, env: dict[str, str], n: int) -> None:
    """The hook's stages inside one process: the least of `n` processes for each."""
    least: dict[str, float] = {}
    for _ in range(n):
        out = subprocess.run([sys.executable, "-c", STAGES, *files], cwd=repo, env=env,
                             capture_output=True, text=True, check=True).stdout  # fmt: skip
        for line in out.splitlines():
            name, took = line.split("\t")
            least[name] = min(least.get(name, float("inf")), float(took))
    print(f"\nthe hook's stages, 1 record (least of {n} processes, ms):")
    for name, ms in least.items():
        print(f"{ms:8.1f}  {name}")
    print(f"{sum(least.values()):8.1f}  in all, after the interpreter's own start")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", nargs="?", type=int, default=15)
    ap.add_argument("--against", type=Path, action="append", default=[])
    ap.add_argument("--records", type=Path, default=ROOT / "fixtures")
    ap.add_argument("--stages", action="store_true")
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
            if opts.stages and e == "this checkout":  # the stages name this checkout's code
                one = cmds["pre-commit, 1 changed record"][len(ROOFBOT) + 2 :]
                stages(one, repo, env_e, opts.n)


if __name__ == "__main__":
    main()
