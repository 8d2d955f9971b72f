"""The approval of the head a run checks, read from its source on GitHub: the maintainers'
`/roofcheck approve <sha>` comments on the pull request, the times its base branch changed,
and each approver's permission, asked again (the rules: roofbot.action.approval).

For a merge queue's group the pull request is the one the group's ref names
(`gh-readonly-queue/<base>/pr-<N>-<sha>`); the SHA in that ref is neither the PR's head nor
the group's, so the head an approval must name is the one `GET /pulls/{N}` answers, and that
pull request must still target the group's base."""

from __future__ import annotations

from typing import TextIO

from roofbot.action import status
from roofbot.action.approval import Approval, candidates
from roofbot.action.command_rules import WRITERS
from roofbot.action.settings import Settings
from roofbot.adapters import actions as A
from roofbot.adapters.github.errors import GitHubError
from roofbot.adapters.github.protocol import GitHub


def find_approval(client: GitHub | None, s: Settings, out: TextIO) -> Approval | None:
    """The approval of the checked head into its base, or None (also when GitHub can't be
    asked: an approval that can't be verified approves nothing)."""
    number = s.event.approval_pull or s.event.number
    if client is None or number <= 0:
        return None
    try:
        return _find(client, s, number, out)
    except GitHubError as e:
        A.log(out, f"could not read the approvals of #{number}: {e}")
        return None


def _find(client: GitHub, s: Settings, number: int, out: TextIO) -> Approval | None:
    head = s.event.head_sha
    if s.event.approval_pull:  # a merge queue's group: the queued pull request as it is now
        pull = client.get_pull(number)
        if status.branch(pull.base_ref) != status.branch(s.event.base_ref):
            A.log(out, f"#{number} now targets {pull.base_ref}, not {s.event.base_ref}: "
                       "its approvals do not count for this group")  # fmt: skip
            return None
        head = pull.head_sha
    found = candidates(client.list_comments(number), head, client.base_changes(number))
    for comment in found:
        level = client.permission(comment.author_login)
        if level in WRITERS:
            A.log(out, f"instrument changes of {head[:12]} approved by {comment.author_login}")
            return Approval(head, comment.author_login)
        A.log(out, f"the approval by {comment.author_login} does not count: permission {level}")
    return None
