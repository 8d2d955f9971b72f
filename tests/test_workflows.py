"""The workflows a records repository installs (examples/), read as data: least privilege,
SHA pins, the token by environment, the PR head never checked out or run, one roofbot per PR
that is never cancelled midway, and no untrusted expression inside a script. (actionlint and
zizmor run on the same files in .ci/run.)"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
WORKFLOWS = {
    "roofcheck.yml": "pull_request_target",
    "roofcheck-command.yml": "issue_comment",
    "roofcheck-merge-queue.yml": "merge_group",
}
GRANTED = {"contents": "read", "pull-requests": "write", "statuses": "write"}
#: a merge queue's group has no comment: it only reads the queued PR's approval
QUEUE_GRANTED = {"contents": "read", "pull-requests": "read", "statuses": "write"}
QUEUE_BASE = "${{ github.event.merge_group.base_sha }}"


def load(name: str) -> dict[Any, Any]:
    data: dict[Any, Any] = yaml.safe_load((EXAMPLES / name).read_text("utf-8"))
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads a bare `on` as true
    return data


@pytest.mark.parametrize(("name", "trigger"), WORKFLOWS.items())
def test_least_privilege_pins_and_the_token_by_environment(name: str, trigger: str) -> None:
    wf = load(name)
    assert list(wf["on"]) == [trigger]
    assert wf["permissions"] == {}
    for job in wf["jobs"].values():
        assert job["permissions"] == (QUEUE_GRANTED if trigger == "merge_group" else GRANTED)
        assert job["timeout-minutes"] <= 30
        for step in job["steps"]:
            uses = step.get("uses")
            if uses:
                assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", uses), uses
            if uses and uses.startswith("actions/checkout@"):
                assert step["with"]["persist-credentials"] is False
                # the PR head is never checked out; a group's base is, by SHA
                assert step["with"].get("ref", QUEUE_BASE) == QUEUE_BASE
            if uses and uses.startswith("octo-org/roofbot@"):
                assert step["env"] == {"GITHUB_TOKEN": "${{ github.token }}"}
                assert "github-token" not in step.get("with", {})
            script = step.get("run", "")
            assert "${{" not in script, "an expression inside a script: pass it by env"
            assert "checkout" not in script and "./" not in script


@pytest.mark.parametrize("name", ["roofcheck.yml", "roofcheck-command.yml"])
def test_one_roofbot_per_pull_request_never_cancelled(name: str) -> None:
    for job in load(name)["jobs"].values():
        concurrency = job["concurrency"]
        assert concurrency["cancel-in-progress"] is False
        assert "roofcheck-pr-" in concurrency["group"]  # the group both workflows share


def test_the_command_workflow_only_starts_for_roofcheck_comments_on_pull_requests() -> None:
    wf = load("roofcheck-command.yml")
    assert wf["on"]["issue_comment"]["types"] == ["created"]
    (job,) = wf["jobs"].values()
    condition = job["if"]
    assert "github.event.issue.pull_request" in condition
    assert "startsWith(github.event.comment.body, '/roofcheck')" in condition
    assert "github.event.comment.user.type != 'Bot'" in condition
    # a stranger's comment never starts a container: only associations that may have write
    # access pass the `if` (roofbot still asks the permission endpoint for all but OWNER)
    assert "github.event.comment.author_association" in condition
    assert '["OWNER", "MEMBER", "COLLABORATOR"]' in condition
    # only commands that check the head join the PR's group (tests/test_workflow_events.py)
    assert "format('roofcheck-pr-{0}', github.event.issue.number)" in job["concurrency"]["group"]


def test_the_action_takes_the_token_from_the_environment() -> None:
    action = yaml.safe_load((EXAMPLES.parent / "action.yml").read_text("utf-8"))
    assert action["inputs"]["github-token"]["default"] == ""
    assert action["inputs"]["bot-login"]["default"] == ""
    assert action["runs"]["using"] == "docker"


def test_a_retargeted_pr_and_a_merge_queue_are_checked() -> None:
    """Issue 19: `edited` (a new base) reruns the check; a queue's group is checked too."""
    assert "edited" in load("roofcheck.yml")["on"]["pull_request_target"]["types"]
    queue = load("roofcheck-merge-queue.yml")
    assert queue["on"]["merge_group"]["types"] == ["checks_requested"]
    (job,) = queue["jobs"].values()
    assert job["concurrency"]["cancel-in-progress"] is False
