"""The GitHub REST API, as roofbot needs it: one sticky comment, one commit status, an inline
review, a few reads. `errors` (one exception hierarchy, GitHubError), `models` (plain frozen
dataclasses and GitHub's limits), `protocol` (GitHub: the typed operations the action calls),
`transport` (the one retry policy), `client` (the PyGithub client, imported lazily: `roofbot
check` never imports PyGithub)."""

from roofbot.adapters.github.client import GitHubClient
from roofbot.adapters.github.errors import (
    GitHubConfigError,
    GitHubError,
    GitHubFileTooLarge,
    GitHubForbidden,
    GitHubNotFound,
    GitHubRateLimited,
    GitHubTooLong,
    GitHubUnavailable,
    GitHubValidationFailed,
)
from roofbot.adapters.github.models import (
    DEFAULT_API_URL,
    DEFAULT_BOT_LOGIN,
    MAX_COMMENT_CHARS,
    MAX_COMPARE_FILES,
    MAX_PULL_FILES,
    MAX_STATUS_DESCRIPTION,
    Comment,
    GitHubSettings,
    PermissionLevel,
    PullFile,
    PullInfo,
    ReactionContent,
    ReviewComment,
    Status,
    StatusState,
    TreeEntry,
)
from roofbot.adapters.github.protocol import GitHub

__all__ = [
    "DEFAULT_API_URL",
    "DEFAULT_BOT_LOGIN",
    "MAX_COMMENT_CHARS",
    "MAX_COMPARE_FILES",
    "MAX_PULL_FILES",
    "MAX_STATUS_DESCRIPTION",
    "Comment",
    "GitHub",
    "GitHubClient",
    "GitHubConfigError",
    "GitHubError",
    "GitHubFileTooLarge",
    "GitHubForbidden",
    "GitHubNotFound",
    "GitHubRateLimited",
    "GitHubSettings",
    "GitHubTooLong",
    "GitHubUnavailable",
    "GitHubValidationFailed",
    "PermissionLevel",
    "PullFile",
    "PullInfo",
    "ReactionContent",
    "ReviewComment",
    "Status",
    "StatusState",
    "TreeEntry",
]
