"""The GitHub operations roofbot's action calls, as a typed Protocol: what `roofbot pr` and
`/roofcheck` need of a client, whatever serves it (the PyGithub client, roofbot.adapters.github.
client). Every answer is one of the plain dataclasses of roofbot.adapters.github.models; every
failure a GitHubError. Each call retries only as the client's transport does (its one retry
policy); callers never retry again."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal, Protocol

from roofbot.adapters.github.models import (
    Comment,
    PermissionLevel,
    PullFile,
    PullInfo,
    ReactionContent,
    Review,
    ReviewComment,
    Status,
    StatusState,
    TreeEntry,
)
from roofbot.adapters.github.transport import Clock


class GitHub(Protocol):
    """One repository's pull requests, comments, statuses and files."""

    def close(self) -> None: ...

    @property
    def clock(self) -> Clock: ...

    def find_sticky_comment(
        self, pr_number: int, marker: str, bot_login: str | None = None
    ) -> Comment | None: ...

    def upsert_sticky_comment(self, pr_number: int, marker: str, body: str) -> Comment: ...

    def has_bot_comment(self, pr_number: int, text: str) -> bool: ...

    def reply(self, issue_number: int, body: str) -> Comment: ...

    def react(self, comment_id: int, content: ReactionContent) -> None: ...

    def set_status(
        self,
        sha: str,
        state: StatusState,
        description: str,
        context: str = "roofcheck",
        target_url: str | None = None,
    ) -> Status: ...

    def get_pull(self, number: int) -> PullInfo: ...

    def compare_files(self, base: str, head: str) -> tuple[list[PullFile], bool]: ...

    def tree(self, sha: str, *, recursive: bool = True) -> tuple[dict[str, TreeEntry], bool]: ...

    def list_review_comments(self, number: int) -> list[ReviewComment]: ...

    def create_review(
        self,
        number: int,
        commit_id: str,
        body: str,
        comments: list[dict[str, Any]],
        event: Literal["COMMENT", "REQUEST_CHANGES"] = "COMMENT",
    ) -> int: ...

    def list_reviews(self, number: int) -> list[Review]: ...

    def dismiss_review(self, number: int, review_id: int, message: str) -> None: ...

    def delete_review_comment(self, comment_id: int) -> None: ...

    def get_blob(self, sha: str) -> bytes: ...

    def permission(self, user: str) -> PermissionLevel: ...

    def sticky_login(self) -> str: ...

    def list_comments(self, number: int) -> list[Comment]: ...

    def base_changes(self, number: int) -> list[datetime]: ...

    def merge_base(self, base: str, head: str) -> str: ...
