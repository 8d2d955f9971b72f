"""The plumbing of the GitHub client: the PyGithub and requests sessions (imported lazily:
`roofbot check` never imports PyGithub), built with the one retry policy, and every failure
translated into a GitHubError without the token."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from roofbot.adapters.github.errors import (
    GitHubError,
    GitHubRateLimited,
    GitHubUnavailable,
    error_for,
    redact,
)
from roofbot.adapters.github.models import (
    API_VERSION,
    PAGE_SIZE,
    SHA_PATTERN,
    USER_AGENT,
    WRITE_SPACING,
    GitHubSettings,
)
from roofbot.adapters.github.transport import (
    MAX_RETRY_AFTER,
    SYSTEM_CLOCK,
    Clock,
    limit_wait,
    retry_policy,
)

if TYPE_CHECKING:
    import requests
    from github import Github
    from github.Repository import Repository


class Session:
    """One repository's connections; the operations live in the classes built on it."""

    def __init__(self, settings: GitHubSettings, clock: Clock = SYSTEM_CLOCK) -> None:
        self._settings = settings
        self._clock = clock
        self._held_until: float | None = None  # a rate limit: nothing is sent before this
        self._secondary_in_a_row = 0
        self._gh: Github | None = None
        self._repo: Repository | None = None
        self._session: requests.Session | None = None
        self._sticky_login: str | None = None
        self._writer_login: str | None = None  # the author of what this client wrote

    @property
    def settings(self) -> GitHubSettings:
        return self._settings

    @property
    def clock(self) -> Clock:
        """What the client and its callers wait on (tests inject one that never sleeps)."""
        return self._clock

    def close(self) -> None:
        if self._gh is not None:
            self._gh.close()
        if self._session is not None:
            self._session.close()
        self._gh = self._repo = self._session = None

    # ------------------------------------------------------------------ plumbing

    def _github(self) -> Github:
        if self._gh is None:
            import github  # deferred: `roofbot check` never imports PyGithub

            self._gh = github.Github(
                auth=github.Auth.Token(self._settings.token),
                base_url=self._settings.api_url,
                timeout=self._settings.timeout,
                user_agent=USER_AGENT,
                per_page=PAGE_SIZE,
                retry=retry_policy(self._settings),
                seconds_between_requests=None,
                seconds_between_writes=WRITE_SPACING,
                lazy=True,
                api_version=API_VERSION,  # on every request (PyGithub >= 2.9 sends it)
            )
        return self._gh

    def _repository(self) -> Repository:
        if self._repo is None:
            self._repo = self._github().get_repo(self._settings.repository)  # lazy: no request
        return self._repo

    def _http(self) -> requests.Session:
        if self._session is None:
            import requests
            from requests.adapters import HTTPAdapter

            token = self._settings.token

            def authenticate(request: requests.PreparedRequest) -> requests.PreparedRequest:
                # set per request (not as a session header) so ~/.netrc can never override it
                request.headers["Authorization"] = f"token {token}"
                return request

            session = requests.Session()
            adapter = HTTPAdapter(max_retries=retry_policy(self._settings))
            session.mount("https://", adapter)
            session.mount("http://", adapter)
            session.auth = authenticate
            session.headers.update({"User-Agent": USER_AGENT, "X-GitHub-Api-Version": API_VERSION})
            self._session = session
        return self._session

    @contextmanager
    def _translate(self, operation: str) -> Iterator[None]:
        """Turn PyGithub/requests failures inside the block into :class:`GitHubError`."""
        from github import GithubException
        from requests import RequestException

        self._check_held(operation)
        try:
            yield
            self._secondary_in_a_row = 0
        except GithubException as exc:
            raise self._error(operation, exc.status, exc.headers or {}, exc.data) from None
        except RequestException as exc:
            kind = "timed out" if "timeout" in type(exc).__name__.lower() else "failed"
            raise GitHubUnavailable(
                self._redact(f"{operation}: the request {kind} ({type(exc).__name__}: {exc})"),
                operation=operation,
            ) from None
        except json.JSONDecodeError as exc:
            raise GitHubUnavailable(
                self._redact(f"{operation}: GitHub answered with malformed JSON ({exc})"),
                operation=operation,
            ) from None

    def _error(
        self, operation: str, status: int, headers: Mapping[str, str], data: Any
    ) -> GitHubError:
        error = error_for(operation, status, headers, data, self._settings.token)
        if isinstance(error, GitHubRateLimited):
            self._hold(error)
        return error

    def _hold(self, error: GitHubRateLimited) -> None:
        """Stop sending at the first rate limit, for as long as it lasts."""
        now = self._clock.time()
        reset = error.reset_at.timestamp() if error.reset_at is not None else None
        error.wait = limit_wait(
            error.retry_after, reset, error.primary, now, self._secondary_in_a_row
        )
        if not error.primary and error.retry_after is None:
            self._secondary_in_a_row += 1
        self._held_until = now + error.wait

    def _check_held(self, operation: str) -> None:
        if self._held_until is None:
            return
        left = self._held_until - self._clock.time()
        if left <= MAX_RETRY_AFTER:  # a short hold is waited out, as the transport would
            if left > 0:
                self._clock.sleep(left)
            self._held_until = None
            return
        raise GitHubRateLimited(
            f"{operation}: not sent: GitHub's rate limit holds for {left:.0f} s more",
            wait=left,
            operation=operation,
        )

    def _redact(self, text: str) -> str:
        return redact(text, self._settings.token)


def check_sha(sha: str) -> None:
    if not SHA_PATTERN.fullmatch(sha):
        raise ValueError(f"not a commit/blob SHA: {sha!r}")


def parse_body(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return {"data": raw.decode("utf-8", "replace")}
