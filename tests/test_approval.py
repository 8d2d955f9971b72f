"""`/roofcheck approve <sha>` on github.com: an approval names the head it approves, holds for
the base it was given on, and is read from the maintainer's own comment (the commenter's
permission asked again) on every run, never from text roofbot wrote. End to end: a real git
repository, the real issue_comment, pull_request and merge_group payloads, `roofbot pr` as a
subprocess, the loopback GitHub (which lists the pull request's `base_ref_changed` events)."""

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
    git,
    make_pull,
    pull_event,
    run_roofbot,
    sample,
)

from roofbot.action.command_rules import REPLY_MARKER, Kind, named_sha, names_head, parse_command
from roofbot.render.markdown.context import MARKER

RTX4090 = "data/accelerators/nvidia-rtx-4090.json"
SOURCE = "data/benchmarks/comm-5090-wsl2-qwen3-14b-awq-decode-tok-s.json"
NEW = "data/benchmarks/new-4090-qwen3-14b-awq-decode.json"
HELD = "changes the instrument: a maintainer must approve"
LATER = "2099-01-01T00:00:00Z"  # a retarget after every comment the test wrote so far
LATEST = "2099-01-02T00:00:00Z"


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server
    assert not server.errors, server.errors


def _held_pull(tmp: Path) -> Pull:
    """A pull request whose new record passes only under the 4090 entry it makes 10x faster:
    held until a maintainer approves."""
    part = json.loads((FIXTURES / RTX4090).read_text("utf-8"))
    part["memory_bandwidth_gbps"] *= 10
    record = json.loads((FIXTURES / SOURCE).read_text("utf-8"))
    record.update(id="new-4090-qwen3-14b-awq-decode", accelerator_ids=["nvidia-rtx-4090"],
                  name="Qwen3-14B AWQ under vLLM on one 24GB card", value=501.1,
                  methodology="vLLM serving Qwen/Qwen3-14B-AWQ on one RTX 4090 with 24GB GDDR6X, batch 1.")  # fmt: skip
    return make_pull(tmp, {RTX4090: json.dumps(part, indent=2) + "\n",
                           NEW: json.dumps(record, indent=2) + "\n"})  # fmt: skip


def _final(gh: FakeGitHub, sha: str, context: str = "roofcheck/main") -> dict[str, Any]:
    mine = [s for s in gh.statuses.get(sha, []) if s["context"] == context]
    return mine[-1]


def _say(tmp: Path, gh: FakeGitHub, pull: Pull, text: str, login: str = "maint") -> Any:
    """`text` commented on the pull request by `login` (a MEMBER), and the job it starts."""
    comment = gh.add_comment(PR, text, login=login, author_association="MEMBER")
    payload = comment_event(gh, text, comment_id=comment.id)
    payload["comment"]["user"]["login"] = login
    payload["comment"]["author_association"] = "MEMBER"
    return run_roofbot(tmp, pull.repo, gh, "issue_comment", payload), comment


def _synchronize(tmp: Path, gh: FakeGitHub, pull: Pull) -> Any:
    """The pull_request_target run of a push (the PR into main)."""
    payload = pull_event(pull, gh, "synchronize")
    payload["pull_request"]["base"]["ref"] = "main"
    return run_roofbot(tmp, pull.repo, gh, "pull_request_target", payload)


def _replies(gh: FakeGitHub) -> list[str]:
    return [c.body for c in gh.comments_on(PR) if c.user_login == gh.bot_login
            and c.body.startswith(REPLY_MARKER)]  # fmt: skip


def _reactions(gh: FakeGitHub, comment_id: int) -> list[str]:
    return [r.content for r in gh.reactions if r.comment_id == comment_id]


def test_the_command_reads_the_sha_it_names() -> None:
    assert parse_command("/roofcheck approve") == parse_command("/roofcheck approve please")
    assert parse_command("/roofcheck approve").kind is Kind.APPROVE  # type: ignore[union-attr]
    assert parse_command("/roofcheck approve 0a1B2c3").sha == "0a1b2c3"  # type: ignore[union-attr]
    assert parse_command("/roofcheck approve 0a1b2c").sha is None  # type: ignore[union-attr]
    assert named_sha("> /roofcheck approve 0a1b2c3") is None
    assert names_head("0a1b2c3", "0a1b2c3" + "d" * 33) and not names_head("0a1b2c", "0a1b2c" * 7)


def test_approve_must_name_the_current_head(tmp_path: Path, gh: FakeGitHub) -> None:
    pull = _held_pull(tmp_path)
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    gh.set_permission("maint", "maintain")
    _synchronize(tmp_path, gh, pull)
    assert _final(gh, pull.head)["description"] == HELD
    (sticky,) = [c.body for c in gh.comments_on(PR) if c.body.startswith(MARKER)]
    assert f"`/roofcheck approve {pull.head[:12]}`" in sticky  # the command to copy names the head
    # a bare approve approves nothing, and the reply says why (and which head to name)
    run, bare = _say(tmp_path, gh, pull, "/roofcheck approve")
    assert run.code == 1, run.stdout  # held, as before
    assert "must name the head" in _replies(gh)[-1] and pull.head[:12] in _replies(gh)[-1]
    assert _reactions(gh, bare.id) == ["eyes", "confused"]
    # the head is checked again (a command in the PR's concurrency group always sets a status)
    assert [s["state"] for s in gh.statuses[pull.head]] == ["pending", "failure"] * 2
    assert _final(gh, pull.head)["description"] == HELD
    # the author pushed after the maintainer reviewed: the reviewed SHA is stale
    reviewed = pull.base  # any commit that is not the head
    run, stale = _say(tmp_path, gh, pull, f"/roofcheck approve {reviewed[:10]}")
    assert "does not name this pull request's head" in _replies(gh)[-1]
    assert _reactions(gh, stale.id) == ["eyes", "confused"]
    assert _final(gh, pull.head)["description"] == HELD
    # a synchronize run never counts those two comments either
    _synchronize(tmp_path, gh, pull)
    assert _final(gh, pull.head)["description"] == HELD
    # the head, by 7 hex digits
    run, good = _say(tmp_path, gh, pull, f"/roofcheck approve {pull.head[:7].upper()}")
    assert run.code == 0, run.stdout
    final = _final(gh, pull.head)
    assert final["state"] == "success" and "approved by maint" in final["description"]
    assert _reactions(gh, good.id) == ["eyes", "rocket"]


