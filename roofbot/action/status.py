"""Which status roofbot sets, and for which events: one PR into one base.

A commit status belongs to a SHA, not to a pull request, so a status named only `roofcheck`
would be shared by every pull request with that head: PR-B into a branch with a laxer
`.roofbot.yml` would turn PR-A's required `roofcheck` green. The context therefore names the
base branch, `roofcheck/<base>`, and a branch's ruleset requires the context of its own name
(`roofcheck/main` on `main`): a status set for a PR into another base never satisfies it. A
retargeted PR (`edited` with `changes.base`) is checked again for its new base, and a merge
queue's group (`merge_group`) gets the context of the branch it merges into, on the group's
own head SHA."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

PREFIX = "roofcheck"
#: The SHA at its end is neither the pull request's head nor the group's: it is not read.
QUEUE_REF = re.compile(r"^(?:refs/heads/)?gh-readonly-queue/(.+)/pr-(\d+)-([0-9a-f]{40})$")


def branch(ref: str) -> str:
    """`refs/heads/main` -> `main`."""
    return ref.removeprefix("refs/heads/")


def context(base_ref: str) -> str:
    """The status context for pull requests into `base_ref`: `roofcheck/main`."""
    name = branch(base_ref).strip()
    return f"{PREFIX}/{name}" if name else PREFIX


def base_changed(payload: Mapping[str, Any]) -> bool:
    """An `edited` event that moved the pull request to another base branch (an edit of the
    title or the body changes nothing roofbot checks)."""
    changes = payload.get("changes")
    return isinstance(changes, Mapping) and isinstance(changes.get("base"), Mapping)


@dataclass(frozen=True)
class QueueGroup:
    """A merge queue's group, from a `merge_group` event."""

    head_sha: str
    base_sha: str
    base_ref: str
    pull: int  # the pull request the group was made for (0: the ref does not say)


def queue_group(payload: Mapping[str, Any]) -> QueueGroup:
    """The group of a `merge_group` event (KeyError/TypeError when the payload has none)."""
    group = payload["merge_group"]
    head_ref = str(group.get("head_ref") or "")
    m = QUEUE_REF.match(head_ref)
    return QueueGroup(
        head_sha=str(group["head_sha"]),
        base_sha=str(group["base_sha"]),
        base_ref=branch(str(group.get("base_ref") or "")),
        pull=int(m.group(2)) if m else 0,
    )
