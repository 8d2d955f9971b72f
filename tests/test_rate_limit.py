"""The final status under a real rate limit, and nothing sent while one holds. The loopback
GitHub holds a limit as GitHub does (every request until the end its headers give, or, for a
secondary limit without `retry-after`, as long as it lasts); the action runs in this process on
a real git repository and a real payload, with the client and the server on one injected clock:
waits are counted, never slept.

GitHub's documentation: a primary limit lasts until `x-ratelimit-reset`; a secondary limit
until `retry-after`, or, without it, wait at least a minute and then longer, exponentially."""

from __future__ import annotations

import io
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from github_server import FakeGitHub, FileState
from prkit import FIXTURES, PR, Pull, drop_head, make_pull, pull_event, read_outputs

from roofbot.action.pull import Checked, check_pull
from roofbot.action.settings import settings_from_env
from roofbot.adapters.github.client import GitHubClient

SOURCE = "data/benchmarks/llamacpp-rx7900xtx-gfx1100-qwen3-27b-q4-batch1-decode-tok-s.json"


@dataclass
class StepClock:
    """GitHub's and roofbot's time: `sleep` moves it on at once and remembers the wait."""

    now: float = field(default_factory=time.time)
    slept: list[float] = field(default_factory=list)

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(round(seconds))
        self.now += seconds


@pytest.fixture
def clock() -> StepClock:
    return StepClock()


@pytest.fixture
def gh(clock: StepClock) -> Iterator[FakeGitHub]:
    with FakeGitHub(clock=clock.time) as server:
        yield server
    assert not server.errors, server.errors


@dataclass
class InProcessRun:
    code: int
    log: str
    outputs: dict[str, str]


def run_in_process(
    tmp: Path, pull: Pull, gh: FakeGitHub, clock: StepClock, **extra: str
) -> InProcessRun:
    """`roofbot pr` on a pull_request_target event, in this process, on `clock`."""
    event, summary, outputs = tmp / "event.json", tmp / "summary.md", tmp / "output.txt"
    event.write_text(json.dumps(pull_event(pull, gh)), "utf-8")
    summary.write_text("", "utf-8")
    outputs.write_text("", "utf-8")
    env = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "pull_request_target",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_REPOSITORY": gh.full_name,
        "GITHUB_API_URL": gh.base_url,
        "GITHUB_TOKEN": gh.token or "",
        "GITHUB_WORKSPACE": str(pull.repo),
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_OUTPUT": str(outputs),
        "RUNNER_TEMP": str(tmp),
        "INPUT_PLOT": "false",
        **extra,
    }
    s = settings_from_env(env)
    assert s is not None
    out = io.StringIO()
    with GitHubClient.from_env(env, clock) as client:
        checked: Checked = check_pull(s, env, client, out)
    return InProcessRun(checked.code, out.getvalue(), read_outputs(outputs))


def _passing_pull(tmp: Path, gh: FakeGitHub) -> Pull:
    data = json.loads((FIXTURES / SOURCE).read_text("utf-8"))
    data["id"] = "new-pass"
    pull = make_pull(tmp, {"data/benchmarks/new-pass.json": json.dumps(data, indent=2) + "\n"})
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    return pull


def _states(gh: FakeGitHub, sha: str) -> list[str]:
    return [s["state"] for s in gh.statuses.get(sha, [])]


def test_the_final_status_waits_for_a_primary_reset(
    tmp_path: Path, gh: FakeGitHub, clock: StepClock
) -> None:
    pull = _passing_pull(tmp_path, gh)
    # the pending status lands, then the limit holds every status POST for 4 minutes
    gh.fail_rate_limited("POST", r"/statuses/", reset_in=240, skip=1)
    run = run_in_process(tmp_path, pull, gh, clock)
    assert run.code == 0, run.log
    assert _states(gh, pull.head) == ["pending", "success"]
    assert "setting the success status failed" in run.log
    assert len(clock.slept) == 1 and 241 <= clock.slept[0] <= 242  # to the reset, once
    assert gh.count("POST", r"/statuses/") == 3


def test_the_final_status_waits_for_a_secondary_retry_after(
    tmp_path: Path, gh: FakeGitHub, clock: StepClock
) -> None:
    pull = _passing_pull(tmp_path, gh)
    gh.fail_rate_limited("POST", r"/statuses/", status=429, secondary=True, retry_after=75,
                         skip=1)  # fmt: skip
    run = run_in_process(tmp_path, pull, gh, clock)
    assert run.code == 0, run.log
    assert _states(gh, pull.head) == ["pending", "success"]
    assert clock.slept == [75] and "again in 75 s" in run.log


def test_a_secondary_limit_without_retry_after_backs_off_from_a_minute(
    tmp_path: Path, gh: FakeGitHub, clock: StepClock
) -> None:
    """Not the primary window's reset (up to an hour away): a minute, then twice that."""
    pull = _passing_pull(tmp_path, gh)
    gh.rate_reset = int(clock.now) + 3500  # the hour's window resets much later
    gh.fail_secondary_limit("POST", r"/statuses/", hold=150, skip=1)
    run = run_in_process(tmp_path, pull, gh, clock)
    assert run.code == 0, run.log
    assert _states(gh, pull.head) == ["pending", "success"]
    assert clock.slept == [60, 120]
    assert gh.count("POST", r"/statuses/") == 4  # pending, limited, limited, success


def test_a_limit_past_the_bound_fails_the_job(
    tmp_path: Path, gh: FakeGitHub, clock: StepClock
) -> None:
    pull = _passing_pull(tmp_path, gh)
    gh.fail_rate_limited("POST", r"/statuses/", reset_in=1800, skip=1)
    run = run_in_process(tmp_path, pull, gh, clock, ROOFBOT_STATUS_WAIT="600")
    assert clock.slept == []  # never waits for what it can't outlast
    assert _states(gh, pull.head) == ["pending"]  # GitHub never took the final status
    assert run.code == 1, run.log  # so the job itself is red: the check can't look green
    assert "past roofbot's bound" in run.log
    assert "this job fails so that it shows" in run.log


def test_nothing_is_sent_after_the_first_rate_limit(
    tmp_path: Path, gh: FakeGitHub, clock: StepClock
) -> None:
    """API mode reads 40 blobs; the first one meets a limit: no other blob is asked for."""
    data = json.loads((FIXTURES / SOURCE).read_text("utf-8"))
    files = {}
    for i in range(40):
        data["id"] = f"rec-{i:02d}"
        files[f"data/benchmarks/rec-{i:02d}.json"] = json.dumps(data, indent=2) + "\n"
    pull = make_pull(tmp_path, files)
    drop_head(pull)  # API mode: the base is in the workspace, the head is not
    gh.add_commit_files(pull.head, {p: d.encode() for p, d in files.items()})
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base,
                files=[FileState(p, status="added") for p in files])  # fmt: skip
    gh.fail_secondary_limit("GET", r"/git/blobs/", hold=3000)
    run = run_in_process(tmp_path, pull, gh, clock)
    assert gh.count("GET", r"/git/blobs/") == 1, run.log
    assert run.code == 1
    assert run.outputs["ok"] == "false"
