"""The event a run answers: a pull request (or a merge queue's group) read from the webhook
payload GitHub wrote, and the names of the events and actions roofbot acts on."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from roofbot.action import status

EVENTS = ("pull_request", "pull_request_target", "merge_group")
COMMENT_EVENT = "issue_comment"  # a `/roofcheck` command (roofbot.action.command)
ACTIONS = ("opened", "synchronize", "reopened", "ready_for_review", "edited")
CONTEXT = "roofcheck"  # the prefix: the status is `roofcheck/<base>` (roofbot.action.status)


class UsageError(Exception):
    """The environment or the event can't be used (exit 2)."""


@dataclass(frozen=True)
class PullEvent:
    number: int
    action: str
    base_sha: str
    head_sha: str
    base_ref: str
    is_fork: bool
    draft: bool
    # merge_group: the queued PR whose approval counts (its head: GET /pulls, not the ref's SHA)
    approval_pull: int | None = None

    @property
    def context(self) -> str:
        """The commit status's context: `roofcheck/<base>` (roofbot.action.status)."""
        return status.context(self.base_ref)


def parse_event(name: str, payload: Mapping[str, Any]) -> PullEvent | None:
    """The pull request of a supported event, or None for an action roofbot does not handle."""
    if name not in EVENTS:
        raise UsageError(
            f"event {name!r} is not supported: use pull_request, pull_request_target or merge_group"
        )
    if name == "merge_group":
        return _queue_event(payload)
    if payload.get("action") not in ACTIONS:
        return None
    if payload.get("action") == "edited" and not status.base_changed(payload):
        return None  # a new title or body: nothing roofbot checks changed
    pr = payload.get("pull_request")
    if not isinstance(pr, Mapping):
        raise UsageError("the event payload has no pull_request")
    try:
        head, base = pr["head"], pr["base"]
        head_repo = (head.get("repo") or {}).get("full_name")
        base_repo = (base.get("repo") or {}).get("full_name")
        return PullEvent(
            number=int(payload.get("number") or pr["number"]),
            action=str(payload["action"]),
            base_sha=str(base["sha"]),
            head_sha=str(head["sha"]),
            base_ref=str(base.get("ref") or ""),
            is_fork=head_repo is None or head_repo != base_repo,
            draft=bool(pr.get("draft")),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise UsageError(f"the event payload is not a pull request event: {e!r}") from None


def _queue_event(payload: Mapping[str, Any]) -> PullEvent | None:
    """A merge queue's group: checked like a pull request from the base to the group's head;
    no comment (there is no pull request), the status on the group's head."""
    if payload.get("action") != "checks_requested":
        return None
    try:
        group = status.queue_group(payload)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise UsageError(f"the event payload is not a merge_group event: {e!r}") from None
    return PullEvent(
        number=0,
        action="merge_group",
        base_sha=group.base_sha,
        head_sha=group.head_sha,
        base_ref=group.base_ref,
        is_fork=False,
        draft=False,
        approval_pull=group.pull,
    )


def read_payload(env: Mapping[str, str]) -> tuple[str, Mapping[str, Any]]:
    """The event's name and payload (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH)."""
    name = env.get("GITHUB_EVENT_NAME", "")
    path = env.get("GITHUB_EVENT_PATH", "")
    if not name or not path:
        raise UsageError("GITHUB_EVENT_NAME and GITHUB_EVENT_PATH must be set (run in Actions)")
    try:
        with open(path, encoding="utf-8") as fh:
            payload = json.loads(fh.read(8 * 1024 * 1024))
    except (OSError, ValueError, RecursionError) as e:
        raise UsageError(f"can't read the event payload {path}: {e}") from None
    if not isinstance(payload, Mapping):
        raise UsageError("the event payload is not a JSON object")
    return name, payload