def test_an_approval_holds_for_its_base_branch_only(tmp_path: Path, gh: FakeGitHub) -> None:
    pull = _held_pull(tmp_path)
    git(pull.repo, "branch", "release", pull.base)
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    gh.set_permission("maint", "maintain")
    _say(tmp_path, gh, pull, f"/roofcheck approve {pull.head}")
    assert _final(gh, pull.head)["state"] == "success"
    # retargeted to release: GitHub records base_ref_changed, the `edited` event runs
    gh.retarget(PR, "release", pull.base, at=LATER)
    edited = pull_event(pull, gh, "edited")
    edited["pull_request"]["base"]["ref"] = "release"
    edited["changes"] = {"base": {"ref": {"from": "main"}, "sha": {"from": pull.base}}}
    run = run_roofbot(tmp_path, pull.repo, gh, "pull_request_target", edited)
    assert run.code == 1, run.stdout
    assert _final(gh, pull.head, "roofcheck/release")["description"] == HELD
    # a new approval, given on the new base, counts
    gh.clear_requests()
    run, comment = _say(tmp_path, gh, pull, f"/roofcheck approve {pull.head[:8]}")
    comment.created_at = LATEST  # (the fake stamps comments with the real clock)
    run = run_roofbot(tmp_path, pull.repo, gh, "pull_request_target", edited)
    assert run.code == 0, run.stdout
    assert _final(gh, pull.head, "roofcheck/release")["state"] == "success"
    assert gh.count("GET", rf"/issues/{PR}/events") >= 1


def test_an_approval_is_read_from_its_source_never_from_roofbots_text(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    pull = _held_pull(tmp_path)
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    _synchronize(tmp_path, gh, pull)
    # another workflow of the repository posts with the Actions token: as github-actions[bot],
    # the sticky comment's author; neither its hidden line nor a command it writes approves
    (sticky,) = [c for c in gh.comments_on(PR) if c.body.startswith(MARKER)]
    sticky.body = sticky.body.replace(
        MARKER, f"{MARKER}\n<!-- roofbot:approved sha={pull.head} by=maint -->", 1
    )
    gh.add_comment(PR, f"/roofcheck approve {pull.head}", login=gh.bot_login, user_type="Bot")
    _synchronize(tmp_path, gh, pull)
    assert _final(gh, pull.head)["description"] == HELD
    # a maintainer approves; later their permission is taken away: the approval lapses
    gh.set_permission("maint", "maintain")
    _say(tmp_path, gh, pull, f"/roofcheck approve {pull.head[:12]}")
    assert _final(gh, pull.head)["state"] == "success"
    gh.set_permission("maint", "read")
    run = _synchronize(tmp_path, gh, pull)
    assert run.code == 1 and "permission read" in run.stdout
    assert _final(gh, pull.head)["description"] == HELD


def test_a_queued_prs_approval_counts_for_its_group(tmp_path: Path, gh: FakeGitHub) -> None:
    """The SHA in `gh-readonly-queue/<base>/pr-<N>-<sha>` is neither the PR's head nor the
    group's (GitHub's own example shows so): the head an approval must name is GET /pulls/N's."""
    pull = _held_pull(tmp_path)
    payload = sample("merge_group.checks_requested.json")
    other = "f95f852bd8fca8fcc58a9a2d6c842781e32a215e"  # GitHub's example: not the PR's head
    payload["merge_group"].update(head_sha=pull.head, base_sha=pull.base, base_ref="refs/heads/main",
                                  head_ref=f"refs/heads/gh-readonly-queue/main/pr-{PR}-{other}")  # fmt: skip
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    run = run_roofbot(tmp_path, pull.repo, gh, "merge_group", payload)
    assert run.code == 1, run.stdout
    assert _final(gh, pull.head)["description"] == HELD
    gh.set_permission("maint", "maintain")
    gh.add_comment(PR, f"/roofcheck approve {pull.head[:9]}", login="maint")
    run = run_roofbot(tmp_path, pull.repo, gh, "merge_group", payload)
    assert run.code == 0, run.stdout
    final = _final(gh, pull.head)
    assert final["state"] == "success" and "approved by maint" in final["description"]
    assert gh.count("GET", rf"/pulls/{PR}$") == 2  # one per held run: the head as it is now
    # the queued PR retargeted elsewhere: its approvals do not count for a group into main
    gh.retarget(PR, "release", pull.base)
    run = run_roofbot(tmp_path, pull.repo, gh, "merge_group", payload)
    assert run.code == 1 and "now targets release" in run.stdout
