"""The example workflows as GitHub runs them: each job's `if:` and `concurrency.group` evaluated
(tests/gh_expr.py) on the real webhook payloads, and each fetch step's script run by bash
against a real git remote.

GitHub keeps one pending run per concurrency group and cancels it when a newer one queues. A
run that joins a pull request's group and then sets no status (a title edit, `/roofcheck help`)
would cancel the pending check of a new head and leave the required status waiting forever:
only runs that check the head may join it."""

from __future__ import annotations

import base64
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from gh_expr import condition, github_context, interpolate
from github_server import FakeGitHub
from prkit import PR, git, make_pull, pull_event, run_roofbot, sample

from roofbot.action.command_rules import CHECKS, GROUPED, parse_command

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _job(name: str) -> dict[str, Any]:
    data = yaml.safe_load((EXAMPLES / name).read_text("utf-8"))
    (job,) = data["jobs"].values()
    assert isinstance(job, dict)
    return job


def _route(job: dict[str, Any], event: str, payload: dict[str, Any]) -> tuple[bool, str]:
    """(whether the job starts, the concurrency group it joins)."""
    ctx = github_context(event, payload)
    starts = condition(job["if"], ctx) if "if" in job else True
    return starts, interpolate(job["concurrency"]["group"], ctx)


def _comment_payload(body: str, name: str = "issue_comment.created.json") -> dict[str, Any]:
    """A real issue_comment payload (pull request #31 of its repository), its body replaced."""
    payload = sample(name)
    payload["comment"]["body"] = body
    return payload


def _pull_payload(action: str, **extra: Any) -> dict[str, Any]:
    payload = sample("pull_request.opened.json")
    payload["action"] = action
    payload.update(extra)
    return payload


def test_a_title_edit_neither_starts_nor_joins_the_pull_requests_group() -> None:
    job = _job("roofcheck.yml")
    group = f"roofcheck-pr-{PR}"  # the sample is pull request #2
    for action in ("opened", "synchronize", "reopened", "ready_for_review"):
        assert _route(job, "pull_request_target", _pull_payload(action)) == (True, group)
    title = _pull_payload("edited", changes={"title": {"from": "an older title"}})
    starts, joins = _route(job, "pull_request_target", title)
    assert not starts and joins != group and joins.startswith("roofcheck-edit-")
    body = _pull_payload("edited", changes={"body": {"from": "an older body"}})
    assert _route(job, "pull_request_target", body)[0] is False
    retarget = _pull_payload("edited", changes={"base": {"ref": {"from": "release"},
                                                         "sha": {"from": "f" * 40}}})  # fmt: skip
    assert _route(job, "pull_request_target", retarget) == (True, group)


def test_roofbot_sets_no_status_for_a_title_edit(tmp_path: Path) -> None:
    """Should such a run start anyway (a workflow without the `if`), roofbot does nothing: no
    pending status that could be left behind, no request at all."""
    with FakeGitHub() as gh:
        pull = make_pull(tmp_path, {"README.md": "a change\n"})
        gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
        payload = pull_event(pull, gh, "edited")
        payload["changes"] = {"title": {"from": "an older title"}}
        run = run_roofbot(tmp_path, pull.repo, gh, "pull_request_target", payload)
        assert run.code == 0 and "nothing to do" in run.stdout
        assert gh.requests == [] and gh.statuses == {}


BODIES = [
    "/roofcheck",
    "/roofcheck all",
    "/ROOFCHECK ALL",
    "/roofcheck approve",
    "/roofcheck approve 0a1b2c3",
    "/roofcheck approve 0a1b2c3d4e5f\nreviewed the new part",
    "/roofcheck help",
    "/roofcheck allx",
    "/roofcheck approvex 0a1b2c3",
    "/roofcheck everything now",
    "/roofcheck\nplease",
    "/roofcheck all\nagain",
    "/roofchecks",
]


@pytest.mark.parametrize("body", BODIES)
def test_only_a_comment_that_checks_the_head_joins_the_pull_requests_group(body: str) -> None:
    job = _job("roofcheck-command.yml")
    payload = _comment_payload(body)
    number = payload["issue"]["number"]
    starts, group = _route(job, "issue_comment", payload)
    assert starts  # the sample comment is by the repository's OWNER, on a pull request
    command = parse_command(body)
    if group == f"roofcheck-pr-{number}":  # roofbot must then set the head's status
        assert command is not None and command.kind in CHECKS, body
    else:
        assert group == f"roofcheck-reply-{payload['comment']['id']}"
    if body in ("/roofcheck", "/roofcheck all", "/roofcheck approve 0a1b2c3"):
        assert group == f"roofcheck-pr-{number}"
    if command is None or command.kind not in CHECKS:
        assert group != f"roofcheck-pr-{number}"


