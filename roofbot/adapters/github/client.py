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

import base64
import binascii
import json
import logging
import urllib.parse
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Literal, get_args

from roofbot.adapters.github.errors import (
    GitHubError,
    GitHubFileTooLarge,
    GitHubForbidden,
    GitHubNotFound,
    GitHubUnavailable,
    error_for,
    redact,
)
from roofbot.adapters.github.models import (
    API_VERSION,
    DEFAULT_BOT_LOGIN,
    LEVELS,
    MAX_COMPARE_FILES,
    MAX_PULL_FILES,
    MAX_STATUS_DESCRIPTION,
    PAGE_SIZE,
    PERMISSION_RANK,
    PERSONAL_PREFIXES,
    RAW_MEDIA_TYPE,
    SHA_PATTERN,
    USER_AGENT,
    WRITE_SPACING,
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
from roofbot.adapters.github.transport import retry_policy
from roofbot.core.provenance import clip

if TYPE_CHECKING:
    import requests
    from github import Github
    from github.IssueComment import IssueComment
    from github.Repository import Repository

log = logging.getLogger(__name__)


class GitHubClient:
    """roofbot's GitHub operations for one repository. Create once per run; ``close()`` (or use
    as a context manager) releases the HTTP connections."""

    def __init__(self, settings: GitHubSettings) -> None:
        self._settings = settings
        self._gh: Github | None = None
        self._repo: Repository | None = None
        self._session: requests.Session | None = None
        self._sticky_login: str | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> GitHubClient:
        return cls(GitHubSettings.from_env(env))

    @property
    def settings(self) -> GitHubSettings:
        return self._settings

    def close(self) -> None:
        if self._gh is not None:
            self._gh.close()
        if self._session is not None:
            self._session.close()
        self._gh = self._repo = self._session = None

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
        """Create a commit status (1 request). ``description`` is cut to 140 characters."""
        if state not in get_args(StatusState):
            raise ValueError(f"state must be one of {get_args(StatusState)}, got {state!r}")
        _check_sha(sha)
        params = {"description": clip(description, MAX_STATUS_DESCRIPTION), "context": context}
        if target_url:
            params["target_url"] = target_url
        with self._translate(f"set status {context!r} on {sha[:12]}"):
            # get_commit() is lazy and knows its SHA from its URL: no GET before the POST
            created = self._repository().get_commit(sha).create_status(state, **params)
            return Status(
                id=created.id,
                state=created.state,
                context=created.context,
                description=created.description,
                target_url=created.target_url,
            )

    # ------------------------------------------------------------------ pull requests

    def get_pull(self, number: int) -> PullInfo:
        """The pull request (1 request)."""
        with self._translate(f"get pull request #{number}"):
            pull = self._repository().get_pull(number)
            head, base = pull.head, pull.base  # the first attribute read completes: 1 GET
            head_repo = head.repo.full_name if head.repo is not None else None
            base_repo = base.repo.full_name
            return PullInfo(
                number=pull.number,
                state=pull.state,
                draft=bool(pull.draft),
                merged=bool(pull.merged),
                title=pull.title or "",
                author_login=pull.user.login if pull.user is not None else "",
                head_sha=head.sha,
                head_ref=head.ref,
                head_repo_full_name=head_repo,
                base_sha=base.sha,
                base_ref=base.ref,
                base_repo_full_name=base_repo,
                is_fork=head_repo is None or head_repo.lower() != base_repo.lower(),
                html_url=pull.html_url,
            )

    def list_pull_files(self, number: int) -> list[PullFile]:
        """Every file of the pull request, 100 per request. GitHub lists at most 3000."""
        with self._translate(f"list the files of #{number}"):
            files = [
                PullFile(
                    filename=f.filename,
                    status=f.status,
                    previous_filename=f.previous_filename or None,
                    sha=f.sha or None,
                    additions=f.additions,
                    deletions=f.deletions,
                    patch=f.patch or None,
                )
                for f in self._repository().get_pull(number).get_files()
            ]
        if len(files) >= MAX_PULL_FILES:
            log.warning(
                "pull request #%s lists %d files, GitHub's maximum: the list may be truncated",
                number,
                len(files),
            )
        return files

    def compare_files(self, base: str, head: str) -> tuple[list[PullFile], bool]:
        """The files changed from ``base`` to ``head``, both commit SHAs (1 request): the
        listing of exactly these two commits, whatever the pull request's head is by now.
        GitHub lists at most 300 files of a comparison; the flag says the list is full."""
        _check_sha(base)
        _check_sha(head)
        with self._translate(f"compare {base[:12]}...{head[:12]}"):
            _, data = self._github().requester.requestJsonAndCheck(
                "GET",
                f"{self._repository().url}/compare/{base}...{head}",
                parameters={"per_page": 1},
            )
        raw = data.get("files") if isinstance(data, dict) else None
        if not isinstance(raw, list):
            raise GitHubUnavailable(f"compare {base[:12]}...{head[:12]}: no file list")
        files = [
            PullFile(
                filename=str(f["filename"]),
                status=str(f.get("status") or "modified"),
                previous_filename=f.get("previous_filename") or None,
                sha=f.get("sha") or None,
                additions=int(f.get("additions") or 0),
                deletions=int(f.get("deletions") or 0),
                patch=f.get("patch") if isinstance(f.get("patch"), str) else None,
            )
            for f in raw
            if isinstance(f, dict) and isinstance(f.get("filename"), str)
        ]
        return files, len(files) >= MAX_COMPARE_FILES

    def tree(self, sha: str, *, recursive: bool = True) -> tuple[dict[str, TreeEntry], bool]:
        """The git tree of a commit (or a tree) by SHA, every path to its entry (1 request),
        and whether GitHub truncated it (then read folders with ``recursive=False``)."""
        _check_sha(sha)
        params = {"recursive": "1"} if recursive else None
        with self._translate(f"get the tree of {sha[:12]}"):
            _, data = self._github().requester.requestJsonAndCheck(
                "GET", f"{self._repository().url}/git/trees/{sha}", parameters=params
            )
        raw = data.get("tree") if isinstance(data, dict) else None
        if not isinstance(raw, list):
            raise GitHubUnavailable(f"get the tree of {sha[:12]}: no entries")
        entries = {}
        for e in raw:
            if isinstance(e, dict) and isinstance(e.get("path"), str):
                size = e.get("size")
                entries[e["path"]] = TreeEntry(
                    e["path"], str(e.get("mode") or ""), str(e.get("type") or ""),
                    str(e.get("sha") or ""), size if isinstance(size, int) else None,
                )  # fmt: skip
        return entries, bool(data.get("truncated"))

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
        _check_sha(commit_id)
        with self._translate(f"review #{number}"):
            _, data = self._github().requester.requestJsonAndCheck(
                "POST",
                f"{self._repository().url}/pulls/{int(number)}/reviews",
                input={"commit_id": commit_id, "body": body, "event": event,
                       "comments": comments},
            )  # fmt: skip
        return int(data["id"]) if isinstance(data, dict) and "id" in data else 0

    def delete_review_comment(self, comment_id: int) -> None:
        """Delete one comment on a diff line (1 request)."""
        with self._translate(f"delete review comment {comment_id}"):
            self._github().requester.requestJsonAndCheck(
                "DELETE", f"{self._repository().url}/pulls/comments/{int(comment_id)}"
            )

    # ------------------------------------------------------------------ contents

    def get_file_at(self, path: str, ref: str) -> bytes | None:
        """The file's bytes at ``ref`` (branch, tag or SHA), or None when there is no file there
        (missing path or ref, a directory, a symlink or a submodule). 1 request up to 1 MB,
        2 above; bigger than ``max_blob_bytes``: :class:`GitHubFileTooLarge`, nothing read."""
        clean = path.strip("/")
        if not clean:
            raise ValueError("path must name a file")
        try:
            with self._translate(f"get {clean!r} at {ref!r}"):
                found = self._repository().get_contents(clean, ref=ref)
                if isinstance(found, list) or found.type != "file":
                    return None
                size, encoding, content, sha = found.size, found.encoding, found.content, found.sha
        except GitHubNotFound:
            return None
        limit = self._settings.max_blob_bytes
        if size > limit:
            raise GitHubFileTooLarge(
                f"{clean!r} at {ref!r} is {size} bytes, over the {limit}-byte limit",
                size=size,
                limit=limit,
            )
        if encoding == "base64":
            return _decode_base64(content or "", f"{clean!r} at {ref!r}")
        # 1-100 MB files come without content ("encoding": "none"): read the blob instead
        return self.get_blob(sha)

    def get_blob(self, sha: str) -> bytes:
        """A git blob's bytes, streamed raw (1 request) and abandoned as soon as it exceeds
        ``max_blob_bytes`` (:class:`GitHubFileTooLarge`): a 50 MB blob is never loaded."""
        _check_sha(sha)
        url = f"{self._settings.api_url}/repos/{self._settings.repository}/git/blobs/{sha}"
        return self._download(url, f"get blob {sha[:12]}")

    def _download(self, url: str, operation: str) -> bytes:
        # PyGithub reads whole bodies (and its stream helper forces Accept: octet-stream), so
        # capped downloads use a requests session with the same token, timeout and retries.
        limit = self._settings.max_blob_bytes
        with (
            self._translate(operation),
            self._http().get(
                url,
                headers={"Accept": RAW_MEDIA_TYPE},
                stream=True,
                timeout=self._settings.timeout,
                allow_redirects=False,
            ) as response,
        ):
            if not 200 <= response.status_code < 300:
                head = next(response.iter_content(64 * 1024), b"")
                raise self._error(operation, response.status_code, response.headers, _parse(head))
            declared = response.headers.get("Content-Length")
            if declared is not None and declared.isdigit() and int(declared) > limit:
                raise GitHubFileTooLarge(
                    f"{operation}: {declared} bytes, over the {limit}-byte limit",
                    size=int(declared),
                    limit=limit,
                    operation=operation,
                )
            chunks: list[bytes] = []
            total = 0
            for chunk in response.iter_content(256 * 1024):
                total += len(chunk)
                if total > limit:
                    raise GitHubFileTooLarge(
                        f"{operation}: more than {limit} bytes", size=None, limit=limit
                    )
                chunks.append(chunk)
            return b"".join(chunks)

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
        personal token, its own login (GET /user, once); else ``github-actions[bot]``, the
        author of everything the Actions GITHUB_TOKEN writes (a GitHub App's installation
        token writes as ``<app>[bot]``: configure that one)."""
        if self._sticky_login is None:
            login = self._settings.bot_login
            if login is None and self._settings.token.startswith(PERSONAL_PREFIXES):
                try:
                    login = self.authenticated_login()
                except GitHubError:
                    login = None
            self._sticky_login = login or DEFAULT_BOT_LOGIN
        return self._sticky_login

    def authenticated_login(self) -> str | None:
        """The token's own login (GET /user), or None where GitHub does not tell: the Actions
        GITHUB_TOKEN gets 403 here; its comments are authored by ``github-actions[bot]``."""
        try:
            with self._translate("get the authenticated user"):
                return self._github().get_user().login
        except (GitHubForbidden, GitHubNotFound):
            return None

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


def _check_sha(sha: str) -> None:
    if not SHA_PATTERN.fullmatch(sha):
        raise ValueError(f"not a commit/blob SHA: {sha!r}")


def _decode_base64(content: str, what: str) -> bytes:
    try:
        return base64.b64decode(content)  # GitHub wraps lines; b64decode skips the newlines
    except (binascii.Error, ValueError):
        raise GitHubUnavailable(f"{what}: GitHub sent invalid base64 content") from None


def _parse(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return {"data": raw.decode("utf-8", "replace")}
