"""The inline review over many pushes, as GitHub keeps it: a submitted review can't be deleted
(it stays in the timeline), a line comment whose hunk changed comes back with `line: null`
(outdated), and a CHANGES_REQUESTED review blocks until it is dismissed. What roofbot leaves
on the pull request must not grow with the number of runs. End to end: `roofbot pr` on a real
git repository and payload, against tests/github_server.py, which holds those rules."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from github_server import FakeGitHub
from prkit import MPT, PR, violating_copy
from test_review import run

RC = {"INPUT_REVIEW-EVENT": "request-changes"}


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server
    assert not server.errors, server.errors


def _records(n: int, push: int) -> dict[str, str]:
    """`n` violating records; each push moves every value (its line's hunk changes)."""
    out = {}
    for i in range(n):
        data = json.loads(violating_copy(150.0 + i + 0.5 * push))
        data["id"] = f"gen-{i:02d}"
        out[f"data/benchmarks/gen-{i:02d}.json"] = json.dumps(data, indent=2) + "\n"
    return out


def test_five_pushes_leave_one_comment_per_finding(tmp_path: Path, gh: FakeGitHub) -> None:
    """Every push outdates the 20 line comments: all 20 go, 20 new ones come (not 20 -> 39 ->
    58 -> 77 -> 96)."""
    for push in range(5):
        result, _ = run(tmp_path / f"push-{push}", gh, _records(20, push))
        assert result.code == 1, result.stdout
        comments = gh.review_comments_on(PR)
        assert len(comments) == 20, (push, len(comments))
    assert gh.count("DELETE", r"/pulls/comments/") == 20  # the last push's run: all of them


def test_a_rerun_adds_nothing_to_the_timeline(tmp_path: Path, gh: FakeGitHub) -> None:
    run(tmp_path / "one", gh, {MPT: violating_copy()}, **RC)
    run(tmp_path / "two", gh, {MPT: violating_copy()}, **RC)  # same head content
    assert [r.state for r in gh.reviews_on(PR)] == ["CHANGES_REQUESTED"]


def test_changes_are_requested_once_and_dismissed_when_fixed(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    run(tmp_path / "one", gh, {MPT: violating_copy(150.0)}, **RC)
    run(tmp_path / "two", gh, {MPT: violating_copy(160.0)}, **RC)  # a new finding's text
    assert [r.state for r in gh.reviews_on(PR)] == ["CHANGES_REQUESTED", "COMMENTED"]
    fixed, _ = run(tmp_path / "three", gh, {MPT: violating_copy(57.6)}, **RC)
    assert fixed.code == 0, fixed.stdout
    assert [r.state for r in gh.reviews_on(PR)] == ["DISMISSED", "COMMENTED"]
    assert gh.review_comments_on(PR) == []
    run(tmp_path / "four", gh, {MPT: violating_copy(57.6)}, **RC)
    assert gh.count("PUT", r"/dismissals$") == 0  # nothing left to dismiss
    run(tmp_path / "five", gh, {MPT: violating_copy(150.0)}, **RC)
    assert [r.state for r in gh.reviews_on(PR)][-1] == "CHANGES_REQUESTED"  # asks again


def test_the_fake_keeps_submitted_reviews_and_outdates_moved_lines(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    run(tmp_path / "one", gh, {MPT: violating_copy(150.0)})
    (review,) = gh.reviews_on(PR)
    (comment,) = gh.review_comments_on(PR)
    request = urllib.request.Request(
        f"{gh.repo_url}/pulls/{PR}/reviews/{review.id}", method="DELETE",
        headers={"Authorization": f"token {gh.token}", "X-GitHub-Api-Version": "2022-11-28"},
    )  # fmt: skip
    with pytest.raises(urllib.error.HTTPError) as excinfo:
        urllib.request.urlopen(request, timeout=5)
    assert excinfo.value.code == 422 and review.id in gh.reviews
    gh.pulls[PR].files[0].patch = "@@ -1 +1 @@\n-other\n+lines"  # the hunk changed
    assert gh._review_comment_json(comment)["line"] is None
