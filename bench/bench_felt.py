"""What a records repository's users wait for, measured from outside in one run and printed as
ratios side by side: the action's job in its container, the image's size, the users' corpus
cold, the pre-commit hook, a pull request in git mode at 100 and 10,000 records, a 10,000-record
cold sweep, and check-jsonschema on the same files. Each row says its target; a row whose tool
is missing (podman, the image, the users' corpus, check-jsonschema) is skipped with the reason.
Prints; never asserts a time.

    python bench/bench_felt.py [--image TAG[=PLOT]]... [--corpus DIR] [--rounds N] [--container-only]

--image: the action image(s) to run (default: $ROOFBOT_IMAGE or roofbot:ci, built by
`scripts/container.sh build`); `=true` runs that image with the chart on (INPUT_PLOT), else
action.yml's default; each image's rows end with its start-up (`--version`, a fixtures `check`).
--container-only: those rows alone. Every short time is the best of N rounds (default 3),
interleaved with `python -c pass`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))
from bench_pr import corpus, timed  # noqa: E402  (a packed git corpus; a PR timed with its calls)
from bench_sweep import generate  # noqa: E402  (the generated records' shapes)
from github_server import FakeGitHub  # noqa: E402
from prkit import (  # noqa: E402
    CONTAINER_WORKSPACE,
    MPT,
    PR,
    make_pull,
    podman_env,
    pull_event,
    run_in_container,
    run_roofbot,
    violating_copy,
)

BASE_IMAGE = "docker.io/library/python:3.12-slim"


@dataclass
class Row:
    what: str
    value: str
    against: str
    ratio: str
    target: str
    met: str


ROWS: list[Row] = []


def row(what: str, value: str, against: str, ratio: str, target: str, met: bool | None) -> None:
    ROWS.append(
        Row(what, value, against, ratio, target, {True: "yes", False: "no", None: "-"}[met])
    )
    print(f"  {what}: {value} ({ratio} {against})", file=sys.stderr, flush=True)


def skip(what: str, why: str) -> None:
    ROWS.append(Row(what, "skipped", why, "", "", ""))
    print(f"  {what}: skipped, {why}", file=sys.stderr, flush=True)


def best(cmd: list[str], rounds: int, **kw: object) -> float:
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=False, **kw)  # type: ignore[call-overload]
        times.append(time.perf_counter() - t)
    return min(times)


def roofbot_cmd() -> list[str]:
    """The console script, as pre-commit and a user run it (else `python -m roofbot`)."""
    script = Path(sys.executable).with_name("roofbot")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "roofbot"]


def python_pass(rounds: int) -> float:
    return best([sys.executable, "-c", "pass"], rounds)


# --- the container --------------------------------------------------------------------------------


def action_inputs(plot: str | None) -> dict[str, str]:
    """INPUT_* as the runner sets them from action.yml's defaults (hyphens kept)."""
    action = yaml.safe_load((ROOT / "action.yml").read_text("utf-8"))
    env = {f"INPUT_{k.upper()}": str(v.get("default", "")) for k, v in action["inputs"].items()}
    if plot is not None:
        env["INPUT_PLOT"] = plot
    return env


