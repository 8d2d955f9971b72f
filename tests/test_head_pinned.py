"""Issue 19, section 3: the head roofbot checks is the head it judges. API mode (the PR's
commits are not in the workspace, as on a private repository checked out without
credentials): `roofbot pr` end to end on the real pull_request payload against the loopback
GitHub, which serves the comparison, the git tree and the blobs as GitHub's REST API does."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from github_server import FakeGitHub, FileState
from prkit import FIXTURES, PR, drop_head, make_pull, run_action

SOURCE = "data/benchmarks/llamacpp-rx7900xtx-gfx1100-qwen3-27b-q4-batch1-decode-tok-s.json"
BAD = "data/benchmarks/x-bad.json"
GOOD = "data/benchmarks/y-good.json"
LINK = "data/benchmarks/z-link.json"


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server
    assert not server.errors, server.errors


def _record(rid: str, factor: float = 1.0) -> bytes:
    data = json.loads((FIXTURES / SOURCE).read_text("utf-8"))
    data.update(id=rid, value=round(data["value"] * factor, 2))
    return (json.dumps(data, indent=2) + "\n").encode()


def _states(gh: FakeGitHub, sha: str) -> list[str]:
    return [s["state"] for s in gh.statuses.get(sha, [])]


def test_the_listing_is_the_event_heads_not_the_prs_current_one(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    s1 = {BAD: _record("x-bad", 3.0), GOOD: _record("y-good")}  # X at 129% of its roof
    pull = make_pull(tmp_path, {p: d.decode() for p, d in s1.items()})
    drop_head(pull)  # API mode: the base with its history, not the head
    s2 = "5" * 40  # the PR's head by now: X was dropped
    gh.add_commit_files(pull.head, s1)
    gh.add_commit_files(s2, {GOOD: s1[GOOD]})
    gh.add_pull(PR, head_sha=s2, base_sha=pull.base, files=[FileState(GOOD, status="added")])
    run = run_action(tmp_path, pull, gh)  # the event says S1
    assert run.code == 1, run.stdout
    assert _states(gh, pull.head) == ["pending", "failure"]
    body = gh.comments_on(PR)[0].body
    assert "x-bad" in body and "violation" in body
    assert gh.count("GET", r"/pulls/\d+/files") == 0
    assert gh.count("GET", rf"/compare/{pull.base}\.\.\.{pull.head}$") == 1


def test_a_link_is_never_followed_in_api_mode(tmp_path: Path, gh: FakeGitHub) -> None:
    files = {GOOD: _record("y-good"), BAD: _record("x-bad", 3.0)}
    pull = make_pull(tmp_path, {p: d.decode() for p, d in files.items()})
    drop_head(pull)  # API mode: the base with its history, not the head
    gh.add_commit_files(pull.head, files)
    gh.add_link(LINK, "y-good.json", ref=pull.head)  # the contents API would follow it
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    run = run_action(tmp_path, pull, gh)
    assert run.code == 1
    body = gh.comments_on(PR)[0].body
    assert "z-link.json can't be read: it is a symbolic link" in body
    report = json.loads(Path(run.outputs["report-path"]).read_text("utf-8"))
    (linked,) = [r for r in report["records"] if r["path"] == LINK]
    assert linked["verdict"] == "error"
    assert "symbolic link" in linked["messages"][0]
    assert gh.count("GET", r"/contents/") == 0  # modes from the tree, blobs by SHA
    assert gh.count("GET", rf"/git/trees/{pull.head}$") == 1
