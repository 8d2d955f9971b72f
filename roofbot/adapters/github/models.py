"""What the GitHub adapter hands its callers: plain frozen dataclasses, the limits GitHub
sets, and the settings of a client (from the Actions environment)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Final, Literal

from roofbot.adapters.github.errors import GitHubConfigError

if TYPE_CHECKING:
    pass

DEFAULT_API_URL: Final = "https://api.github.com"
#: The author of comments made with the Actions GITHUB_TOKEN: roofbot's sticky comment is the
#: one with the marker *and* this login, unless another login is configured.
DEFAULT_BOT_LOGIN: Final = "github-actions[bot]"
USER_AGENT: Final = "roofbot"
API_VERSION: Final = "2022-11-28"
#: GitHub rejects issue comments longer than this (422 "Body is too long").
MAX_COMMENT_CHARS: Final = 65536
#: GitHub rejects commit-status descriptions longer than this.
MAX_STATUS_DESCRIPTION: Final = 140
#: GitHub rejects commit-status contexts longer than this.
MAX_STATUS_CONTEXT: Final = 255
#: ``GET /pulls/{n}/files`` stops at 3000 files, whatever the pull request holds.
MAX_PULL_FILES: Final = 3000
#: ``GET /compare/{base}...{head}`` lists at most 300 files of a comparison.
MAX_COMPARE_FILES: Final = 300
DEFAULT_MAX_BLOB_BYTES: Final = 5 * 1024 * 1024
PAGE_SIZE: Final = 100  # the maximum GitHub accepts; the default (30) triples the calls
#: Seconds kept between two writes. PyGithub's defaults (0.25 s before *every* request and 1 s
#: between writes) are meant to keep bulk scripts under GitHub's secondary rate limits; roofbot
#: makes about five calls per run, so they would only add ~1.5 s of sleep to every job.
WRITE_SPACING: Final = 0.1
RAW_MEDIA_TYPE: Final = "application/vnd.github.raw+json"

StatusState = Literal["error", "failure", "pending", "success"]
ReactionContent = Literal["+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"]
PermissionLevel = Literal["admin", "maintain", "write", "triage", "read", "none"]

PERMISSION_RANK: Final[dict[str, int]] = {
    "none": 0,
    "read": 1,
    "pull": 1,  # legacy spelling
    "triage": 2,
    "write": 3,
    "push": 3,  # legacy spelling
    "maintain": 4,
    "admin": 5,
}
LEVELS: Final[tuple[PermissionLevel, ...]] = (
    "none",
    "read",
    "triage",
    "write",
    "maintain",
    "admin",
)
SHA_PATTERN = re.compile(r"[0-9a-fA-F]{7,64}")
_REPOSITORY = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}")
_LOGIN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?")
PERSONAL_PREFIXES: Final = ("ghp_", "github_pat_", "gho_", "ghu_")


# ------------------------------------------------------------------------------ data types


@dataclass(frozen=True, slots=True)
class Comment:
    id: int
    body: str
    author_login: str
    author_type: str  # "Bot", "User" or "Organization"
    html_url: str
    created_at: datetime | None
    updated_at: datetime | None


@dataclass(frozen=True, slots=True)
class PullInfo:
    number: int
    state: str  # "open" or "closed"
    draft: bool
    merged: bool
    title: str
    author_login: str
    head_sha: str
    head_ref: str
    head_repo_full_name: str | None  # None when the fork was deleted
    base_sha: str
    base_ref: str
    base_repo_full_name: str
    is_fork: bool  # head lives in another repository: the run's token is read-only
    html_url: str


@dataclass(frozen=True, slots=True)
class PullFile:
    filename: str
    status: str  # added, removed, modified, renamed, copied, changed, unchanged
    previous_filename: str | None
    sha: str | None  # blob SHA of the new version (None for some removed files)
    additions: int
    deletions: int
    patch: str | None = None  # the unified diff GitHub shows (absent for big or binary files)


@dataclass(frozen=True, slots=True)
class ReviewComment:
    """A comment on a line of a pull request's diff."""

    id: int
    body: str
    path: str
    line: int | None  # None: the line is no longer in the diff (outdated)
    author_login: str


