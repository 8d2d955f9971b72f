"""Running `roofbot pr` end to end, as the action runs it: a real git repository (the base
committed on `main`, the PR's head on a branch, `main` checked out as on pull_request_target
and issue_comment), a real webhook payload adapted from ../shared/github-samples/events, and
the command as a subprocess with the environment a container action gets, against the loopback
GitHub of tests/github_server.py."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from github_server import FakeGitHub

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
SAMPLES = ROOT.parent / "shared" / "github-samples" / "events"
FALLBACK_EVENTS = ROOT / "tests" / "github_server_data" / "events"
PR = 2
MPT = "data/benchmarks/mpt7b-a100-bs1-per-user-decode-tps.json"
A100 = "data/accelerators/nvidia-a100-40gb-sxm4.json"

PR_PYTHON = os.path.abspath(os.environ.get("ROOFBOT_PR_PYTHON") or sys.executable)
"""The interpreter `roofbot pr` runs under: this one, or (ROOFBOT_PR_PYTHON, as `.ci/run` sets
it) one from a plain `pip install .`, without the dev or plot extras."""


def pr_python_has(module: str) -> bool:
    """Whether `module` imports under the interpreter `roofbot pr` runs under."""
    probe = f"import importlib.util, sys; sys.exit(importlib.util.find_spec({module!r}) is None)"
    return subprocess.run([PR_PYTHON, "-c", probe], check=False).returncode == 0


_GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}


def git(repo: Path, *args: str, input: bytes | None = None) -> str:
    env = {**os.environ, **_GIT_ENV}
    out = subprocess.run(
        ["git", "-c", "core.quotepath=off", *args],
        cwd=repo, env=env, check=True, capture_output=True, input=input,
    )  # fmt: skip
    return out.stdout.decode("utf-8", "replace").strip()


@dataclass
class Pull:
    repo: Path
    base: str
    head: str


Edit = Mapping[str, str | bytes | None]


def make_pull(
    tmp: Path,
    edit: Edit,
    *,
    links: Mapping[str, str] | None = None,
    base_edit: Edit | None = None,
    hook: Callable[[Path], None] | None = None,
) -> Pull:
    """The fixtures (plus `base_edit`) committed as the base on `main`; `edit` (path -> new
    text or bytes, None deletes) plus `links` (path -> symlink target) as the head on `pr`;
    `hook(repo)` runs before the head commit (to make files a dict can't describe)."""
    repo = tmp / "workspace"
    shutil.copytree(FIXTURES, repo, ignore=shutil.ignore_patterns("broken"))
    for path, data in (base_edit or {}).items():
        _write(repo, path, data)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    base = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-qb", "pr")
    for path, data in edit.items():
        if data is None:
            git(repo, "rm", "-q", "--", path)
        else:
            _write(repo, path, data)
    for path, target in (links or {}).items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, repo / path)
    if hook is not None:
        hook(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "head", "--allow-empty")
    head = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "main")  # like pull_request_target: the base is checked out
    return Pull(repo, base, head)


def drop_head(pull: Pull) -> None:
    """The workspace as the example workflows leave it when the PR head could not be fetched:
    the base branch checked out with its history, the PR's commits absent (API mode)."""
    git(pull.repo, "branch", "-D", "-q", "pr")
    git(pull.repo, "reflog", "expire", "--expire=now", "--all")
    git(pull.repo, "gc", "-q", "--prune=now")


def mirror(gh: FakeGitHub, repo: Path, sha: str) -> None:
    """Serve every file of commit `sha` of `repo` from the loopback GitHub (its comparisons,
    trees, blobs and contents at that SHA), as github.com serves a pushed commit."""
    listing = git(repo, "ls-tree", "-r", "-z", "--full-tree", sha)
    for entry in filter(None, listing.split("\0")):
        meta, path = entry.split("\t", 1)
        mode, _, blob = meta.split(" ")
        data = subprocess.run(["git", "cat-file", "blob", blob], cwd=repo, check=True,
                              capture_output=True).stdout  # fmt: skip
        if mode == "120000":
            gh.add_link(path, data.decode("utf-8"), ref=sha)
        else:
            gh.add_file(path, data, ref=sha)


