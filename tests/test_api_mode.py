"""API mode on github.com (the PR's head is not in the workspace): the base is read at the base
commit from git, never from the checked-out folder, and a run that can't do that refuses; the
changed files are all seen, past the 300 a comparison lists. End to end: a real git repository,
the real pull_request and issue_comment payloads, `roofbot pr` as a subprocess, the loopback
GitHub serving the commits' comparisons, trees and blobs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from github_server import FakeGitHub
from prkit import (
    FIXTURES,
    PR,
    Pull,
    comment_event,
    drop_head,
    git,
    make_pull,
    mirror,
    pull_event,
    run_roofbot,
)

CONFIG = ".roofbot.yml"
SOURCE = "data/benchmarks/llamacpp-rx7900xtx-gfx1100-qwen3-27b-q4-batch1-decode-tok-s.json"
BAD = "data/benchmarks/new-violation.json"


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server
    assert not server.errors, server.errors


def violation() -> str:
    """A new record at three times a calibration record's value: 129% of its roof."""
    data = json.loads((FIXTURES / SOURCE).read_text("utf-8"))
    data.update(id="new-violation", value=data["value"] * 3)
    return json.dumps(data, indent=2) + "\n"


def lax_config() -> str:
    """The fixtures' .roofbot.yml, failing on errors only (a violation passes)."""
    text = (FIXTURES / CONFIG).read_text("utf-8")
    assert "fail_on: [violation, error]" in text
    return text.replace("fail_on: [violation, error]", "fail_on: [error]")


def _states(gh: FakeGitHub, sha: str) -> list[str]:
    return [s["state"] for s in gh.statuses.get(sha, [])]


def _pull_request_event(pull: Pull, gh: FakeGitHub, base_ref: str = "main") -> dict[str, Any]:
    payload = pull_event(pull, gh, "synchronize")
    payload["pull_request"]["base"]["ref"] = base_ref
    return payload


def test_pull_request_with_the_usual_checkout_refuses_api_mode(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    """`on: pull_request` with actions/checkout's defaults: the merge commit at depth 1. Its
    folder already holds the PR's edits (here a laxer .roofbot.yml): taken as the base, the PR
    judged itself and was green."""
    pull = make_pull(tmp_path, {CONFIG: lax_config(), BAD: violation()})
    git(pull.repo, "checkout", "-qb", "merge", "main")
    git(pull.repo, "merge", "--no-ff", "-q", "-m", "merge", "pr")
    git(pull.repo, "checkout", "-q", "main")
    workspace = tmp_path / "checkout"
    workspace.mkdir()
    git(workspace, "init", "-q")
    git(workspace, "fetch", "-q", "--depth", "1", f"file://{pull.repo}", "merge")
    git(workspace, "checkout", "-q", "FETCH_HEAD")
    for sha in (pull.base, pull.head):
        mirror(gh, pull.repo, sha)
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    run = run_roofbot(tmp_path, workspace, gh, "pull_request", _pull_request_event(pull, gh))
    assert run.code == 2, run.stdout
    assert _states(gh, pull.head) == ["pending", "error"]
    final = gh.statuses[pull.head][-1]
    assert final["description"].startswith("the base commit is not in the workspace")
    assert f"its base commit {pull.base[:12]}" in run.stdout and "merge commit" in run.stdout
    assert "fetch-depth: 0" in run.stdout
    assert gh.count("GET", r"/compare/") == 0  # nothing was read, nothing judged


def test_api_mode_reads_the_base_at_its_commit_not_the_checked_out_folder(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    """The base commit is in the workspace but another commit is checked out (the merge
    commit's folder, or the default branch): the base's own config judges."""
    pull = make_pull(tmp_path, {BAD: violation()})
    (pull.repo / CONFIG).write_text(lax_config(), "utf-8")  # the folder, not the base commit
    for sha in (pull.base, pull.head):
        mirror(gh, pull.repo, sha)
    drop_head(pull)
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    run = run_roofbot(tmp_path, pull.repo, gh, "pull_request_target",
                      _pull_request_event(pull, gh))  # fmt: skip
    assert run.code == 1, run.stdout
    assert "changed files from api: 1" in run.stdout
    assert _states(gh, pull.head) == ["pending", "failure"]


def test_a_rerun_in_api_mode_reads_the_prs_base_branch_config(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    """`/roofcheck` runs from the default branch (main, lax here); the PR goes into `release`,
    whose config fails on violations. The rerun must judge by release's config."""
    pull = make_pull(tmp_path, {BAD: violation()})
    git(pull.repo, "branch", "release", pull.base)
    (pull.repo / CONFIG).write_text(lax_config(), "utf-8")
    git(pull.repo, "commit", "-qam", "main: a laxer policy")
    for sha in (pull.base, pull.head):
        mirror(gh, pull.repo, sha)
    drop_head(pull)
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base, base_ref="release")
    command = gh.add_comment(PR, "/roofcheck", login="zhouzhuojie", author_association="OWNER")
    payload = comment_event(gh, "/roofcheck", comment_id=command.id)
    run = run_roofbot(tmp_path, pull.repo, gh, "issue_comment", payload)
    assert run.code == 1, run.stdout
    assert "changed files from api: 1" in run.stdout
    final = gh.statuses[pull.head][-1]
    assert (final["context"], final["state"]) == ("roofcheck/release", "failure")


def _many_files_pull(tmp: Path, gh: FakeGitHub) -> Pull:
    """300 filler files that sort before the records, and one violating record: the
    comparison lists the 300 fillers only."""
    fillers: dict[str, str | bytes | None] = {
        f"aaa-filler/{i:03d}.txt": f"filler {i}\n" for i in range(300)
    }
    pull = make_pull(tmp, {**fillers, BAD: violation()})
    for sha in (pull.base, pull.head):
        mirror(gh, pull.repo, sha)
    drop_head(pull)
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    return pull


def test_past_the_300_files_a_comparison_lists_the_trees_are_diffed(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    pull = _many_files_pull(tmp_path, gh)
    run = run_roofbot(tmp_path, pull.repo, gh, "pull_request_target",
                      _pull_request_event(pull, gh))  # fmt: skip
    assert run.code == 1, run.stdout
    assert "301 changed files read from the two commits' trees" in run.stdout
    assert _states(gh, pull.head) == ["pending", "failure"]
    assert "new-violation" in gh.comments_on(PR)[0].body
    assert gh.count("GET", r"/git/trees/[0-9a-f]+$") >= 2  # the merge base's and the head's


def test_a_truncated_tree_fails_closed(tmp_path: Path, gh: FakeGitHub) -> None:
    pull = _many_files_pull(tmp_path, gh)
    gh.tree_entry_limit = 200  # as GitHub truncates a tree past 100,000 entries
    run = run_roofbot(tmp_path, pull.repo, gh, "pull_request_target",
                      _pull_request_event(pull, gh))  # fmt: skip
    assert run.code == 1, run.stdout
    assert _states(gh, pull.head) == ["pending", "error"]
    assert "too many changed files" in gh.statuses[pull.head][-1]["description"]
    assert "fetch the pull request's head" in run.stdout