@dataclass(frozen=True, slots=True)
class Review:
    """A submitted pull-request review: GitHub keeps it for good (only a pending one can be
    deleted); a CHANGES_REQUESTED one stands until it is dismissed or its author reviews
    again."""

    id: int
    state: str  # COMMENTED, CHANGES_REQUESTED, APPROVED, DISMISSED, PENDING
    author_login: str


@dataclass(frozen=True, slots=True)
class TreeEntry:
    """One entry of a git tree: ``mode`` 100644/100755 a file, 120000 a symbolic link, 160000
    a submodule, 040000 a folder."""

    path: str
    mode: str
    type: str  # "blob", "tree" or "commit"
    sha: str
    size: int | None


@dataclass(frozen=True, slots=True)
class Status:
    id: int
    state: str
    context: str
    description: str | None
    target_url: str | None


# -------------------------------------------------------------------------------- settings


@dataclass(frozen=True, slots=True, kw_only=True)
class GitHubSettings:
    """Where and how to reach GitHub. ``repr`` never shows the token."""

    token: str = field(repr=False)
    repository: str  # "owner/name"
    api_url: str = DEFAULT_API_URL
    timeout: int = 10  # seconds, per connect and per read
    retries: int = 3  # transport retries of idempotent requests
    backoff_factor: float = 0.5  # sleeps 0, 2·f, 4·f, ... between retries
    max_blob_bytes: int = DEFAULT_MAX_BLOB_BYTES
    #: The sticky comment's author. None: the token's own login, i.e. ``github-actions[bot]``
    #: for the Actions token (and GET /user for a personal token). Never "any Bot".
    bot_login: str | None = None

    def __post_init__(self) -> None:
        if not self.token.strip():
            raise GitHubConfigError("the GitHub token is empty")
        if not _REPOSITORY.fullmatch(self.repository):
            raise GitHubConfigError(f"repository must be 'owner/name', got {self.repository!r}")
        if not self.api_url.startswith(("https://", "http://")):
            raise GitHubConfigError(f"api_url must be an http(s) URL, got {self.api_url!r}")
        if self.timeout <= 0 or self.retries < 0 or self.max_blob_bytes <= 0:
            raise GitHubConfigError("timeout and max_blob_bytes must be > 0, retries >= 0")
        if self.bot_login is not None and not _LOGIN.fullmatch(self.bot_login):
            raise GitHubConfigError(f"bot_login must be a GitHub login, got {self.bot_login!r}")
        object.__setattr__(self, "api_url", self.api_url.rstrip("/"))

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> GitHubSettings:
        """From the Actions environment: GITHUB_API_URL, GITHUB_REPOSITORY, the token from
        GITHUB_TOKEN or the action input ``github-token`` (``INPUT_GITHUB-TOKEN``; the hyphen
        is kept), the sticky comment's author from the input ``bot-login`` (default
        ``github-actions[bot]``), and ``ROOFBOT_API_TIMEOUT`` (seconds per connect and read)."""
        token = _first(env, "INPUT_GITHUB-TOKEN", "INPUT_GITHUB_TOKEN", "GITHUB_TOKEN")
        if token is None:
            raise GitHubConfigError(
                "no GitHub token: set GITHUB_TOKEN in the step's env (or the input github-token)"
            )
        repository = _first(env, "GITHUB_REPOSITORY")
        if repository is None:
            raise GitHubConfigError("GITHUB_REPOSITORY is not set")
        api_url = _first(env, "GITHUB_API_URL") or DEFAULT_API_URL
        login = _first(env, "INPUT_BOT-LOGIN", "INPUT_BOT_LOGIN")
        timeout_text = _first(env, "ROOFBOT_API_TIMEOUT")
        try:
            timeout = int(timeout_text) if timeout_text else 10
        except ValueError:
            raise GitHubConfigError(f"ROOFBOT_API_TIMEOUT: seconds, got {timeout_text!r}") from None
        return cls(
            token=token, repository=repository, api_url=api_url, bot_login=login, timeout=timeout
        )


def _first(env: Mapping[str, str], *names: str) -> str | None:
    for name in names:
        value = env.get(name, "").strip()
        if value:
            return value
    return None
