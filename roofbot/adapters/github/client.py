"""The GitHub REST API through PyGithub, as roofbot needs it: one sticky comment, one commit status, a few reads.

A thin adapter over PyGithub. Callers get plain frozen dataclasses and one exception hierarchy
(:class:`GitHubError`), never PyGithub objects or exceptions, so the engine stays testable
without a network and PyGithub stays replaceable.

Design notes:

* PyGithub is imported lazily, the first time the client is used: ``roofbot check`` (offline)
  never imports ``github``, ``requests`` or ``urllib3``.
* Every operation costs a known number of HTTP requests, and tests count them against a real
  loopback server. The client is built with ``lazy=True``, so ``get_repo``/``get_pull``/
  ``get_issue``/``get_commit`` only build URLs; a request happens when data is needed.
  ``upsert_sticky_comment`` costs 2 requests when the comments fit in one page (list + create or
  patch; 1 when the body is unchanged), ``set_status`` 1, ``get_pull`` 1, ``list_pull_files``
  ceil(n / 100).
* Retries live in the transport (urllib3 ``Retry``), never in callers: idempotent methods (GET,
  HEAD, PATCH, PUT, DELETE) are retried on 500/502/503/504 and on a read timeout. POST is never
  retried: a POST that got a 5xx or timed out may well have created the comment or the status.
* The token is only ever placed in the Authorization header. Exception messages are built by this
  module from the status and GitHub's message, and scrubbed of the token and of anything shaped
  like a GitHub token; the PyGithub exception is not chained (``from None``).
"""

from __future__ import annotations

import logging
import urllib.parse
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, get_args

from roofbot.adapters.github.errors import (
    GitHubError,
    GitHubForbidden,
    GitHubNotFound,
)
from roofbot.adapters.github.history import History
from roofbot.adapters.github.models import (
    DEFAULT_BOT_LOGIN,
    LEVELS,
    MAX_STATUS_CONTEXT,
    MAX_STATUS_DESCRIPTION,
    PERMISSION_RANK,
    PERSONAL_PREFIXES,
    Comment,
    GitHubSettings,
    PermissionLevel,
    ReactionContent,
    Review,
    ReviewComment,
    Status,
    StatusState,
)
from roofbot.adapters.github.reads import Reads
from roofbot.adapters.github.session import check_sha
from roofbot.adapters.github.transport import SYSTEM_CLOCK, Clock
from roofbot.core.provenance import clip

if TYPE_CHECKING:
    from github.IssueComment import IssueComment

log = logging.getLogger(__name__)