def image_size(env: dict[str, str], image: str) -> float:
    out = subprocess.run(
        ["podman", "image", "inspect", "--format", "{{.Size}}", image],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return int(out.stdout.strip()) / 1e6


def container_job(image: str, plot: str | None, rounds: int) -> None:
    what = f"`roofbot pr` job in the container `{image}`, 1-record PR"
    env = podman_env()
    if env is None:
        skip(what, "podman is not installed (scripts/container.sh deps)")
        return
    if subprocess.run(["podman", "image", "exists", image], env=env, check=False).returncode:
        skip(what, f"no image {image} (scripts/container.sh build)")
        return
    inputs = action_inputs(plot)
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        pull = make_pull(tmp, {MPT: violating_copy()})
        host, ctr, calls, final = [], [], 0, ""
        for _ in range(rounds):
            with FakeGitHub() as gh:  # the host's run: the same job, same inputs
                gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
                run = run_roofbot(tmp, pull.repo, gh, "pull_request_target", pull_event(pull, gh),
                                  **inputs)  # fmt: skip
                host.append(run.seconds)
            with FakeGitHub() as gh:
                gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
                job = run_in_container(image, tmp, pull.repo, gh, "pull_request_target",
                                       pull_event(pull, gh), env, **inputs)  # fmt: skip
                ctr.append(job.seconds)
                statuses = gh.statuses.get(pull.head, [])
                final = statuses[-1]["state"] if statuses else "none"
                calls = len(gh.requests)
                if job.code not in (0, 1) or final not in ("success", "failure"):
                    skip(what, f"the job did not end with a final status (exit "
                               f"{job.code}, status {final}): {job.stderr[-300:]}")  # fmt: skip
                    return
    plot_note = f", plot {inputs['INPUT_PLOT']}"
    row(what + plot_note, f"{min(ctr):.2f} s ({final}, {calls} API calls)",
        "the same job on the host", f"{min(ctr) / min(host):.2f}x", "reported", None)  # fmt: skip
    size, base = image_size(env, image), image_size(env, BASE_IMAGE)
    row(f"image `{image}` size", f"{size:.1f} MB", f"its base {BASE_IMAGE} ({base:.1f} MB)",
        f"{size / base:.2f}x", "≤ 1.3x", size / base <= 1.3)  # fmt: skip


def container_startup(image: str, rounds: int) -> None:
    """`roofbot --version` and a fixtures `check` in the image, from `podman run` to exit,
    interleaved with the image's own `python -c pass` (the container's floor)."""
    env = podman_env()
    if env is None or subprocess.run(["podman", "image", "exists", image], env=env,
                                     check=False).returncode:  # fmt: skip
        skip(f"start-up in the container `{image}`", "no podman or no such image")
        return
    run = ["podman", "run", "--rm", "--network", "none", "-v",
           f"{ROOT}:{CONTAINER_WORKSPACE}:ro", "-w", CONTAINER_WORKSPACE]  # fmt: skip
    commands = {
        "floor": [*run, "--entrypoint", "python", image, "-c", "pass"],
        "`roofbot --version`": [*run, image, "--version"],
        "`roofbot check --repo fixtures --format json`": [
            *run, image, "check", "--repo", "fixtures", "--format", "json"],
    }  # fmt: skip
    times: dict[str, list[float]] = {k: [] for k in commands}
    for _ in range(rounds):
        for name, cmd in commands.items():
            times[name].append(best(cmd, 1, env=env))
    floor = min(times.pop("floor"))
    for name, ts in times.items():
        row(f"{name} in the container `{image}`, start to exit", f"{min(ts):.2f} s",
            f"the image's `python -c pass` ({floor:.2f} s)", f"{min(ts) / floor:.2f}x",
            "reported", None)  # fmt: skip


# --- the users' corpus and pre-commit -------------------------------------------------------------


def users_corpus(src: Path, rounds: int) -> Path | None:
    what = "users' corpus, cold"
    if not (src / "data").is_dir():
        skip(what, f"no users' corpus at {src} (--corpus DIR)")
        skip("pre-commit hook", f"no users' corpus at {src}")
        return None
    n = len(list((src / "data" / "benchmarks").glob("*.json")))
    cmd = [*roofbot_cmd(), "check", "--repo", str(src)]
    empty, t = python_pass(rounds), best(cmd, rounds)
    row(f"{what}, {n} records", f"{t:.2f} s", f"`python -c pass` ({empty * 1000:.0f} ms)",
        f"{t / empty:.1f}x", "≤ 1 s", t <= 1.0)  # fmt: skip
    return src


def pre_commit(src: Path, rounds: int) -> None:
    """The hook's entry (`roofbot check --changed FILES`, .pre-commit-hooks.yaml) on 1 and 3
    staged records of the users' corpus; pre-commit's own start-up is not in it."""
    report = subprocess.run(
        [*roofbot_cmd(), "check", "--repo", str(src), "--format", "json"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    checked = [r["path"] for r in json.loads(report.stdout)["records"] if r["checks"]]
    for k in (1, 3):
        files = checked[:k]  # records a roof applies to: the hook's usual work
        cmd = [*roofbot_cmd(), "check", "--changed", *files]
        empty, t = python_pass(rounds), best(cmd, rounds, cwd=src)
        row(f"pre-commit hook (`roofbot check --changed`), {k} changed record{'s' * (k > 1)}",
            f"{t * 1000:.0f} ms", f"`python -c pass` ({empty * 1000:.0f} ms)",
            f"{t / empty:.1f}x", "≤ 6x", t / empty <= 6)  # fmt: skip


# --- git mode, the sweep, check-jsonschema --------------------------------------------------------


def pr_git_mode(tmp: Path) -> None:
    one = {MPT: violating_copy()}
    results = {}
    for n in (100, 10_000):
        d = tmp / f"pr{n}"
        d.mkdir()
        results[n] = timed(d, corpus(d, n), one, f"one-{n}")
    (ts, cs), (tl, cl) = results[100], results[10_000]
    row("`roofbot pr`, git mode, 1-record PR: 10,000 records against 100",
        f"{tl:.2f} s, {cl} API calls", f"100 records ({ts:.2f} s, {cs} API calls)",
        f"{tl / ts:.2f}x", "≤ 1.5x, 4-5 API calls", tl / ts <= 1.5 and 4 <= cl <= 5)  # fmt: skip


def check_jsonschema(root: Path, files: list[Path]) -> float | None:
    exe = shutil.which("check-jsonschema") or shutil.which(
        "check-jsonschema", path=str(Path(sys.executable).parent)
    )
    if exe is None:
        return None
    cmd = [exe, "--schemafile", str(root / "schemas" / "benchmark.schema.json"), *map(str, files)]
    return best(cmd, 1)


def valid_json(files: list[Path]) -> list[Path]:
    """The files check-jsonschema can read (it stops at the first broken JSON file)."""
    good = []
    for p in files:
        try:
            json.loads(p.read_bytes())
        except ValueError:
            continue
        good.append(p)
    return good


def sweep(tmp: Path, corpus_dir: Path | None) -> None:
    root = tmp / "sweep"
    root.mkdir()
    files = generate(root, 10_000)
    empty = python_pass(3)
    cmd = [*roofbot_cmd(), "check", "--repo", str(root)]
    t = best(cmd, 1)
    row("10,000-record cold sweep, one process", f"{t:.1f} s",
        f"`python -c pass` ({empty * 1000:.0f} ms)", f"{t / empty:.0f}x", "≤ 15 s",
        t <= 15)  # fmt: skip
    sets: list[tuple[str, Path, list[Path], Callable[[], float]]] = [
        ("10,000 generated records", root, files, lambda: t)
    ]
    if corpus_dir is not None:
        users = sorted((corpus_dir / "data" / "benchmarks").glob("*.json"))
        ucmd = [*roofbot_cmd(), "check", "--repo", str(corpus_dir)]
        sets.append(("the users' corpus", corpus_dir, users, lambda: best(ucmd, 3)))
    for label, where, paths, ours in sets:
        what = f"check-jsonschema on {label} (schema only, its valid JSON files)"
        good = valid_json(paths)
        theirs = check_jsonschema(where, good)
        if theirs is None:
            skip(what, "check-jsonschema is not installed (pip install -e '.[bench]')")
            continue
        mine = ours()
        row(what, f"{theirs:.2f} s", f"roofbot's full check ({mine:.2f} s)",
            f"roofbot {mine / theirs:.2f}x its time", "reference", None)  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--image", action="append", default=[])
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "records-repo")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--container-only", action="store_true",
                    help="only the container rows: the job, the image's size, start-up")  # fmt: skip
    opts = ap.parse_args()
    for spec in opts.image or [os.environ.get("ROOFBOT_IMAGE", "roofbot:ci")]:
        image, _, plot = spec.partition("=")
        container_job(image, plot or None, opts.rounds)
        container_startup(image, opts.rounds)
    if opts.container_only:
        table()
        return
    with tempfile.TemporaryDirectory() as t:
        corpus_dir = None
        if (opts.corpus / "data").is_dir():  # a copy: nothing is written into the user's folder
            shutil.copytree(opts.corpus, Path(t) / "users", ignore=shutil.ignore_patterns(".git"))
        corpus_dir = users_corpus(Path(t) / "users" if (opts.corpus / "data").is_dir()
                                  else opts.corpus, opts.rounds)  # fmt: skip
        if corpus_dir is not None:
            pre_commit(corpus_dir, opts.rounds)
        pr_git_mode(Path(t))
        sweep(Path(t), corpus_dir)
    table()


def table() -> None:
    print("| what | measured | against | ratio | target | met? |")
    print("|---|---|---|---|---|---|")
    for r in ROWS:
        print(f"| {r.what} | {r.value} | {r.against} | {r.ratio} | {r.target} | {r.met} |")


if __name__ == "__main__":
    main()