def test_comments_that_start_no_job() -> None:
    job = _job("roofcheck-command.yml")
    on_issue = _comment_payload("/roofcheck", "issue_comment.created.on-issue.json")
    assert not _route(job, "issue_comment", on_issue)[0]
    by_bot = _comment_payload("/roofcheck")
    by_bot["comment"]["user"]["type"] = "Bot"
    assert not _route(job, "issue_comment", by_bot)[0]
    stranger = _comment_payload("/roofcheck")
    stranger["comment"]["author_association"] = "NONE"
    assert not _route(job, "issue_comment", stranger)[0]
    # the associations whose comments start a job in the PR's group are those roofbot checks
    # the head for even when it refuses the command (command_rules.takes_a_checks_place)
    starting = set()
    for association in ("OWNER", "MEMBER", "COLLABORATOR", "CONTRIBUTOR", "FIRST_TIMER", "NONE"):
        payload = _comment_payload("/roofcheck")
        payload["comment"]["author_association"] = association
        if _route(job, "issue_comment", payload)[0]:
            starting.add(association)
    assert starting == GROUPED


# ------------------------------------------------------------------ the fetch steps


def _fetch_step(name: str) -> dict[str, Any]:
    (step,) = [s for s in _job(name)["steps"] if "git fetch" in s.get("run", "")]
    return step


@pytest.mark.parametrize("name", ["roofcheck.yml", "roofcheck-command.yml",
                                  "roofcheck-merge-queue.yml"])  # fmt: skip
def test_the_fetch_uses_the_token_for_that_command_only_and_fails_loudly(
    tmp_path: Path, name: str
) -> None:
    step = _fetch_step(name)
    script = step["run"]
    assert "||" not in script and "echo" not in script  # no quiet fallback to API mode
    assert step["env"]["FETCH_TOKEN"] == "${{ github.token }}"
    token = "ghs_" + "x" * 36
    remote = tmp_path / "origin.git"
    pull = make_pull(tmp_path, {"README.md": "the pull request's change\n"})
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(pull.repo, "push", "-q", str(remote), "main")
    workspace = tmp_path / "checkout"
    git(tmp_path, "clone", "-q", str(remote), str(workspace))
    # a `git` that logs what it is started with, then runs the real one
    shim = tmp_path / "bin"
    shim.mkdir()
    log = tmp_path / "git.log"
    real = subprocess.run(
        ["which", "git"], capture_output=True, text=True, check=True
    ).stdout.strip()
    (shim / "git").write_text(
        f'#!/bin/sh\nprintf "%s\\n" "$*" >> {log}\n'
        f'env | grep "^GIT_CONFIG" >> {log}\nexec {real} "$@"\n', "utf-8"
    )  # fmt: skip
    (shim / "git").chmod(0o755)
    env = {**os.environ, "PATH": f"{shim}:{os.environ['PATH']}", "FETCH_TOKEN": token,
           "GITHUB_SERVER_URL": "https://github.com", "PR_NUMBER": str(PR),
           "HEAD_REF": f"refs/heads/gh-readonly-queue/main/pr-{PR}-{pull.head}"}  # fmt: skip

    def fetch() -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
                              cwd=workspace, env=env, capture_output=True, text=True)  # fmt: skip

    failed = fetch()  # the remote has no such ref (as a private repository without credentials)
    assert failed.returncode != 0
    # the remote has it: fetched as data
    ref = env["HEAD_REF"] if "merge-queue" in name else f"refs/pull/{PR}/head"
    git(pull.repo, "push", "-q", str(remote), f"{pull.head}:{ref}")
    done = fetch()
    assert done.returncode == 0, done.stderr
    local = "refs/roofbot/queue-head" if "merge-queue" in name else "refs/roofbot/pr-head"
    assert git(workspace, "rev-parse", local) == pull.head
    logged = log.read_text("utf-8")
    fetches = [line for line in logged.splitlines() if line.startswith("fetch ")]
    assert fetches and all(token not in line for line in fetches)  # never on a command line
    header = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    assert f"GIT_CONFIG_VALUE_0=AUTHORIZATION: basic {header}" in logged
    assert "GIT_CONFIG_KEY_0=http.https://github.com/.extraheader" in logged
    assert token not in (workspace / ".git" / "config").read_text("utf-8")