class GitHubClient(Reads, History):
    """roofbot's GitHub operations for one repository. Create once per run; ``close()`` (or use
    as a context manager) releases the HTTP connections."""

    @classmethod
    def from_env(cls, env: Mapping[str, str], clock: Clock = SYSTEM_CLOCK) -> GitHubClient:
        return cls(GitHubSettings.from_env(env), clock)

    def __enter__(self) -> GitHubClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # ------------------------------------------------------------------ comments

    def find_sticky_comment(
        self, pr_number: int, marker: str, bot_login: str | None = None
    ) -> Comment | None:
        """The oldest comment whose body starts with ``marker`` and whose author is the bot
        (``bot_login``, else :meth:`sticky_login`).
        A human, or another bot, quoting the marker does not count. Reads every page until
        found (100 per request)."""
        found = self._find_sticky(pr_number, _check_marker(marker), bot_login)
        return None if found is None else _to_comment(found)

    def upsert_sticky_comment(self, pr_number: int, marker: str, body: str) -> Comment:
        """Edit the sticky comment in place, or create it. ``body`` gets ``marker`` prepended
        when it does not start with it. 2 requests when the comments fit in one page."""
        marker = _check_marker(marker)
        if not body.lstrip().startswith(marker):
            body = f"{marker}\n{body}"
        existing = self._find_sticky(pr_number, marker, None)
        if existing is None:
            with self._translate(f"create the comment on #{pr_number}"):
                created = self._repository().get_issue(pr_number).create_comment(body)
            log.debug("created sticky comment %s on #%s", created.id, pr_number)
            return _to_comment(created)
        if existing.body != body:
            with self._translate(f"edit comment {existing.id}"):
                existing.edit(body)
            log.debug("edited sticky comment %s on #%s", existing.id, pr_number)
        return _to_comment(existing)

    def has_bot_comment(self, pr_number: int, text: str) -> bool:
        """Whether the bot (:meth:`sticky_login`) wrote a comment on the PR containing ``text``
        (reads every page, 100 comments per request)."""
        login = self.sticky_login().lower()
        with self._translate(f"list the comments of #{pr_number}"):
            for comment in self._repository().get_issue(pr_number).get_comments():
                user = comment.user
                mine = user is not None and (user.login or "").lower() == login
                if mine and text in (comment.body or ""):
                    return True
        return False

    def reply(self, issue_number: int, body: str) -> Comment:
        """A new comment on an issue or pull request (1 request)."""
        with self._translate(f"comment on #{issue_number}"):
            created = self._repository().get_issue(issue_number).create_comment(body)
        return _to_comment(created)

    def react(self, comment_id: int, content: ReactionContent) -> None:
        """Add a reaction to an issue comment (1 request; a repeated reaction is a no-op)."""
        if content not in get_args(ReactionContent):
            raise ValueError(f"unknown reaction {content!r}")
        with self._translate(f"react to comment {comment_id}"):
            # PyGithub's IssueComment.create_reaction needs the comment object (one more GET)
            # and still sends the retired squirrel-girl preview media type.
            self._github().requester.requestJsonAndCheck(
                "POST",
                f"{self._repository().url}/issues/comments/{int(comment_id)}/reactions",
                input={"content": content},
            )

    def _find_sticky(
        self, pr_number: int, marker: str, bot_login: str | None
    ) -> IssueComment | None:
        login = (bot_login or self.sticky_login()).lower()
        with self._translate(f"list the comments of #{pr_number}"):
            for comment in self._repository().get_issue(pr_number).get_comments():
                if not (comment.body or "").lstrip().startswith(marker):
                    continue
                user = comment.user
                if user is not None and (user.login or "").lower() == login:
                    return comment
        return None

    # ------------------------------------------------------------------ statuses

    def set_status(
        self,
        sha: str,
        state: StatusState,
        description: str,
        context: str = "roofcheck",
        target_url: str | None = None,
    ) -> Status:
        """Create a commit status (1 request). ``description`` is cut to 140 characters and
        ``context`` to 255 (GitHub refuses longer ones); the same cut every time, so the
        pending and the final status share their context."""
        if state not in get_args(StatusState):
            raise ValueError(f"state must be one of {get_args(StatusState)}, got {state!r}")
        check_sha(sha)
        context = clip(context, MAX_STATUS_CONTEXT)
        params = {"description": clip(description, MAX_STATUS_DESCRIPTION), "context": context}
        if target_url:
            params["target_url"] = target_url
        with self._translate(f"set status {context!r} on {sha[:12]}"):
            # get_commit() is lazy and knows its SHA from its URL: no GET before the POST
            created = self._repository().get_commit(sha).create_status(state, **params)
            if created.creator is not None and created.creator.login:
                self._writer_login = created.creator.login
            return Status(
                id=created.id,
                state=created.state,
                context=created.context,
                description=created.description,
                target_url=created.target_url,
            )

    # ------------------------------------------------------------------ reviews

    def list_review_comments(self, number: int) -> list[ReviewComment]:
        """The comments on the diff lines of a pull request, 100 per request."""
        with self._translate(f"list the review comments of #{number}"):
            return [
                ReviewComment(
                    id=c.id,
                    body=c.body or "",
                    path=c.path,
                    line=c.line,
                    author_login=c.user.login if c.user is not None else "",
                )
                for c in self._repository().get_pull(number).get_review_comments()
            ]

    def create_review(
        self,
        number: int,
        commit_id: str,
        body: str,
        comments: list[dict[str, Any]],
        event: Literal["COMMENT", "REQUEST_CHANGES"] = "COMMENT",
    ) -> int:
        """Submit one review of `comments` (each `path`, `line`, `side`, `body`) at
        `commit_id` (1 request); its id."""
        check_sha(commit_id)
        with self._translate(f"review #{number}"):
            _, data = self._github().requester.requestJsonAndCheck(
                "POST",
                f"{self._repository().url}/pulls/{int(number)}/reviews",
                input={"commit_id": commit_id, "body": body, "event": event,
                       "comments": comments},
            )  # fmt: skip
        return int(data["id"]) if isinstance(data, dict) and "id" in data else 0

    def list_reviews(self, number: int) -> list[Review]:
        """The pull request's reviews, 100 per request."""
        with self._translate(f"list the reviews of #{number}"):
            return [
                Review(r.id, r.state, r.user.login if r.user is not None else "")
                for r in self._repository().get_pull(number).get_reviews()
            ]

    def dismiss_review(self, number: int, review_id: int, message: str) -> None:
        """Dismiss a review that requested changes (1 request): it no longer blocks."""
        with self._translate(f"dismiss review {review_id} of #{number}"):
            self._github().requester.requestJsonAndCheck(
                "PUT",
                f"{self._repository().url}/pulls/{int(number)}/reviews/{int(review_id)}/dismissals",
                input={"message": message, "event": "DISMISS"},
            )

    def delete_review_comment(self, comment_id: int) -> None:
        """Delete one comment on a diff line (1 request)."""
        with self._translate(f"delete review comment {comment_id}"):
            self._github().requester.requestJsonAndCheck(
                "DELETE", f"{self._repository().url}/pulls/comments/{int(comment_id)}"
            )

    # ------------------------------------------------------------------ people

    def permission(self, user: str) -> PermissionLevel:
        """The user's permission on the repository: the strongest of the legacy ``permission``,
        ``role_name`` and ``user.permissions`` (1 request). Unknown user: ``"none"``."""
        quoted = urllib.parse.quote(user, safe="")
        try:
            with self._translate(f"get the permission of {user!r}"):
                _, data = self._github().requester.requestJsonAndCheck(
                    "GET", f"{self._repository().url}/collaborators/{quoted}/permission"
                )
        except GitHubNotFound:
            return "none"
        return _strongest_permission(data)

    def sticky_login(self) -> str:
        """Whose comment the sticky comment is: the configured ``bot_login``; else, for a
        personal token, its own login (GET /user, once); else the author of the statuses this
        client set (an installation token, ``ghs_``, writes as its app's bot: the Actions
        token as ``github-actions[bot]``, a GitHub App's as ``<app>[bot]``; GitHub answers
        GET /user and GET /app to neither); else ``github-actions[bot]``."""
        if self._sticky_login is None:
            login = self._settings.bot_login
            if login is None and self._settings.token.startswith(PERSONAL_PREFIXES):
                try:
                    login = self.authenticated_login()
                except GitHubError:
                    login = None
            if login is None and self._writer_login is None:
                return DEFAULT_BOT_LOGIN  # not remembered: a status set later tells
            self._sticky_login = login or self._writer_login or DEFAULT_BOT_LOGIN
        return self._sticky_login

    def authenticated_login(self) -> str | None:
        """The token's own login (GET /user), or None where GitHub does not tell: the Actions
        GITHUB_TOKEN gets 403 here; its comments are authored by ``github-actions[bot]``."""
        try:
            with self._translate("get the authenticated user"):
                return self._github().get_user().login
        except (GitHubForbidden, GitHubNotFound):
            return None


def _to_comment(comment: IssueComment) -> Comment:
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


def _strongest_permission(data: Any) -> PermissionLevel:
    if not isinstance(data, dict):
        return "none"
    names = [data.get("permission"), data.get("role_name")]
    user = data.get("user")
    if isinstance(user, dict):
        names.append(user.get("role_name"))
        flags = user.get("permissions")
        if isinstance(flags, dict):
            names += [name for name, granted in flags.items() if granted is True]
    rank = max((PERMISSION_RANK.get(str(n).lower(), 0) for n in names if n), default=0)
    return LEVELS[rank]


def _check_marker(marker: str) -> str:
    marker = marker.strip()
    if not marker:
        raise ValueError("the sticky-comment marker must not be empty")
    return marker
