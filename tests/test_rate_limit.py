"""Issue 19, section 6: the final status under a real rate limit. The loopback GitHub holds a
limit as GitHub does (every request until the reset its headers give; tests make the reset a
few seconds), and `roofbot pr` (a subprocess, a real git repository, the real payload) waits
it out within its bound, or fails the job so that it shows."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from github_server import FakeGitHub
from prkit import FIXTURES, PR, make_pull, run_action

SOURCE = "data/benchmarks/llamacpp-rx7900xtx-gfx1100-qwen3-27b-q4-batch1-decode-tok-s.json"


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server
    assert not server.errors, server.errors


def _passing_pull(tmp: Path, gh: FakeGitHub):  # type: ignore[no-untyped-def]
    data = json.loads((FIXTURES / SOURCE).read_text("utf-8"))
    data["id"] = "new-pass"
    pull = make_pull(tmp, {"data/benchmarks/new-pass.json": json.dumps(data, indent=2) + "\n"})
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    return pull


def _states(gh: FakeGitHub, sha: str) -> list[str]:
    return [s["state"] for s in gh.statuses.get(sha, [])]


def test_the_final_status_waits_for_a_primary_reset(tmp_path: Path, gh: FakeGitHub) -> None:
    pull = _passing_pull(tmp_path, gh)
    # the pending status lands, then the limit holds every status POST for 4 s
    gh.fail_rate_limited("POST", r"/statuses/", reset_in=4, skip=1)
    run = run_action(tmp_path, pull, gh, ROOFBOT_STATUS_WAIT="30")
    assert run.code == 0, run.stdout
    assert _states(gh, pull.head) == ["pending", "success"]
    assert "setting the success status failed" in run.stdout
    assert gh.count("POST", r"/statuses/") <= 4  # waited for the reset, not hammering


def test_the_final_status_waits_for_a_secondary_retry_after(tmp_path: Path, gh: FakeGitHub) -> None:
    pull = _passing_pull(tmp_path, gh)
    # GitHub asks 60 s or more; 11 s here (above the 10 s any other call waits at most)
    gh.fail_rate_limited("POST", r"/statuses/", status=429, secondary=True, retry_after=11,
                         skip=1)  # fmt: skip
    run = run_action(tmp_path, pull, gh, ROOFBOT_STATUS_WAIT="30")
    assert run.code == 0, run.stdout
    assert _states(gh, pull.head) == ["pending", "success"]
    assert "again in 11 s" in run.stdout


def test_a_limit_past_the_bound_fails_the_job(tmp_path: Path, gh: FakeGitHub) -> None:
    pull = _passing_pull(tmp_path, gh)
    gh.fail_rate_limited("POST", r"/statuses/", reset_in=120, skip=1)
    run = run_action(tmp_path, pull, gh, ROOFBOT_STATUS_WAIT="5")
    assert run.seconds < 30
    assert _states(gh, pull.head) == ["pending"]  # GitHub never took the final status
    assert run.code == 1, run.stdout  # so the job itself is red: the check can't look green
    assert "past roofbot's bound" in run.stdout
    assert "this job fails so that it shows" in run.stdout
