"""Issue 19, section 2: the status belongs to one pull request into one base. End to end: a
real git repository with two base branches, the real pull_request payloads (opened, edited)
and a merge_group payload, `roofbot pr` as a subprocess, the loopback GitHub."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from github_server import FakeGitHub
from prkit import FIXTURES, PR, Pull, git, make_pull, pull_event, run_roofbot, sample

CONFIG = ".roofbot.yml"
SOURCE = "data/benchmarks/llamacpp-rx7900xtx-gfx1100-qwen3-27b-q4-batch1-decode-tok-s.json"
BAD = "data/benchmarks/new-violation.json"


def violation() -> dict[str, str | bytes | None]:
    """A new record at three times a calibration record's value: 129% of its roof."""
    data = json.loads((FIXTURES / SOURCE).read_text("utf-8"))
    data.update(id="new-violation", value=data["value"] * 3)
    return {BAD: json.dumps(data, indent=2) + "\n"}


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server
    assert not server.errors, server.errors


def _lax_branch(pull: Pull) -> str:
    """A branch `lax` off the base whose .roofbot.yml fails on errors only."""
    git(pull.repo, "checkout", "-qb", "lax", pull.base)
    text = (pull.repo / CONFIG).read_text("utf-8")
    (pull.repo / CONFIG).write_text(text.replace("fail_on: [violation, error]",
                                                 "fail_on: [error]"), "utf-8")  # fmt: skip
    git(pull.repo, "commit", "-qam", "lax policy")
    sha = git(pull.repo, "rev-parse", "HEAD")
    git(pull.repo, "checkout", "-q", "main")
    return sha


def _event(pull: Pull, gh: FakeGitHub, base_ref: str, base_sha: str, **kw: Any) -> dict[str, Any]:
    payload = pull_event(Pull(pull.repo, base_sha, pull.head), gh, **kw)
    payload["pull_request"]["base"]["ref"] = base_ref
    return payload


def _latest(gh: FakeGitHub, sha: str) -> dict[str, str]:
    latest: dict[str, str] = {}
    for s in gh.statuses.get(sha, []):
        latest[s["context"]] = s["state"]
    return latest


def test_a_second_pr_into_a_laxer_base_can_not_turn_the_first_green(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    pull = make_pull(tmp_path, violation())
    lax = _lax_branch(pull)
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    a = run_roofbot(tmp_path, pull.repo, gh, "pull_request_target",
                    _event(pull, gh, "main", pull.base))  # fmt: skip
    assert a.code == 1
    gh.add_pull(PR + 1, head_sha=pull.head, base_sha=lax, base_ref="lax")
    b_event = _event(pull, gh, "lax", lax)
    b_event["number"] = b_event["pull_request"]["number"] = PR + 1
    b = run_roofbot(tmp_path, pull.repo, gh, "pull_request_target", b_event)
    # against the lax base the head puts `fail_on` back to [violation, error]: an edit of the
    # configuration, held for a maintainer whatever it does
    assert b.code == 1, b.stdout
    assert "maintainer must approve" in gh.statuses[pull.head][-1]["description"]
    # one status per base: PR-B's result never stands for the check main requires
    assert _latest(gh, pull.head) == {"roofcheck/main": "failure", "roofcheck/lax": "failure"}
    assert [s["context"] for s in gh.statuses[pull.head]].count("roofcheck/main") == 2


def test_a_retargeted_pr_is_checked_again_for_its_new_base(tmp_path: Path, gh: FakeGitHub) -> None:
    pull = make_pull(tmp_path, violation())
    lax = _lax_branch(pull)
    gh.add_pull(PR, head_sha=pull.head, base_sha=lax, base_ref="lax")
    run_roofbot(tmp_path, pull.repo, gh, "pull_request_target", _event(pull, gh, "lax", lax))
    assert _latest(gh, pull.head) == {"roofcheck/lax": "failure"}  # held: it edits fail_on
    # retargeted to main: `edited` with changes.base
    edited = _event(pull, gh, "main", pull.base, action="edited")
    edited["changes"] = {"base": {"ref": {"from": "lax"}, "sha": {"from": lax}}}
    run = run_roofbot(tmp_path, pull.repo, gh, "pull_request_target", edited)
    assert run.code == 1, run.stdout
    assert _latest(gh, pull.head) == {"roofcheck/lax": "failure", "roofcheck/main": "failure"}
    assert "1 violation" in gh.statuses[pull.head][-1]["description"]
    # an edit of the title alone changes nothing roofbot checks
    gh.clear_requests()
    title = _event(pull, gh, "main", pull.base, action="edited")
    title["changes"] = {"title": {"from": "old title"}}
    run = run_roofbot(tmp_path, pull.repo, gh, "pull_request_target", title)
    assert run.code == 0 and "nothing to do" in run.stdout and gh.requests == []


def test_a_merge_queue_group_is_checked_on_its_own_head(tmp_path: Path, gh: FakeGitHub) -> None:
    pull = make_pull(tmp_path, violation())
    payload = sample("merge_group.checks_requested.json")
    group = payload["merge_group"]
    group.update(head_sha=pull.head, base_sha=pull.base, base_ref="refs/heads/main",
                 head_ref=f"refs/heads/gh-readonly-queue/main/pr-{PR}-{pull.head}")  # fmt: skip
    run = run_roofbot(tmp_path, pull.repo, gh, "merge_group", payload)
    assert run.code == 1, run.stdout
    assert [(s["context"], s["state"]) for s in gh.statuses[pull.head]] == [
        ("roofcheck/main", "pending"), ("roofcheck/main", "failure")]  # fmt: skip
    assert gh.comments_on(PR) == []  # a group has no pull request to comment on
    assert "new-violation" in run.summary
