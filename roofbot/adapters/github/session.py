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
from roofbot.adapters.github.transport import retry_policy

if TYPE_CHECKING:
    import requests
    from github import Github
    from github.Repository import Repository


class Session:
    """One repository's connections; the operations live in the classes built on it."""

    def __init__(self, settings: GitHubSettings) -> None:
        self._settings = settings
        self._gh: Github | None = None
        self._repo: Repository | None = None
        self._session: requests.Session | None = None
        self._sticky_login: str | None = None

    @property
    def settings(self) -> GitHubSettings:
        return self._settings

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

        try:
            yield
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
        return error_for(operation, status, headers, data, self._settings.token)

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
