"""GitHub's failures as one exception hierarchy (:class:`GitHubError`), built from the
status and GitHub's message and scrubbed of the token; never a PyGithub exception."""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass

_TOKEN_LIKE = re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{16,})")


class GitHubError(Exception):
    """Any failure talking to GitHub. ``str(exc)`` never contains the token."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        operation: str | None = None,
        documentation_url: str | None = None,
        request_id: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.operation = operation
        self.documentation_url = documentation_url
        self.request_id = request_id


class GitHubConfigError(GitHubError):
    """Settings are missing or malformed (no token, bad GITHUB_REPOSITORY, ...)."""


class GitHubNotFound(GitHubError):
    """404 (or 410): no such repository, pull request, comment, file, blob or user."""


class GitHubForbidden(GitHubError):
    """401/403 that is not a rate limit, e.g. the read-only token of a pull request from a fork
    ("Resource not accessible by integration") or an expired token."""


class GitHubValidationFailed(GitHubError):
    """422: GitHub refused the content of the request."""


class GitHubTooLong(GitHubValidationFailed):
    """422 because a body is too long (comments: at most :data:`MAX_COMMENT_CHARS`)."""


class GitHubRateLimited(GitHubError):
    """Primary (403/429 with ``x-ratelimit-remaining: 0``) or secondary rate limit (403/429
    otherwise, with or without ``retry-after``). ``reset_at`` is when to try again, if GitHub
    said; ``wait`` the seconds the client holds every request back from now (set by the
    client, from the headers and the limits met before)."""

    def __init__(
        self,
        message: str,
        *,
        reset_at: datetime | None = None,
        retry_after: float | None = None,
        primary: bool = False,
        wait: float = 0.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(message, **kwargs)
        self.reset_at = reset_at
        self.retry_after = retry_after
        self.primary = primary
        self.wait = wait


class GitHubUnavailable(GitHubError):
    """5xx after the retries, a timeout, a connection failure, or a malformed answer."""


class GitHubFileTooLarge(GitHubError):
    """A file or blob is bigger than ``GitHubSettings.max_blob_bytes``; it was not downloaded."""

    def __init__(self, message: str, *, size: int | None, limit: int, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.size = size
        self.limit = limit


def redact(text: str, token: str) -> str:
    """``text`` without the token, or anything shaped like a GitHub token."""
    return _TOKEN_LIKE.sub("***", text.replace(token, "***"))


def error_for(
    operation: str, status: int, headers: Mapping[str, str], data: Any, token: str
) -> GitHubError:
    """The exception for an HTTP error answer."""
    lower = {k.lower(): str(v) for k, v in headers.items()}
    detail = _describe(data)
    message = redact(f"{operation}: HTTP {status}: {detail}", token)
    doc = data.get("documentation_url") if isinstance(data, dict) else None
    common: dict[str, Any] = {
        "status": status,
        "operation": operation,
        "documentation_url": doc if isinstance(doc, str) else None,
        "request_id": lower.get("x-github-request-id"),
    }
    if status == 429 or (status == 403 and _is_rate_limit(lower, detail)):
        retry_after = _seconds(lower.get("retry-after"))
        primary = lower.get("x-ratelimit-remaining") == "0"
        # a secondary limit says nothing of its end but `retry-after`: the primary window's
        # reset (up to an hour away) is not its end
        reset_at = _epoch(lower.get("x-ratelimit-reset")) if primary else None
        if retry_after is not None and not primary:
            reset_at = datetime.now(UTC) + timedelta(seconds=retry_after)
        return GitHubRateLimited(
            message, reset_at=reset_at, retry_after=retry_after, primary=primary, **common
        )
    if status in (401, 403):
        return GitHubForbidden(message, **common)
    if status in (404, 410):
        return GitHubNotFound(message, **common)
    if status == 422:
        if "too long" in detail.lower():
            return GitHubTooLong(message, **common)
        return GitHubValidationFailed(message, **common)
    if status >= 500:
        return GitHubUnavailable(message, **common)
    return GitHubError(message, **common)


def _describe(data: Any) -> str:
    """GitHub's message plus the validation errors, or the start of a non-JSON body."""
    if isinstance(data, dict):
        parts = [str(data["message"])] if data.get("message") else []
        for error in data.get("errors") or []:
            if isinstance(error, dict):
                parts.append(str(error.get("message") or error.get("code") or error))
            else:
                parts.append(str(error))
        if parts:
            return "; ".join(parts)
        if isinstance(data.get("data"), str):  # PyGithub's wrapper for non-JSON bodies
            text = html.unescape(re.sub(r"<[^>]*>|\s+", " ", data["data"])).strip()
            return f"non-JSON answer: {text[:120]!r}"
    return "no details" if data in (None, "", {}) else str(data)[:200]


def _is_rate_limit(headers: Mapping[str, str], detail: str) -> bool:
    lowered = detail.lower()
    return (
        headers.get("x-ratelimit-remaining") == "0"
        or "retry-after" in headers
        or "rate limit" in lowered
    )


def _seconds(value: str | None) -> float | None:
    try:
        return max(float(value), 0.0) if value is not None else None
    except ValueError:
        return None


def _epoch(value: str | None) -> datetime | None:
    seconds = _seconds(value)
    return datetime.fromtimestamp(seconds, UTC) if seconds is not None else None