def _write(repo: Path, path: str, data: str | bytes | None) -> None:
    target = repo / path
    if data is None:
        target.unlink()
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        target.write_bytes(data)
    else:
        target.write_text(data, encoding="utf-8")


def sample(name: str) -> dict[str, Any]:
    """A recorded webhook payload: from ../shared/github-samples/events, or, where that folder
    is missing (or ROOFBOT_GITHUB_SAMPLES points elsewhere), the copy in
    tests/github_server_data/events."""
    override = os.environ.get("ROOFBOT_GITHUB_SAMPLES")
    folder = Path(override) / "events" if override else SAMPLES
    if not (folder / name).is_file():
        folder = FALLBACK_EVENTS
    data: dict[str, Any] = json.loads((folder / name).read_text("utf-8"))
    return data


def pull_event(pull: Pull, gh: FakeGitHub, action: str = "opened") -> dict[str, Any]:
    payload = sample("pull_request.opened.json")
    payload["action"] = action
    payload["number"] = PR
    payload["pull_request"]["number"] = PR
    payload["pull_request"]["base"]["sha"] = pull.base
    payload["pull_request"]["head"]["sha"] = pull.head
    for side in ("base", "head"):
        payload["pull_request"][side]["repo"]["full_name"] = gh.full_name
    payload["repository"]["full_name"] = gh.full_name
    return payload


def comment_event(
    gh: FakeGitHub,
    body: str,
    *,
    name: str = "issue_comment.created.json",
    number: int = PR,
    comment_id: int | None = None,
) -> dict[str, Any]:
    """A real issue_comment payload pointed at this repository, its body replaced."""
    payload = sample(name)
    payload["issue"]["number"] = number
    if isinstance(payload["issue"].get("pull_request"), dict):
        pr = payload["issue"]["pull_request"]
        pr["url"] = f"{gh.repo_url}/pulls/{number}"
        pr["html_url"] = f"{gh.html_url}/pull/{number}"
    payload["comment"]["body"] = body
    if comment_id is not None:
        payload["comment"]["id"] = comment_id
    payload["repository"]["full_name"] = gh.full_name
    return payload


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str
    summary: str
    outputs: dict[str, str]
    seconds: float


