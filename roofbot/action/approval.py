"""`/roofcheck approve <sha>`: a maintainer accepts a pull request's instrument changes for one
head into one base. Pure decisions over what GitHub records; roofbot.action.approval_lookup
asks GitHub.

An approval is a comment of the pull request whose first line is `/roofcheck approve <sha>`,
where `<sha>` is the head SHA or a prefix of it of at least 7 hex digits. It counts only:
- for the head it names: the job starts a minute or more after the comment, and a push in
  that window must not be approved by it; a new push needs a new approval;
- for the base it was given on: a comment older than the last change of the pull request's
  base branch (GitHub's `base_ref_changed` issue event) approves nothing;
- by a person (never a bot, and every workflow that uses the Actions token comments as
  `github-actions[bot]`) whose permission on the repository, asked again at the time of the
  check, is write, maintain or admin.
It is read from that comment every time, never from text roofbot wrote (its own comments are
no more trustworthy than any other workflow's)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from roofbot.action.command_rules import named_sha, names_head
from roofbot.adapters.github.models import Comment


@dataclass(frozen=True)
class Approval:
    sha: str  # the head SHA the approval names (in full)
    by: str  # the maintainer's login


def is_person(comment: Comment) -> bool:
    return comment.author_type == "User" and not comment.author_login.endswith("[bot]")


def candidates(
    comments: Iterable[Comment], head_sha: str, base_changes: Sequence[datetime]
) -> list[Comment]:
    """The comments that would approve `head_sha`, newest first, before the permission check:
    by a person, naming that head, written after the base branch last changed. A comment whose
    time GitHub did not send can't be placed after a base change and does not count."""
    since = max(base_changes, default=None)
    found = []
    for c in comments:
        if not is_person(c) or not names_head(named_sha(c.body), head_sha):
            continue
        if since is not None and (c.created_at is None or c.created_at <= since):
            continue
        found.append(c)
    return sorted(found, key=lambda c: (c.created_at is not None, c.created_at, c.id), reverse=True)
