"""What people did on a pull request, as GitHub records it: its comments (with their authors
and times) and the moments its base branch was changed. roofbot reads a maintainer's
`/roofcheck approve <sha>` from here, never from text roofbot wrote itself."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from roofbot.adapters.github.errors import GitHubUnavailable
from roofbot.adapters.github.models import Comment
from roofbot.adapters.github.session import Session, check_sha

if TYPE_CHECKING:
    from github.IssueComment import IssueComment

#: The issue event GitHub records when a pull request's base branch is changed (the REST API
#: for issue events lists it; the timeline API does not).
BASE_CHANGED = "base_ref_changed"


class History(Session):
    """A pull request's comments and base changes."""

    def list_comments(self, number: int) -> list[Comment]:
        """Every comment of the pull request's conversation, oldest first (100 per request)."""
        with self._translate(f"list the comments of #{number}"):
            return [_comment(c) for c in self._repository().get_issue(number).get_comments()]

    def base_changes(self, number: int) -> list[datetime]:
        """When the pull request's base branch was changed, oldest first (the issue events,
        100 per request)."""
        with self._translate(f"list the events of #{number}"):
            return [
                e.created_at
                for e in self._repository().get_issue(number).get_events()
                if e.event == BASE_CHANGED and e.created_at is not None
            ]

    def merge_base(self, base: str, head: str) -> str:
        """The merge base of two commits (1 request): what `compare/{base}...{head}` diffs
        the head against."""
        check_sha(base)
        check_sha(head)
        with self._translate(f"compare {base[:12]}...{head[:12]}"):
            _, data = self._github().requester.requestJsonAndCheck(
                "GET",
                f"{self._repository().url}/compare/{base}...{head}",
                parameters={"per_page": 1},
            )
        commit = data.get("merge_base_commit") if isinstance(data, dict) else None
        sha = commit.get("sha") if isinstance(commit, dict) else None
        if not isinstance(sha, str):
            raise GitHubUnavailable(f"compare {base[:12]}...{head[:12]}: no merge base")
        check_sha(sha)
        return sha


def _comment(comment: IssueComment) -> Comment:
    user = comment.user
    return Comment(
        id=comment.id,
        body=comment.body or "",
        author_login=user.login if user is not None else "",
        author_type=user.type if user is not None else "",
        html_url=comment.html_url or "",
        created_at=comment.created_at,
        updated_at=comment.updated_at,
    )