def run_roofbot(
    tmp: Path,
    workspace: Path,
    gh: FakeGitHub,
    event_name: str,
    payload: Mapping[str, Any],
    *extra: str,
    crash: bool = False,
    timeout: float = 120,
    audit: Path | None = None,
    **env_extra: str,
) -> Run:
    """`roofbot pr` as the action runs it; with `audit`, under tests/hostile/audited.py, which
    logs every file opened, folder listed and program started to that file."""
    event = tmp / "event.json"
    event.write_text(json.dumps(payload), encoding="utf-8")
    summary, outputs = tmp / "summary.md", tmp / "output.txt"
    summary.write_text("", "utf-8")
    outputs.write_text("", "utf-8")
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp),
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_REPOSITORY": gh.full_name,
        "GITHUB_API_URL": gh.base_url,
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_RUN_ID": "4242",
        "GITHUB_TOKEN": gh.token or "",
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_OUTPUT": str(outputs),
        "RUNNER_TEMP": str(tmp),
        "INPUT_PLOT": "false",  # charts cost a matplotlib import a run; test_pr turns them on
        **env_extra,
    }
    if "ROOFBOT_PR_PYTHON" not in os.environ:  # this checkout's roofbot, not an install's
        env["PYTHONPATH"] = os.pathsep.join(p for p in (env.get("PYTHONPATH"), str(ROOT)) if p)
    entry = ["-m", "roofbot"]
    if audit is not None:
        entry = [str(Path(__file__).resolve().parent / "hostile" / "audited.py")]
        env["ROOFBOT_AUDIT_LOG"] = str(audit)
    started = time.monotonic()
    proc = subprocess.run(
        [PR_PYTHON, *entry, "pr", *extra],
        env=env, cwd=workspace, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip
    seconds = time.monotonic() - started
    assert ("Traceback" in proc.stderr) is crash, proc.stderr
    return Run(
        proc.returncode, proc.stdout, proc.stderr, summary.read_text("utf-8"),
        read_outputs(outputs), seconds,
    )  # fmt: skip


def read_outputs(path: Path) -> dict[str, str]:
    """The step outputs a run wrote to $GITHUB_OUTPUT (`name<<DELIM`, value, `DELIM`)."""
    parsed: dict[str, str] = {}
    lines = path.read_text("utf-8").splitlines()
    i = 0
    while i < len(lines):
        name, _, delim = lines[i].partition("<<")
        parsed[name] = lines[i + 1]
        assert lines[i + 2] == delim
        i += 3
    return parsed


def run_action(
    tmp: Path, pull: Pull, gh: FakeGitHub, *extra: str, crash: bool = False, **env_extra: str
) -> Run:
    """`roofbot pr` on a pull_request_target event for `pull`."""
    return run_roofbot(
        tmp, pull.repo, gh, "pull_request_target", pull_event(pull, gh), *extra,
        crash=crash, **env_extra,
    )  # fmt: skip


def violating_copy(value: float = 150.0) -> str:
    """The MPT-7B batch-1 record at `value` tok/s (its roof is 111.07 tok/s: 150 is 135%)."""
    data = json.loads((FIXTURES / MPT).read_text("utf-8"))
    data["value"] = value
    return json.dumps(data, indent=2) + "\n"


CONTAINER_WORKSPACE = "/github/workspace"
CONTAINER_TEMP = "/github/runner_temp"


def podman_env() -> dict[str, str] | None:
    """The environment podman runs under here (scripts/container.sh's containers.conf: runc, and
    the rlimits this host allows), or None when podman is not installed."""
    if shutil.which("podman") is None:
        return None
    env = dict(os.environ)
    state = Path(os.environ.get("ROOFBOT_CONTAINER_STATE", "/var/tmp/roofbot-container"))
    if "CONTAINERS_CONF" not in env and (state / "containers.conf").is_file():
        env["CONTAINERS_CONF"] = str(state / "containers.conf")
    return env


def run_in_container(
    image: str,
    tmp: Path,
    workspace: Path,
    gh: FakeGitHub,
    event_name: str,
    payload: Mapping[str, Any],
    podman: Mapping[str, str],
    *,
    timeout: float = 300,
    **inputs: str,
) -> Run:
    """`roofbot pr` in the action's image, started as the Actions runner starts a Docker action:
    the workspace at /github/workspace, the event and the file-command files in a mounted runner
    temp, GITHUB_* and INPUT_* passed by name (values never on a command line), the image's own
    entrypoint and `pr`. The loopback GitHub is reached over the host's network."""
    (tmp / "event.json").write_text(json.dumps(payload), encoding="utf-8")
    for name in ("summary.md", "output.txt"):
        (tmp / name).write_text("", "utf-8")
    job = {
        "HOME": f"{CONTAINER_TEMP}/home",
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": f"{CONTAINER_TEMP}/event.json",
        "GITHUB_REPOSITORY": gh.full_name,
        "GITHUB_API_URL": gh.base_url,
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_RUN_ID": "4242",
        "GITHUB_TOKEN": gh.token or "",
        "GITHUB_WORKSPACE": CONTAINER_WORKSPACE,
        "GITHUB_STEP_SUMMARY": f"{CONTAINER_TEMP}/summary.md",
        "GITHUB_OUTPUT": f"{CONTAINER_TEMP}/output.txt",
        "RUNNER_TEMP": CONTAINER_TEMP,
        **inputs,
    }
    args = ["podman", "run", "--rm", "--network", "host", "-v", f"{workspace}:{CONTAINER_WORKSPACE}",
            "-v", f"{tmp}:{CONTAINER_TEMP}", "-w", CONTAINER_WORKSPACE]  # fmt: skip
    for name in job:
        args += ["-e", name]
    started = time.monotonic()
    proc = subprocess.run(
        [*args, image, "pr"], env={**podman, **job}, capture_output=True, text=True,
        timeout=timeout, check=False,
    )  # fmt: skip
    seconds = time.monotonic() - started
    return Run(
        proc.returncode, proc.stdout, proc.stderr, (tmp / "summary.md").read_text("utf-8"),
        read_outputs(tmp / "output.txt"), seconds,
    )  # fmt: skip
