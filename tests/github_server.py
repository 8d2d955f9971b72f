"""A loopback GitHub REST API for tests: a real HTTP server on 127.0.0.1.

PyGithub (or anything else) talks to it through ``base_url`` exactly as it would talk to
api.github.com. Response bodies are the *recorded* GitHub responses from
``../shared/github-samples/api`` (next to the checkout), with ids, numbers, URLs, owner/repo, SHAs,
bodies and users substituted to the state of the test. When that folder is absent (a bare clone),
trimmed copies of the same recordings in ``tests/github_server_data/`` are used instead
(``ROOFBOT_GITHUB_SAMPLES=/nonexistent pytest`` forces that; ``gh.samples_source`` tells which).

Typical use::

    with FakeGitHub(owner="octo-org", repo="records") as gh:
        gh.add_pull(7, files=["records/a.yaml"])
        client = GitHubClient(GitHubSettings(api_url=gh.base_url, token=gh.token, ...))
        ...
        assert gh.count("POST", r"/issues/7/comments$") == 1

or as a pytest fixture: ``fake_github = fake_github_fixture()`` at module level.

State (read or seed it directly; all of it is guarded by ``gh.lock``):
    ``comments`` (id -> :class:`CommentState`), ``statuses`` (sha -> list of status dicts, in the
    order they were created), ``reactions`` (list of :class:`ReactionState`), ``pulls``
    (number -> :class:`PullState`, whose ``files`` list is the PR's file list, at its *current*
    head), ``blobs`` (sha -> bytes), ``contents`` ((ref, path) -> blob sha; a ref is a branch or
    a commit SHA), ``modes`` ((ref, path) -> git mode, ``add_link`` makes a 120000 link),
    ``permissions`` (login -> payload),
    ``bot_login`` / ``bot_type`` (the author of comments and statuses created through the API),
    ``reviews`` (id -> :class:`ReviewState`) and ``review_comments`` (id ->
    :class:`ReviewCommentState`, the comments on diff lines; ``reviews_on(n)`` and
    ``review_comments_on(n)`` list a PR's). Reviews are answered as GitHub's REST description
    has them (no recorded exchange exists): ``POST /pulls/{n}/reviews`` with ``commit_id``,
    ``event`` and ``comments`` (``path``, ``body``, ``line`` + ``side`` or ``position``; a line
    the file's ``patch`` does not show is GitHub's 422, see :func:`diff_positions`),
    ``GET /pulls/{n}/reviews``, ``GET /pulls/{n}/comments``, ``DELETE /pulls/comments/{id}``.

Request log: ``requests`` (list of :class:`RecordedRequest`, every request including the ones a
fault answered), ``count(method, pattern)``, ``matching(method, pattern)``, ``clear_requests()``.
Patterns are regular expressions searched in the *canonical* path: ``/repositories/{id}/...`` (the
form GitHub uses in Link headers) is rewritten to ``/repos/{owner}/{repo}/...``.

Faults: ``fail(method, pattern, status, times=..., body=..., headers=..., delay=..., skip=...)``
queues a rule; the first rule that matches a request and still has uses left answers it, after
letting ``skip`` matching requests through (``fail("*", "", 502, skip=3)``: the 4th call fails).
Helpers:
``fail_server_error``, ``fail_integration_forbidden`` (a fork PR's read-only token),
``fail_rate_limited`` (primary: 403 + ``x-ratelimit-remaining: 0``; secondary: 403/429 +
``retry-after``; held as GitHub holds it, every matching request until the reset the headers
give, the reset configurable so tests stay fast), ``hang`` (sleep longer than the client's timeout, then answer normally: the
request *did* happen on the server). ``read_only = True`` answers every write with the
"Resource not accessible by integration" 403; ``raw_chunked = True`` sends raw file/blob bodies
chunked, without Content-Length. Comment bodies longer than 65536 characters get
GitHub's 422 for real, and status descriptions longer than 140 characters too.

Git data, as GitHub's REST description shapes it: ``compare/{base}...{head}`` lists the files
that differ between the contents of the two refs (at most 300), ``git/trees/{sha}`` (with
``?recursive=1``) the tree of a ref's contents with modes, ``git/blobs/{sha}`` a blob; the
contents API follows a link to a file in the repository, as GitHub's does.
"""

from __future__ import annotations

import base64
import copy
import difflib
import hashlib
import http.server
import json
import math
import os
import posixpath
import re
import socket
import sys
import threading
import time
import traceback
import urllib.parse
import uuid
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

SAMPLES_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "github-samples"
FALLBACK_DIR = Path(__file__).resolve().parent / "github_server_data"

#: The recorded response bodies the server is built from (file stems under ``api/``).
TEMPLATE_NAMES = (
    "get-repo",
    "get-pull",
    "list-pull-files",
    "get-issue",
    "get-issue.on-pull",
    "get-issue-comment",
    "create-status",
    "get-combined-status",
    "create-reaction-issue-comment",
    "get-collaborator-permission",
    "get-collaborator-permission.maintain",
    "get-collaborator-permission.403",
)

SAMPLE_API = "https://api.github.com"
MAX_COMMENT_CHARS = 65536
MAX_STATUS_DESCRIPTION = 140
MAX_PULL_FILES = 3000  # GET /pulls/{n}/files never lists more than 3000 files
DEFAULT_PER_PAGE = 30
MAX_PER_PAGE = 100
INLINE_CONTENT_LIMIT = 1024 * 1024  # the contents API inlines files up to 1 MB
RATE_LIMIT = 5000
#: The Actions GITHUB_TOKEN's primary limit: 1,000 requests an hour per repository.
GITHUB_TOKEN_BUDGET = 1000
API_VERSION = "2022-11-28"
RAW_MEDIA_TYPE = "application/vnd.github.raw"
REACTIONS = frozenset({"+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"})
STATUS_STATES = frozenset({"error", "failure", "pending", "success"})
ROLE_RANK = {"none": 0, "read": 1, "triage": 2, "write": 3, "maintain": 4, "admin": 5}
LEGACY_PERMISSION = {  # role_name -> legacy `permission`, as GitHub's OpenAPI description says
    "admin": "admin",
    "maintain": "write",
    "write": "write",
    "triage": "read",
    "read": "read",
    "none": "none",
}
KNOWN_USER_IDS = {"github-actions[bot]": 41898282, "dependabot[bot]": 49699333}
DOCS = "https://docs.github.com/rest"

INTEGRATION_FORBIDDEN = "Resource not accessible by integration"
PRIMARY_RATE_LIMIT = (
    "API rate limit exceeded for installation ID 18596033. If you reach out to GitHub Support "
    "for help, please include the request ID 9AF8:39DBF6:979B249:8D08185:68DA9C14 and timestamp "
    "2025-09-29 14:47:49 UTC."
)
SECONDARY_RATE_LIMIT = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. "
    "If you reach out to GitHub Support for help, please include the request ID "
    "9AF8:39DBF6:979B249:8D08185:68DA9C14."
)


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def git_blob_sha(data: bytes) -> str:
    """The SHA-1 git gives a blob with this content."""
    return hashlib.sha1(b"blob %d\x00" % len(data) + data, usedforsecurity=False).hexdigest()


def _b64_lines(data: bytes) -> str:
    """Base64 the way GitHub sends ``content``: wrapped at 60 characters, newline-terminated."""
    text = base64.b64encode(data).decode("ascii")
    return "".join(text[i : i + 60] + "\n" for i in range(0, len(text), 60))


def _swap(obj: Any, pairs: list[tuple[str, str]]) -> Any:
    """Apply ``str.replace`` for each (old, new) pair, in order, to every string in ``obj``."""
    if isinstance(obj, str):
        for old, new in pairs:
            obj = obj.replace(old, new)
        return obj
    if isinstance(obj, dict):
        return {key: _swap(value, pairs) for key, value in obj.items()}
    if isinstance(obj, list):
        return [_swap(value, pairs) for value in obj]
    return obj


def _node_id(kind: str, number: int) -> str:
    return base64.b64encode(f"0{len(kind)}:{kind}{number}".encode()).decode("ascii").rstrip("=")


def load_templates(samples_dir: Path | None = None) -> tuple[dict[str, Any], Path]:
    """The recorded bodies by name, and the folder they were read from."""
    override = os.environ.get("ROOFBOT_GITHUB_SAMPLES")  # e.g. a missing path: use the fallback
    api = (samples_dir or (Path(override) if override else SAMPLES_DIR)) / "api"
    source = api if all((api / f"{n}.json").is_file() for n in TEMPLATE_NAMES) else FALLBACK_DIR
    templates = {n: json.loads((source / f"{n}.json").read_text("utf-8")) for n in TEMPLATE_NAMES}
    return templates, source


# --------------------------------------------------------------------------------------- state


@dataclass
class CommentState:
    id: int
    issue_number: int
    body: str
    user_login: str
    user_type: str = "User"
    author_association: str = "NONE"
    created_at: str = field(default_factory=_now)
    updated_at: str = field(default_factory=_now)


@dataclass
class ReactionState:
    id: int
    comment_id: int
    content: str
    user_login: str
    user_type: str
    created_at: str = field(default_factory=_now)


@dataclass
class ReviewState:
    """A submitted pull-request review (GitHub's `pull-request-review` schema)."""

    id: int
    pull_number: int
    body: str
    state: str  # COMMENTED, CHANGES_REQUESTED, APPROVED, PENDING
    commit_id: str
    user_login: str
    user_type: str
    submitted_at: str = field(default_factory=_now)


@dataclass
class ReviewCommentState:
    """One comment on a diff line (GitHub's `pull-request-review-comment` schema)."""

    id: int
    review_id: int
    pull_number: int
    path: str
    line: int
    side: str  # RIGHT (the head) or LEFT (the base)
    body: str
    commit_id: str
    user_login: str
    user_type: str
    diff_hunk: str = ""
    position: int | None = None
    created_at: str = field(default_factory=_now)
    updated_at: str = field(default_factory=_now)


def diff_positions(patch: str) -> dict[tuple[str, int], int]:
    """(side, line) -> `position` (lines below the first hunk header, which is not one) of
    each line a unified-diff `patch` shows: a `+` line and a context line on RIGHT (the head's
    line number), a `-` line and a context line on LEFT. Only these lines take a comment."""
    out: dict[tuple[str, int], int] = {}
    old = new = 0
    position = 0
    started = False
    for text in patch.split("\n"):
        m = re.match(r"@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@", text)
        if m:
            old, new = int(m[1]), int(m[2])
            if started:
                position += 1  # a later hunk's header counts as a position
            started = True
            continue
        if not started:
            continue
        position += 1
        if text.startswith("+"):
            out[("RIGHT", new)] = position
            new += 1
        elif text.startswith("-"):
            out[("LEFT", old)] = position
            old += 1
        elif text.startswith(" "):  # context (not "\ No newline at end of file")
            out[("RIGHT", new)] = out[("LEFT", old)] = position
            old += 1
            new += 1
    return out


@dataclass
class FileState:
    filename: str
    status: str = "modified"
    sha: str | None = None
    additions: int = 1
    deletions: int = 0
    previous_filename: str | None = None
    patch: str | None = "@@ -1 +1 @@\n-old\n+new"


@dataclass
class PullState:
    number: int
    head_sha: str
    base_sha: str
    head_ref: str = "feature"
    base_ref: str = "main"
    head_repo: str | None = None  # full name; None = the fork was deleted ("unknown repository")
    state: str = "open"
    draft: bool = False
    merged: bool = False
    title: str = "Add benchmark records"
    body: str | None = None
    user_login: str = "octocat"
    user_type: str = "User"
    author_association: str = "CONTRIBUTOR"
    files: list[FileState] = field(default_factory=list)


@dataclass
class Fault:
    """An injected answer for requests whose method and canonical path match."""

    method: str
    pattern: re.Pattern[str]
    status: int | None = None  # None: after `delay`, answer normally
    body: Any = None  # JSON-able, or bytes/str sent as text/html
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    times: int | None = 1  # None: forever
    hits: int = 0
    skip: int = 0  # let this many matching requests through first (fail "the n-th call")
    seen: int = 0
    hold: float | None = None  # a rate limit: answer every match for this long from the 1st hit
    until: float | None = None  # when the held limit lifts (set at the first hit)

    def matches(self, method: str, path: str, now: float) -> bool:
        if self.times is not None and self.hits >= self.times:
            return False
        if self.until is not None and now >= self.until:
            return False
        return self.method in ("*", method) and self.pattern.search(path) is not None


@dataclass
class RecordedRequest:
    method: str
    path: str  # as sent, without the query string
    route: str  # canonical: /repositories/{id} rewritten to /repos/{owner}/{repo}
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes
    at: float

    def header(self, name: str) -> str | None:
        wanted = name.lower()
        return next((v for k, v in self.headers.items() if k.lower() == wanted), None)

    @property
    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


@dataclass
class Response:
    status: int
    body: Any = None  # dict/list -> JSON; bytes -> raw; None -> empty
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "application/json; charset=utf-8"
    faulted: bool = False  # a fault a test injected, not the server's own answer


class _HTTPError(Exception):
    def __init__(self, response: Response) -> None:
        super().__init__(response.status)
        self.response = response


def _error(status: int, message: str, doc: str = DOCS, **extra: Any) -> _HTTPError:
    body = {"message": message, **extra, "documentation_url": doc, "status": str(status)}
    return _HTTPError(Response(status, body))


def _validation_failed(resource: str, field_name: str, message: str, doc: str) -> _HTTPError:
    error = {"resource": resource, "code": "custom", "field": field_name, "message": message}
    return _error(422, "Validation Failed", doc, errors=[error])


# -------------------------------------------------------------------------------------- server


class FakeGitHub:
    """GitHub's REST API for one repository, served on 127.0.0.1 (see the module docstring)."""

    def __init__(
        self,
        owner: str = "octo-org",
        repo: str = "llm-roofline-records",
        *,
        token: str | None = "ghs_fakeInstallationToken000000000000000",
        bot_login: str = "github-actions[bot]",
        bot_type: str = "Bot",
        default_branch: str = "main",
        repo_id: int = 715500001,
        prefix: str = "",
        samples_dir: Path | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.owner = owner
        self.repo = repo
        self.full_name = f"{owner}/{repo}"
        self.token = token  # None: accept any (or no) Authorization header
        self.bot_login = bot_login
        self.bot_type = bot_type
        self.default_branch = default_branch
        self.repo_id = repo_id
        #: GitHub's time (epoch seconds): rate limits hold and reset on it, so a test that
        #: injects the same clock into the client waits without sleeping
        self.clock = clock
        self.prefix = prefix.rstrip("/")  # e.g. "/api/v3" to look like GitHub Enterprise Server
        self.templates, self.samples_source = load_templates(samples_dir)

        self.lock = threading.RLock()
        self.comments: dict[int, CommentState] = {}
        self.statuses: dict[str, list[dict[str, Any]]] = {}
        self.reactions: list[ReactionState] = []
        self.reviews: dict[int, ReviewState] = {}
        self.review_comments: dict[int, ReviewCommentState] = {}
        self.pulls: dict[int, PullState] = {}
        self.issues: set[int] = set()  # plain issues (pull requests are issues too)
        self.blobs: dict[str, bytes] = {}
        self.contents: dict[tuple[str, str], str] = {}
        self.modes: dict[tuple[str, str], str] = {}  # (ref, path) -> git mode; absent: 100644
        self._trees: dict[str, tuple[str, str]] = {}  # a tree's SHA -> (ref, folder)
        self.permissions: dict[str, dict[str, Any]] = {}
        self.issue_events: dict[int, list[dict[str, Any]]] = {}  # number -> its events (retarget)
        self.tree_entry_limit = 100_000  # a tree with more entries comes back truncated
        self.read_only = False
        self.raw_chunked = False  # send raw blobs/contents chunked, without Content-Length
        self.faults: list[Fault] = []
        self.requests: list[RecordedRequest] = []
        self.errors: list[str] = []  # tracebacks of bugs in this server (tests assert it is empty)
        #: every (request, answer), kept for the contract check when the server stops
        self.exchanges: list[tuple[RecordedRequest, Response]] = []
        self.rate_used = 0
        self.rate_reset = int(clock()) + 3600
        self.rate_limit = GITHUB_TOKEN_BUDGET

        self._ids = {
            "comment": 2_400_000_000,
            "status": 39_000_000_000,
            "reaction": 270_000_000,
            "review": 3_100_000_000,
            "review_comment": 2_500_000_000,
        }
        self._stopping = threading.Event()
        self._server: http.server.ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> FakeGitHub:
        handler = type("Handler", (_Handler,), {"app": self})
        server = _Server(("127.0.0.1", 0), handler)
        server.app = self
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes up handlers sleeping in a `hang`
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
            self.errors.extend(self.contract_violations())

    def __enter__(self) -> FakeGitHub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "FakeGitHub is not running"
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """What to pass as PyGithub's ``base_url`` / GITHUB_API_URL."""
        return f"http://127.0.0.1:{self.port}{self.prefix}"

    @property
    def repo_url(self) -> str:
        return f"{self.base_url}/repos/{self.full_name}"

    @property
    def html_url(self) -> str:
        return f"https://github.com/{self.full_name}"

    # ------------------------------------------------------------------ seeding

    def _next_id(self, kind: str) -> int:
        with self.lock:
            self._ids[kind] += 1
            return self._ids[kind]

    def add_pull(
        self,
        number: int,
        *,
        files: int | list[str] | list[FileState] = 0,
        head_sha: str | None = None,
        base_sha: str | None = None,
        fork: str | None = None,
        **fields: Any,
    ) -> PullState:
        """A pull request (and its issue). ``fork="someone"`` makes the head repo someone's fork;
        ``files`` is a count (generated names), a list of filenames or of :class:`FileState`."""
        head_sha = head_sha or hashlib.sha1(f"head-{number}".encode()).hexdigest()
        base_sha = base_sha or hashlib.sha1(f"base-{number}".encode()).hexdigest()
        head_repo = f"{fork}/{self.repo}" if fork else self.full_name
        pull = PullState(number, head_sha, base_sha, head_repo=head_repo, **fields)
        if fork:
            pull.user_login = fork
            pull.author_association = "FIRST_TIME_CONTRIBUTOR"
        with self.lock:
            self.pulls[number] = pull
        self.set_files(number, files)
        return pull

    def add_issue(self, number: int) -> None:
        with self.lock:
            self.issues.add(number)

    def set_files(self, number: int, files: int | list[str] | list[FileState]) -> list[FileState]:
        if isinstance(files, int):
            specs = [FileState(f"records/gen/model-{i:05d}.yaml") for i in range(files)]
        else:
            specs = [f if isinstance(f, FileState) else FileState(f) for f in files]
        for spec in specs:
            if spec.sha is None and spec.status != "removed":
                spec.sha = git_blob_sha(f"{number}:{spec.filename}".encode())
        with self.lock:
            self.pulls[number].files = specs
        return specs

    def add_comment(
        self,
        issue_number: int,
        body: str,
        *,
        login: str = "octocat",
        user_type: str = "User",
        author_association: str = "MEMBER",
    ) -> CommentState:
        comment = CommentState(
            self._next_id("comment"), issue_number, body, login, user_type, author_association
        )
        with self.lock:
            self.comments[comment.id] = comment
        return comment

    def add_blob(self, data: bytes) -> str:
        sha = git_blob_sha(data)
        with self.lock:
            self.blobs[sha] = data
        return sha

    def add_file(self, path: str, data: bytes, ref: str | None = None) -> str:
        """A file in the repository at ``ref`` (a branch name or a commit SHA)."""
        sha = self.add_blob(data)
        with self.lock:
            self.contents[(ref or self.default_branch, path.strip("/"))] = sha
        return sha

    def add_link(self, path: str, target: str, ref: str | None = None) -> str:
        """A symbolic link at ``ref``: a blob holding the target, mode 120000 in the tree (the
        contents API follows it to a file in the repository, as GitHub's does)."""
        sha = self.add_file(path, target.encode(), ref)
        with self.lock:
            self.modes[(ref or self.default_branch, path.strip("/"))] = "120000"
        return sha

    def add_commit_files(self, ref: str, files: dict[str, bytes]) -> None:
        """Several files at ``ref`` (a commit SHA) at once."""
        for path, data in files.items():
            self.add_file(path, data, ref)

    def set_permission(
        self, login: str, role_name: str, *, permission: str | None = None, user_type: str = "User"
    ) -> dict[str, Any]:
        """The current API's answer: ``role_name`` plus the legacy ``permission`` it maps to."""
        body: dict[str, Any] = copy.deepcopy(self.templates["get-collaborator-permission.maintain"])
        body["permission"] = permission or LEGACY_PERMISSION.get(role_name, "read")
        body["role_name"] = role_name
        body["user"] = self.user(login, user_type)
        rank = ROLE_RANK.get(role_name, 1)
        body["user"]["permissions"] = {
            "admin": rank >= 5,
            "maintain": rank >= 4,
            "push": rank >= 3,
            "triage": rank >= 2,
            "pull": rank >= 1,
        }
        body["user"]["role_name"] = role_name
        with self.lock:
            self.permissions[login.lower()] = body
        return body

    def set_permission_sample(self, login: str, sample: str) -> dict[str, Any]:
        """Answer with a recorded payload verbatim except for the user's login:
        ``"get-collaborator-permission"`` (2018, legacy ``permission: admin`` only) or
        ``"get-collaborator-permission.maintain"`` (2023, ``permission`` and ``role_name``
        both ``maintain``)."""
        body: dict[str, Any] = copy.deepcopy(self.templates[sample])
        body["user"]["login"] = login
        with self.lock:
            self.permissions[login.lower()] = body
        return body

    # ------------------------------------------------------------------ faults

    def fail(
        self,
        method: str,
        pattern: str,
        status: int | None = 500,
        *,
        times: int | None = 1,
        body: Any = None,
        headers: dict[str, str] | None = None,
        delay: float = 0.0,
        skip: int = 0,
    ) -> Fault:
        """Answer matching requests with ``status`` (None: normally, after ``delay``), the
        first ``times`` of them (None: all) after letting ``skip`` through."""
        if body is None and status is not None:
            body = {"message": "Server Error"} if status >= 500 else {"message": "Error"}
        fault = Fault(
            method.upper(), re.compile(pattern), status, body, headers or {}, delay, times, 0, skip
        )
        with self.lock:
            self.faults.append(fault)
        return fault

    def fail_server_error(
        self, method: str, pattern: str, status: int = 502, *, times: int | None = 1, skip: int = 0
    ) -> Fault:
        """5xx. A 502 comes as GitHub's HTML "Unicorn!" page, not JSON, as it does for real."""
        body: Any = {"message": "Server Error"}
        if status == 502:
            body = b"<html><head><title>Unicorn! &middot; GitHub</title></head><body></body></html>"
        return self.fail(method, pattern, status, times=times, body=body, skip=skip)

    def fail_integration_forbidden(
        self, method: str, pattern: str, *, times: int | None = None
    ) -> Fault:
        """The 403 a pull request from a fork gets: its GITHUB_TOKEN is read-only."""
        body = {"message": INTEGRATION_FORBIDDEN, "documentation_url": DOCS, "status": "403"}
        return self.fail(method, pattern, 403, times=times, body=body)

    def fail_rate_limited(
        self,
        method: str,
        pattern: str,
        *,
        status: int = 403,
        secondary: bool = False,
        reset_in: float = 600,
        retry_after: float | None = None,
        times: int | None = 1,
        skip: int = 0,
        hold: bool = True,
    ) -> Fault:
        """Primary limit: 403, ``x-ratelimit-remaining: 0`` and the reset epoch. Secondary
        limit (``secondary=True``): 403 or 429 with ``retry-after`` (60 s unless given).

        As on GitHub, a limit is *held* (``hold=True``, the default): from the first request
        it answers, every matching request gets it until the reset (``reset_in`` seconds; a
        secondary limit: ``retry_after``), whatever ``times`` says; the headers give the time
        left. Tests make the reset short to stay fast. ``hold=False``: a one-off answer to
        ``times`` requests, with the headers fixed when the fault was made."""
        reset = int(self.clock()) + reset_in
        headers = {
            "x-ratelimit-limit": str(RATE_LIMIT),
            "x-ratelimit-remaining": "0" if not secondary else "4990",
            "x-ratelimit-used": str(RATE_LIMIT) if not secondary else "10",
            "x-ratelimit-reset": str(reset),
            "x-ratelimit-resource": "core",
        }
        if secondary or retry_after is not None:
            headers["retry-after"] = str(retry_after if retry_after is not None else 60)
        doc = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"
        message = SECONDARY_RATE_LIMIT if secondary else PRIMARY_RATE_LIMIT
        body = {"message": message, "documentation_url": doc}
        fault = self.fail(
            method, pattern, status, times=None if hold else times, body=body, headers=headers,
            skip=skip,
        )  # fmt: skip
        if hold:
            held = "retry-after" in headers
            fault.hold = float(retry_after if retry_after is not None else 60) if held else reset_in
        return fault

    def hang(
        self, method: str, pattern: str, seconds: float, *, times: int | None = 1, skip: int = 0
    ) -> Fault:
        """Sleep ``seconds`` before answering normally (set it above the client's timeout)."""
        return self.fail(method, pattern, None, times=times, delay=seconds, skip=skip)

    # ------------------------------------------------------------------ contract (ghapi)

    def _answered(self, recorded: RecordedRequest, response: Response) -> Response:
        with self.lock:
            self.exchanges.append((recorded, response))
        return response

    def contract_violations(self) -> list[str]:
        """What GitHub's REST description forbids in this server's exchanges so far
        (tests/openapi_contract.py): a request GitHub would refuse, an answer it never gives."""
        try:
            from openapi_contract import violations
        except ImportError:  # pragma: no cover
            from tests.openapi_contract import violations
        with self.lock:
            exchanges = list(self.exchanges)
        return [f"GitHub's REST description: {v}" for v in violations(exchanges)]

    def _authenticated_user(self) -> Response:
        """GET /user: an installation token (ghs_, the Actions token's kind) gets GitHub's
        403; a user's token its public profile, every field GitHub's description requires."""
        if (self.token or "").startswith("ghs_"):
            raise _error(
                403, INTEGRATION_FORBIDDEN, f"{DOCS}/users/users#get-the-authenticated-user"
            )
        body = self.user(self.bot_login, self.bot_type)
        body.update(name=None, company=None, blog="", location=None, email=None, hireable=None,
                    bio=None, public_repos=0, public_gists=0, followers=0, following=0,
                    created_at="2020-01-01T00:00:00Z", updated_at=_now())  # fmt: skip
        return Response(200, body)

    def _commit_json(self, sha: str) -> dict[str, Any]:
        """A commit as GitHub's `commit` schema has it (every required field)."""
        who = {"name": "octocat", "email": "octocat@github.com", "date": "2026-01-01T00:00:00Z"}
        return {
            "url": f"{self.repo_url}/commits/{sha}",
            "sha": sha,
            "node_id": _node_id("Commit", int(sha[:7], 16) if re.fullmatch(r"[0-9a-f]{7,}", sha)
                                else 0),
            "html_url": f"{self.html_url}/commit/{sha}",
            "comments_url": f"{self.repo_url}/commits/{sha}/comments",
            "commit": {
                "url": f"{self.repo_url}/git/commits/{sha}",
                "author": who,
                "committer": who,
                "message": "a commit",
                "comment_count": 0,
                "tree": {"sha": sha, "url": f"{self.repo_url}/git/trees/{sha}"},
            },
            "author": None,
            "committer": None,
            "parents": [],
        }  # fmt: skip

    # ------------------------------------------------------------------ budgets (ghapi)

    def _spend_budget(self, now: float) -> Response | None:
        """One request of the hour's budget (``rate_limit``, the GITHUB_TOKEN's 1,000 by
        default); past it, GitHub's primary limit until the hour resets. Call with the lock."""
        if now >= self.rate_reset:
            self.rate_used, self.rate_reset = 0, int(now) + 3600
        self.rate_used += 1
        return _budget_exhausted(self) if self.rate_used > self.rate_limit else None

    def fail_secondary_limit(
        self, method: str, pattern: str, *, hold: float = 90, status: int = 403, skip: int = 0
    ) -> Fault:
        """A secondary rate limit as GitHub often sends it: 403 (or 429), the secondary
        limit's message, *no* ``retry-after``, and primary headers with plenty left (their
        reset, up to an hour away, says nothing of this limit). Held ``hold`` seconds from
        the first request it answers."""
        headers = {
            "x-ratelimit-limit": str(self.rate_limit),
            "x-ratelimit-remaining": str(max(self.rate_limit - 10, 1)),
            "x-ratelimit-used": "10",
            "x-ratelimit-reset": str(self.rate_reset),
            "x-ratelimit-resource": "core",
        }
        doc = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"
        body = {"message": SECONDARY_RATE_LIMIT, "documentation_url": doc}
        fault = self.fail(method, pattern, status, times=None, body=body, headers=headers,
                          skip=skip)  # fmt: skip
        fault.hold = hold
        return fault

    # ------------------------------------------------------------------ reviews (ghapi)

    def _outdated(self, c: ReviewCommentState) -> bool:
        """GitHub's outdated comment: its diff hunk (up to its line) is not in the pull
        request's diff any more; GitHub then answers `line` and `position` null."""
        pull = self.pulls.get(c.pull_number)
        f = next((f for f in pull.files if f.filename == c.path), None) if pull else None
        if f is None or not f.patch or c.position is None:
            return True
        return "\n".join(f.patch.split("\n")[: c.position + 1]) != c.diff_hunk

    def _delete_review(self, number: str, review_id: str, **_: Any) -> Response:
        """Only a pending review can be deleted: a submitted one stays in the timeline."""
        doc = f"{DOCS}/pulls/reviews#delete-a-pending-review-for-a-pull-request"
        review = self.reviews.get(int(review_id))
        if review is None or review.pull_number != int(number):
            raise _error(404, "Not Found", doc)
        if review.state != "PENDING":
            raise _error(422, "Unprocessable Entity", doc,
                         errors=["Can not delete a non-pending pull request review"])  # fmt: skip
        del self.reviews[review.id]
        return Response(200, self._review_json(review))

    def _dismiss_review(self, number: str, review_id: str, *, data: Any, **_: Any) -> Response:
        """A review that approved or requested changes is dismissed with a message; GitHub
        refuses to dismiss a plain comment review or a pending one."""
        doc = f"{DOCS}/pulls/reviews#dismiss-a-review-for-a-pull-request"
        review = self.reviews.get(int(review_id))
        if review is None or review.pull_number != int(number):
            raise _error(404, "Not Found", doc)
        if not isinstance(data, dict) or not isinstance(data.get("message"), str):
            raise _error(422, "Invalid request.", doc, errors=["message is missing"])
        if review.state not in ("APPROVED", "CHANGES_REQUESTED"):
            what = "commented" if review.state == "COMMENTED" else review.state.lower()
            raise _error(422, "Unprocessable Entity", doc,
                         errors=[f"Can not dismiss a {what} pull request review"])  # fmt: skip
        review.state = "DISMISSED"
        return Response(200, self._review_json(review))

    # ------------------------------------------------------------------ request log

    def matching(self, method: str | None = None, pattern: str = "") -> list[RecordedRequest]:
        regex = re.compile(pattern)
        with self.lock:
            return [
                r
                for r in self.requests
                if (method is None or r.method == method.upper()) and regex.search(r.route)
            ]

    def count(self, method: str | None = None, pattern: str = "") -> int:
        return len(self.matching(method, pattern))

    def clear_requests(self) -> None:
        with self.lock:
            self.requests.clear()

    def comments_on(self, issue_number: int) -> list[CommentState]:
        with self.lock:
            return [c for c in self.comments.values() if c.issue_number == issue_number]

    # ------------------------------------------------------------------ bodies

    def _api(self) -> list[tuple[str, str]]:
        return [(SAMPLE_API, self.base_url)]

    def user(self, login: str, user_type: str = "User") -> dict[str, Any]:
        """A user object from a recording: a Bot (dependabot[bot] in get-pull), an Organization
        (PyGithub in get-repo) or a User (stuglaser in get-issue-comment)."""
        if user_type == "Bot":
            template, old = self.templates["get-pull"]["user"], "dependabot[bot]"
        elif user_type == "Organization":
            template, old = self.templates["get-repo"]["owner"], "PyGithub"
        else:
            template, old = self.templates["get-issue-comment"]["user"], "stuglaser"
        quoted_old, quoted = urllib.parse.quote(old), urllib.parse.quote(login)
        app_slug = login.removesuffix("[bot]")
        pairs = [
            (f"{SAMPLE_API}/users/{quoted_old}", f"{self.base_url}/users/{quoted}"),
            (f"https://github.com/{old}", f"https://github.com/{login}"),
            ("https://github.com/apps/dependabot", f"https://github.com/apps/{app_slug}"),
            *self._api(),
        ]
        body: dict[str, Any] = _swap(copy.deepcopy(template), pairs)
        uid = KNOWN_USER_IDS.get(login, 1000 + zlib.crc32(login.encode()) % 90_000_000)
        body.update(login=login, id=uid, node_id=_node_id(user_type, uid), type=user_type)
        return body

    def _repo_json(self, full_name: str, repo_id: int, *, fork: bool = False) -> dict[str, Any]:
        owner = full_name.split("/")[0]
        pairs = [
            ("PyGithub/PyGithub", full_name),
            (f"{SAMPLE_API}/users/PyGithub", f"{self.base_url}/users/{owner}"),
            ("https://github.com/PyGithub", f"https://github.com/{owner}"),
            *self._api(),
        ]
        body: dict[str, Any] = _swap(copy.deepcopy(self.templates["get-repo"]), pairs)
        owner_is_org = owner == self.owner
        owner_json = self.user(owner, "Organization" if owner_is_org else "User")
        body.update(
            id=repo_id,
            node_id=_node_id("Repository", repo_id),
            name=full_name.split("/")[1],
            full_name=full_name,
            owner=owner_json,
            fork=fork,
            private=False,
            visibility="public",
            description="LLM inference benchmark records",
            default_branch=self.default_branch,
        )
        if owner_is_org:
            body["organization"] = owner_json
        else:
            body.pop("organization", None)
        return body

    def _comment_json(self, c: CommentState) -> dict[str, Any]:
        body: dict[str, Any] = copy.deepcopy(self.templates["get-issue-comment"])
        kind = "pull" if c.issue_number in self.pulls else "issues"
        url = f"{self.repo_url}/issues/comments/{c.id}"
        counts = {name: 0 for name in REACTIONS}
        for r in self.reactions:
            if r.comment_id == c.id:
                counts[r.content] += 1
        body.update(
            url=url,
            html_url=f"{self.html_url}/{kind}/{c.issue_number}#issuecomment-{c.id}",
            issue_url=f"{self.repo_url}/issues/{c.issue_number}",
            id=c.id,
            node_id=_node_id("IssueComment", c.id),
            user=self.user(c.user_login, c.user_type),
            created_at=c.created_at,
            updated_at=c.updated_at,
            author_association=c.author_association,
            body=c.body,
            reactions={"url": f"{url}/reactions", "total_count": sum(counts.values()), **counts},
            performed_via_github_app=None,
        )
        return body

    def _pull_json(self, p: PullState) -> dict[str, Any]:
        sample = self.templates["get-pull"]
        old_n = str(sample["number"])
        pairs = [
            ("PyGithub/PyGithub", self.full_name),
            (f"/pulls/{old_n}", f"/pulls/{p.number}"),
            (f"/pull/{old_n}", f"/pull/{p.number}"),
            (f"/issues/{old_n}", f"/issues/{p.number}"),
            (sample["head"]["sha"], p.head_sha),
            *self._api(),
        ]
        body: dict[str, Any] = _swap(copy.deepcopy(sample), pairs)
        base_repo = self._repo_json(self.full_name, self.repo_id)
        if p.head_repo is None:
            head_owner, head_repo = "ghost", None
        elif p.head_repo == self.full_name:
            head_owner, head_repo = self.owner, base_repo
        else:
            head_owner = p.head_repo.split("/")[0]
            head_repo = self._repo_json(p.head_repo, self.repo_id + p.number, fork=True)
        closed = p.state == "closed"
        body.update(
            id=1_800_000_000 + p.number,
            node_id=_node_id("PullRequest", p.number),
            number=p.number,
            state=p.state,
            title=p.title,
            body=p.body,
            user=self.user(p.user_login, p.user_type),
            draft=p.draft,
            merged=p.merged,
            merged_at=_now() if p.merged else None,
            closed_at=_now() if closed else None,
            merged_by=None,
            merge_commit_sha=None,
            author_association=p.author_association,
            labels=[],
            mergeable=None,
            mergeable_state="unknown",
            changed_files=len(p.files),
            additions=sum(f.additions for f in p.files),
            deletions=sum(f.deletions for f in p.files),
            head={
                "label": f"{head_owner}:{p.head_ref}",
                "ref": p.head_ref,
                "sha": p.head_sha,
                "user": self.user(head_owner, "Organization" if head_repo is base_repo else "User"),
                "repo": head_repo,
            },
            base={
                "label": f"{self.owner}:{p.base_ref}",
                "ref": p.base_ref,
                "sha": p.base_sha,
                "user": self.user(self.owner, "Organization"),
                "repo": base_repo,
            },
        )
        return body

    def _file_json(self, p: PullState, f: FileState) -> dict[str, Any]:
        body: dict[str, Any] = copy.deepcopy(self.templates["list-pull-files"][0])
        path = urllib.parse.quote(f.filename)
        body.update(
            sha=f.sha,
            filename=f.filename,
            status=f.status,
            additions=f.additions,
            deletions=f.deletions,
            changes=f.additions + f.deletions,
            blob_url=f"{self.html_url}/blob/{p.head_sha}/{path}",
            raw_url=f"{self.html_url}/raw/{p.head_sha}/{path}",
            contents_url=f"{self.repo_url}/contents/{path}?ref={p.head_sha}",
        )
        if f.patch is None:
            body.pop("patch", None)
        else:
            body["patch"] = f.patch
        if f.previous_filename is not None:
            body["previous_filename"] = f.previous_filename
        return body

    def _issue_json(self, number: int) -> dict[str, Any]:
        is_pull = number in self.pulls
        sample = self.templates["get-issue.on-pull" if is_pull else "get-issue"]
        old_repo = sample["repository_url"].split("/repos/")[1]
        old_n = str(sample["number"])
        pairs = [
            (old_repo, self.full_name),
            (f"/issues/{old_n}", f"/issues/{number}"),
            (f"/pull/{old_n}", f"/pull/{number}"),
            (f"/pulls/{old_n}", f"/pulls/{number}"),
            *self._api(),
        ]
        body: dict[str, Any] = _swap(copy.deepcopy(sample), pairs)
        pull = self.pulls.get(number)
        body.update(
            number=number,
            id=2_000_000_000 + number,
            node_id=_node_id("Issue", number),
            comments=len(self.comments_on(number)),
            state=pull.state if pull else "open",
        )
        if pull is not None:
            body.update(title=pull.title, user=self.user(pull.user_login, pull.user_type))
        return body

    def _status_json(self, sha: str, spec: dict[str, Any]) -> dict[str, Any]:
        body: dict[str, Any] = copy.deepcopy(self.templates["create-status"])
        body.update(spec)
        body["url"] = f"{self.repo_url}/statuses/{sha}"
        body["creator"] = self.user(self.bot_login, self.bot_type)
        body["avatar_url"] = body["creator"]["avatar_url"]
        return body

    def _combined_status_json(self, ref: str) -> dict[str, Any]:
        sample = self.templates["get-combined-status"]
        old_repo = sample["repository"]["full_name"]
        pairs = [(old_repo, self.full_name), (sample["sha"], ref), *self._api()]
        body: dict[str, Any] = _swap(copy.deepcopy(sample), pairs)
        latest: dict[str, dict[str, Any]] = {}
        for status in self.statuses.get(ref, []):
            latest[status["context"].lower()] = status  # later ones replace earlier ones
        statuses = [{k: v for k, v in s.items() if k != "creator"} for s in latest.values()]
        states = {s["state"] for s in statuses}
        if states & {"error", "failure"}:
            state = "failure"
        elif not statuses or "pending" in states:
            state = "pending"
        else:
            state = "success"
        body.update(state=state, statuses=statuses, sha=ref, total_count=len(statuses))
        body["repository"]["id"] = self.repo_id
        body["repository"]["name"] = self.repo
        return body

    # ------------------------------------------------------------------ dispatch

    def handle(
        self,
        method: str,
        raw_path: str,
        query: dict[str, str],
        headers: dict[str, str],
        body: bytes,
    ) -> tuple[Response, float]:
        """Answer one request: (response, seconds to wait before sending it)."""
        path = raw_path[len(self.prefix) :] if raw_path.startswith(self.prefix) else raw_path
        route = re.sub(rf"^/repositories/{self.repo_id}(?=/|$)", f"/repos/{self.full_name}", path)
        with self.lock:
            recorded = RecordedRequest(method, raw_path, route, query, headers, body, time.time())
            self.requests.append(recorded)
            now = self.clock()
            over_budget = self._spend_budget(now)
            fault = None
            for candidate in self.faults:
                if not candidate.matches(method, route, now):
                    continue
                if candidate.seen < candidate.skip:
                    candidate.seen += 1
                    continue
                fault = candidate
                break
            if fault is not None:
                fault.hits += 1
                if fault.hold is not None and fault.until is None:
                    fault.until = now + fault.hold
        delay = fault.delay if fault else 0.0
        if fault is not None and fault.status is not None:
            return self._answered(recorded, self._fault_response(fault)), delay
        if over_budget is not None:
            return self._answered(recorded, over_budget), delay
        try:
            require_api_version(headers)
            self._check_auth(headers)
            if self.read_only and method not in ("GET", "HEAD"):
                raise _error(403, INTEGRATION_FORBIDDEN)
            with self.lock:
                response = self._route(method, route, query, headers, body)
        except _HTTPError as exc:
            response = exc.response
        except Exception:  # a bug in this server: answer 500 and keep the traceback for the test
            self.errors.append(traceback.format_exc())
            response = Response(500, {"message": "FakeGitHub bug, see FakeGitHub.errors"})
        return self._answered(recorded, response), delay

    def _fault_response(self, fault: Fault) -> Response:
        if fault.until is not None:  # a held limit: the headers say how long it has left
            left = max(fault.until - self.clock(), 0.0)
            if "retry-after" in fault.headers:  # secondary: the primary window is unchanged
                fault.headers["retry-after"] = str(max(1, math.ceil(left)))
            elif fault.headers.get("x-ratelimit-remaining") == "0":  # primary: its reset
                fault.headers["x-ratelimit-reset"] = str(math.ceil(fault.until))
        if isinstance(fault.body, bytes | str):
            raw = fault.body.encode() if isinstance(fault.body, str) else fault.body
            return Response(fault.status or 500, raw, dict(fault.headers), "text/html", True)
        return Response(fault.status or 500, fault.body, dict(fault.headers), faulted=True)

    def _check_auth(self, headers: dict[str, str]) -> None:
        if self.token is None:
            return
        given = next((v for k, v in headers.items() if k.lower() == "authorization"), "")
        scheme, _, value = given.partition(" ")
        if scheme.lower() not in ("token", "bearer") or value != self.token:
            raise _error(401, "Bad credentials")

    def _route(
        self, method: str, route: str, query: dict[str, str], headers: dict[str, str], raw: bytes
    ) -> Response:
        if route == "/user" and method == "GET":
            return self._authenticated_user()
        prefix = f"/repos/{self.full_name}"
        if not (route.lower() == prefix.lower() or route.lower().startswith(prefix.lower() + "/")):
            raise _error(404, "Not Found")
        sub = route[len(prefix) :]
        try:
            data = json.loads(raw) if raw else None
        except ValueError:
            raise _error(400, "Problems parsing JSON") from None
        accept = next((v for k, v in headers.items() if k.lower() == "accept"), "")
        for verb, pattern, handler in self._routes():
            match = re.fullmatch(pattern, sub)
            if match and verb == method:
                return handler(*match.groups(), query=query, data=data, accept=accept)
        raise _error(404, "Not Found")

    def _routes(self) -> list[tuple[str, str, Callable[..., Response]]]:
        return [
            ("GET", r"", self._get_repo),
            ("GET", r"/pulls/(\d+)", self._get_pull),
            ("GET", r"/pulls/(\d+)/files", self._list_files),
            ("GET", r"/pulls/(\d+)/reviews", self._list_reviews),
            ("POST", r"/pulls/(\d+)/reviews", self._create_review),
            ("GET", r"/pulls/(\d+)/comments", self._list_review_comments),
            ("DELETE", r"/pulls/comments/(\d+)", self._delete_review_comment),
            ("DELETE", r"/pulls/(\d+)/reviews/(\d+)", self._delete_review),
            ("PUT", r"/pulls/(\d+)/reviews/(\d+)/dismissals", self._dismiss_review),
            ("GET", r"/issues/(\d+)", self._get_issue),
            ("GET", r"/issues/(\d+)/comments", self._list_comments),
            ("POST", r"/issues/(\d+)/comments", self._create_comment),
            ("GET", r"/issues/comments/(\d+)", self._get_comment),
            ("PATCH", r"/issues/comments/(\d+)", self._update_comment),
            ("DELETE", r"/issues/comments/(\d+)", self._delete_comment),
            ("POST", r"/issues/comments/(\d+)/reactions", self._create_reaction),
            ("POST", r"/statuses/([^/]+)", self._create_status),
            ("GET", r"/commits/([^/]+)/status", self._combined_status),
            ("GET", r"/commits/([^/]+)/statuses", self._list_statuses),
            ("GET", r"/collaborators/([^/]+)/permission", self._permission),
            ("GET", r"/git/blobs/([^/]+)", self._get_blob),
            ("GET", r"/git/trees/([^/]+)", self._get_tree),
            ("GET", r"/compare/([^/]+)\.\.\.([^/]+)", self._compare),
            ("GET", r"/contents/?(.*)", self._get_contents),
            *self._history_routes(),
        ]

    def _paginate(
        self, items: list[Any], sub: str, query: dict[str, str]
    ) -> tuple[list[Any], dict[str, str]]:
        """A page of ``items`` and the Link header GitHub would send (per_page ≤ 100)."""
        try:
            per_page = min(max(int(query.get("per_page", DEFAULT_PER_PAGE)), 1), MAX_PER_PAGE)
        except ValueError:
            per_page = DEFAULT_PER_PAGE
        try:
            page = max(int(query.get("page", 1)), 1)
        except ValueError:
            page = 1
        last = max(1, math.ceil(len(items) / per_page))
        chunk = items[(page - 1) * per_page : page * per_page]
        if len(items) <= per_page and page == 1:
            return chunk, {}
        others = {k: v for k, v in query.items() if k not in ("page", "per_page")}

        def link(n: int, rel: str) -> str:
            params = urllib.parse.urlencode({**others, "per_page": per_page, "page": n})
            url = f"{self.base_url}/repositories/{self.repo_id}{sub}?{params}"
            return f'<{url}>; rel="{rel}"'

        rels = []
        if page > 1:
            rels += [link(min(page - 1, last), "prev")]
        if page < last:
            rels += [link(page + 1, "next"), link(last, "last")]
        if page > 1:
            rels += [link(1, "first")]
        return chunk, {"Link": ", ".join(rels)}

    # ------------------------------------------------------------------ endpoints

    def _get_repo(self, **_: Any) -> Response:
        return Response(200, self._repo_json(self.full_name, self.repo_id))

    def _pull(self, number: str) -> PullState:
        pull = self.pulls.get(int(number))
        if pull is None:
            raise _error(404, "Not Found", f"{DOCS}/pulls/pulls#get-a-pull-request")
        return pull

    def _get_pull(self, number: str, **_: Any) -> Response:
        return Response(200, self._pull_json(self._pull(number)))

    def _list_files(self, number: str, *, query: dict[str, str], **_: Any) -> Response:
        pull = self._pull(number)
        page, headers = self._paginate(pull.files[:MAX_PULL_FILES], f"/pulls/{number}/files", query)
        return Response(200, [self._file_json(pull, f) for f in page], headers)

    # ------------------------------------------------------------------ reviews
    # Written from GitHub's REST description of pulls/reviews and pulls/comments (no recorded
    # exchange exists for them): `POST /pulls/{n}/reviews` takes `commit_id`, `body`, `event`
    # (APPROVE, REQUEST_CHANGES, COMMENT; none: PENDING) and `comments`, each with `path`,
    # `body` and either `line` (+ `side`, RIGHT by default) or the older diff `position`; a
    # line the diff does not show is a 422, and the whole review with it.

    def reviews_on(self, number: int) -> list[ReviewState]:
        with self.lock:
            return [r for r in self.reviews.values() if r.pull_number == number]

    def review_comments_on(self, number: int) -> list[ReviewCommentState]:
        with self.lock:
            return [c for c in self.review_comments.values() if c.pull_number == number]

    def _review_json(self, r: ReviewState) -> dict[str, Any]:
        html = f"{self.html_url}/pull/{r.pull_number}#pullrequestreview-{r.id}"
        pull_url = f"{self.repo_url}/pulls/{r.pull_number}"
        return {
            "id": r.id,
            "node_id": _node_id("PullRequestReview", r.id),
            "user": self.user(r.user_login, r.user_type),
            "body": r.body,
            "state": r.state,
            "html_url": html,
            "pull_request_url": pull_url,
            "author_association": "NONE" if r.user_type == "Bot" else "MEMBER",
            "_links": {"html": {"href": html}, "pull_request": {"href": pull_url}},
            "submitted_at": r.submitted_at if r.state != "PENDING" else None,
            "commit_id": r.commit_id,
        }

    def _review_comment_json(self, c: ReviewCommentState) -> dict[str, Any]:
        outdated = self._outdated(c)
        url = f"{self.repo_url}/pulls/comments/{c.id}"
        html = f"{self.html_url}/pull/{c.pull_number}#discussion_r{c.id}"
        pull_url = f"{self.repo_url}/pulls/{c.pull_number}"
        return {
            "url": url,
            "pull_request_review_id": c.review_id,
            "id": c.id,
            "node_id": _node_id("PullRequestReviewComment", c.id),
            "diff_hunk": c.diff_hunk,
            "path": c.path,
            "position": None if outdated else c.position,
            "original_position": c.position,
            "commit_id": c.commit_id,
            "original_commit_id": c.commit_id,
            "user": self.user(c.user_login, c.user_type),
            "body": c.body,
            "created_at": c.created_at,
            "updated_at": c.updated_at,
            "html_url": html,
            "pull_request_url": pull_url,
            "author_association": "NONE" if c.user_type == "Bot" else "MEMBER",
            "_links": {
                "self": {"href": url},
                "html": {"href": html},
                "pull_request": {"href": pull_url},
            },
            "start_line": None,
            "original_start_line": None,
            "start_side": None,
            "line": None if outdated else c.line,
            "original_line": c.line,
            "side": c.side,
            "subject_type": "line",
            "reactions": {"url": f"{url}/reactions", "total_count": 0,
                          **{name: 0 for name in REACTIONS}},
        }  # fmt: skip

    def _list_reviews(self, number: str, *, query: dict[str, str], **_: Any) -> Response:
        self._pull(number)
        page, headers = self._paginate(self.reviews_on(int(number)), f"/pulls/{number}/reviews",
                                       query)  # fmt: skip
        return Response(200, [self._review_json(r) for r in page], headers)

    def _list_review_comments(self, number: str, *, query: dict[str, str], **_: Any) -> Response:
        self._pull(number)
        comments = self.review_comments_on(int(number))
        page, headers = self._paginate(comments, f"/pulls/{number}/comments", query)
        return Response(200, [self._review_comment_json(c) for c in page], headers)

    def _create_review(self, number: str, *, data: Any, **_: Any) -> Response:
        doc = f"{DOCS}/pulls/reviews#create-a-review-for-a-pull-request"
        pull = self._pull(number)
        data = data if isinstance(data, dict) else {}
        event = data.get("event")
        states = {"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED",
                  "COMMENT": "COMMENTED", None: "PENDING"}  # fmt: skip
        if event not in states:
            raise _error(422, "Unprocessable Entity", doc, errors=[f"Event {event} is invalid"])
        body = data.get("body")
        if event in ("COMMENT", "REQUEST_CHANGES") and not body:
            raise _error(
                422,
                "Unprocessable Entity",
                doc,
                errors=["Body is required when the event is COMMENT or REQUEST_CHANGES"],
            )
        commit_id = data.get("commit_id") or pull.head_sha
        if commit_id != pull.head_sha and commit_id != pull.base_sha:
            raise _error(422, "Unprocessable Entity", doc, errors=["Commit could not be resolved"])
        files = {f.filename: f for f in pull.files}
        placed: list[tuple[str, int, str, str, int, str]] = []
        for c in data.get("comments") or []:
            path = c.get("path") if isinstance(c, dict) else None
            text = c.get("body") if isinstance(c, dict) else None
            if not isinstance(path, str) or not isinstance(text, str):
                raise _error(422, "Unprocessable Entity", doc,
                             errors=["comments need a path and a body"])  # fmt: skip
            f = files.get(path)
            if f is None:
                raise _error(
                    422, "Unprocessable Entity", doc, errors=["Path could not be resolved"]
                )
            positions = diff_positions(f.patch or "")
            side = c.get("side") or "RIGHT"
            if "line" in c:
                line = c["line"]
                position = positions.get((side, line)) if isinstance(line, int) else None
            else:
                position = c.get("position")
                found = [k for k, v in positions.items() if v == position and k[0] == "RIGHT"]
                side, line = found[0] if found else (side, None)
            if position is None or line is None:
                raise _error(422, "Unprocessable Entity", doc, errors=[
                    "Pull request review thread line must be part of the diff and Pull request "
                    "review thread diff hunk can't be blank"])  # fmt: skip
            hunk = "\n".join((f.patch or "").split("\n")[: position + 1])
            placed.append((path, line, side, text, position, hunk))
        review = ReviewState(self._next_id("review"), pull.number, body or "", states[event],
                             commit_id, self.bot_login, self.bot_type)  # fmt: skip
        self.reviews[review.id] = review
        for path, line, side, text, position, hunk in placed:
            comment = ReviewCommentState(
                self._next_id("review_comment"), review.id, pull.number, path, line, side, text,
                commit_id, self.bot_login, self.bot_type, hunk, position,
            )  # fmt: skip
            self.review_comments[comment.id] = comment
        return Response(200, self._review_json(review))

    def _delete_review_comment(self, comment_id: str, **_: Any) -> Response:
        comment = self.review_comments.get(int(comment_id))
        if comment is None:
            doc = f"{DOCS}/pulls/comments#delete-a-review-comment-for-a-pull-request"
            raise _error(404, "Not Found", doc)
        del self.review_comments[comment.id]
        return Response(204)

    def _issue_exists(self, number: int) -> None:
        if number not in self.pulls and number not in self.issues:
            raise _error(404, "Not Found", f"{DOCS}/issues/issues#get-an-issue")

    def _get_issue(self, number: str, **_: Any) -> Response:
        self._issue_exists(int(number))
        return Response(200, self._issue_json(int(number)))

    def _list_comments(self, number: str, *, query: dict[str, str], **_: Any) -> Response:
        self._issue_exists(int(number))
        comments = self.comments_on(int(number))
        page, headers = self._paginate(comments, f"/issues/{number}/comments", query)
        return Response(200, [self._comment_json(c) for c in page], headers)

    def _comment_body(self, data: Any, doc: str) -> str:
        body = data.get("body") if isinstance(data, dict) else None
        if not isinstance(body, str):
            raise _validation_failed("IssueComment", "body", "body wasn't supplied.", doc)
        if len(body) > MAX_COMMENT_CHARS:
            message = f"Body is too long (maximum is {MAX_COMMENT_CHARS} characters)"
            raise _validation_failed("IssueComment", "data", message, doc)
        return body

    def _create_comment(self, number: str, *, data: Any, **_: Any) -> Response:
        doc = f"{DOCS}/issues/comments#create-an-issue-comment"
        self._issue_exists(int(number))
        body = self._comment_body(data, doc)
        association = "NONE" if self.bot_type == "Bot" else "MEMBER"
        comment = self.add_comment(
            int(number),
            body,
            login=self.bot_login,
            user_type=self.bot_type,
            author_association=association,
        )
        payload = self._comment_json(comment)
        return Response(201, payload, {"Location": payload["url"]})

    def _comment(self, comment_id: str) -> CommentState:
        comment = self.comments.get(int(comment_id))
        if comment is None:
            raise _error(404, "Not Found", f"{DOCS}/issues/comments#get-an-issue-comment")
        return comment

    def _get_comment(self, comment_id: str, **_: Any) -> Response:
        return Response(200, self._comment_json(self._comment(comment_id)))

    def _update_comment(self, comment_id: str, *, data: Any, **_: Any) -> Response:
        comment = self._comment(comment_id)
        comment.body = self._comment_body(data, f"{DOCS}/issues/comments#update-an-issue-comment")
        comment.updated_at = _now()
        return Response(200, self._comment_json(comment))

    def _delete_comment(self, comment_id: str, **_: Any) -> Response:
        del self.comments[self._comment(comment_id).id]
        return Response(204)

    def _create_reaction(self, comment_id: str, *, data: Any, **_: Any) -> Response:
        comment = self._comment(comment_id)
        content = data.get("content") if isinstance(data, dict) else None
        if content not in REACTIONS:
            doc = f"{DOCS}/reactions/reactions#create-reaction-for-an-issue-comment"
            raise _validation_failed("Reaction", "content", "content is not included", doc)
        status = 200
        reaction = next(
            (
                r
                for r in self.reactions
                if (r.comment_id, r.content, r.user_login) == (comment.id, content, self.bot_login)
            ),
            None,
        )
        if reaction is None:
            status = 201
            reaction = ReactionState(
                self._next_id("reaction"), comment.id, content, self.bot_login, self.bot_type
            )
            self.reactions.append(reaction)
        body: dict[str, Any] = copy.deepcopy(self.templates["create-reaction-issue-comment"])
        body.update(
            id=reaction.id,
            node_id=_node_id("Reaction", reaction.id),
            user=self.user(reaction.user_login, reaction.user_type),
            content=reaction.content,
            created_at=reaction.created_at,
        )
        return Response(status, body)

    def _create_status(self, sha: str, *, data: Any, **_: Any) -> Response:
        doc = f"{DOCS}/commits/statuses#create-a-commit-status"
        data = data if isinstance(data, dict) else {}
        if data.get("state") not in STATUS_STATES:
            raise _validation_failed("Status", "state", "state is not included in the list", doc)
        description = data.get("description")
        if isinstance(description, str) and len(description) > MAX_STATUS_DESCRIPTION:
            message = f"description is too long (maximum is {MAX_STATUS_DESCRIPTION} characters)"
            raise _validation_failed("Status", "description", message, doc)
        check_status_context(data, doc)
        status_id = self._next_id("status")
        now = _now()
        spec = {
            "id": status_id,
            "node_id": _node_id("StatusContext", status_id),
            "state": data["state"],
            "description": description,
            "target_url": data.get("target_url"),
            "context": data.get("context") or "default",
            "created_at": now,
            "updated_at": now,
        }
        body = self._status_json(sha, spec)
        self.statuses.setdefault(sha, []).append(body)
        return Response(201, body, {"Location": body["url"]})

    def _combined_status(self, ref: str, **_: Any) -> Response:
        return Response(200, self._combined_status_json(ref))

    def _list_statuses(self, ref: str, *, query: dict[str, str], **_: Any) -> Response:
        newest_first = list(reversed(self.statuses.get(ref, [])))
        page, headers = self._paginate(newest_first, f"/commits/{ref}/statuses", query)
        return Response(200, page, headers)

    def _permission(self, login: str, **_: Any) -> Response:
        body = self.permissions.get(urllib.parse.unquote(login).lower())
        if body is None:
            doc = f"{DOCS}/collaborators/collaborators#get-repository-permissions-for-a-user"
            raise _error(404, "Not Found", doc)
        return Response(200, body)

    # -------------------------------------------------- git trees and compare (REST description:
    # "Get a tree" GET /repos/{owner}/{repo}/git/trees/{tree_sha}[?recursive=1] answers
    # {sha, url, tree: [{path, mode, type, sha, size (blobs), url}], truncated}; "Compare two
    # commits" GET /repos/{owner}/{repo}/compare/{base}...{head} answers a CommitComparison
    # whose `files` (diff entries, at most 300) are listed on the first page only)

    def _tree_sha(self, ref: str, folder: str) -> str:
        sha = hashlib.sha1(f"tree:{ref}:{folder}".encode()).hexdigest()
        self._trees[sha] = (ref, folder)
        return sha

    def _get_tree(self, sha: str, *, query: dict[str, str], **_: Any) -> Response:
        ref, folder = self._trees.get(sha, (sha, ""))
        paths = sorted(p for (r, p) in self.contents if r == ref)
        if not paths and sha not in self._trees:
            raise _error(404, "Not Found", f"{DOCS}/git/trees#get-a-tree")
        recursive = query.get("recursive") not in (None, "", "0", "false")
        prefix = f"{folder}/" if folder else ""
        entries: dict[str, dict[str, Any]] = {}
        for path in paths:
            if not path.startswith(prefix):
                continue
            rest = path[len(prefix) :]
            parts = rest.split("/")
            for depth in range(1, len(parts)):  # the folders on the way
                sub = "/".join(parts[:depth])
                if depth == 1 or recursive:
                    tree = self._tree_sha(ref, prefix + sub)
                    entries.setdefault(sub, {"path": sub, "mode": "040000", "type": "tree",
                                             "sha": tree, "url": f"{self.repo_url}/git/trees/{tree}"})  # fmt: skip
            if len(parts) > 1 and not recursive:
                continue
            blob = self.contents[(ref, path)]
            entries[rest] = {
                "path": rest,
                "mode": self.modes.get((ref, path), "100644"),
                "type": "blob",
                "sha": blob,
                "size": len(self.blobs[blob]),
                "url": f"{self.repo_url}/git/blobs/{blob}",
            }
        items = [entries[k] for k in sorted(entries)]
        truncated = len(items) > self.tree_entry_limit  # GitHub: 100,000 entries (or 7 MB)
        body = {
            "sha": self._tree_sha(ref, folder),
            "url": f"{self.repo_url}/git/trees/{sha}",
            "tree": items[: self.tree_entry_limit],
            "truncated": truncated,
        }
        return Response(200, body)

    def _compare(self, base: str, head: str, **_: Any) -> Response:
        old = {p: sha for (r, p), sha in self.contents.items() if r == base}
        new = {p: sha for (r, p), sha in self.contents.items() if r == head}
        if not old and not new:
            raise _error(404, "Not Found", f"{DOCS}/commits/commits#compare-two-commits")
        sample = self.templates["list-pull-files"][0]
        files = []
        for path in sorted(set(old) | set(new)):
            if old.get(path) == new.get(path):
                continue
            status = "added" if path not in old else "removed" if path not in new else "modified"
            quoted = urllib.parse.quote(path)
            entry = copy.deepcopy(sample)
            entry.update(
                sha=new.get(path, old.get(path)), filename=path, status=status, additions=1,
                deletions=0 if status == "added" else 1, changes=1,
                blob_url=f"{self.html_url}/blob/{head}/{quoted}",
                raw_url=f"{self.html_url}/raw/{head}/{quoted}",
                contents_url=f"{self.repo_url}/contents/{quoted}?ref={head}",
            )  # fmt: skip
            entry.pop("previous_filename", None)
            patch = self._patch(old.get(path), new.get(path))
            if patch is None:
                entry.pop("patch", None)  # GitHub sends none for a binary file
            else:
                entry["patch"] = patch
            files.append(entry)
        commit = self._commit_json(base)
        body = {
            "url": f"{self.repo_url}/compare/{base}...{head}",
            "html_url": f"{self.html_url}/compare/{base}...{head}",
            "permalink_url": f"{self.html_url}/compare/{self.owner}:{base}...{self.owner}:{head}",
            "diff_url": f"{self.html_url}/compare/{base}...{head}.diff",
            "patch_url": f"{self.html_url}/compare/{base}...{head}.patch",
            "base_commit": commit,
            "merge_base_commit": commit,
            "status": "ahead",
            "ahead_by": 1,
            "behind_by": 0,
            "total_commits": 1,
            "commits": [],
            "files": files[:300],  # GitHub lists at most 300 files of a comparison
        }
        return Response(200, body)

    def _patch(self, old: str | None, new: str | None) -> str | None:
        """The file's unified diff (3 lines of context) from its first hunk header, as GitHub
        sends it in a comparison's `patch`; None for a file that is not text."""
        try:
            a = self.blobs[old].decode("utf-8").splitlines() if old else []
            b = self.blobs[new].decode("utf-8").splitlines() if new else []
        except UnicodeDecodeError:
            return None
        lines = list(difflib.unified_diff(a, b, lineterm="", n=3))[2:]  # no ---/+++ header
        return "\n".join(lines)

    def _raw(self, data: bytes) -> Response:
        return Response(200, data, content_type=RAW_MEDIA_TYPE)

    def _get_blob(self, sha: str, *, accept: str, **_: Any) -> Response:
        data = self.blobs.get(sha)
        if data is None:
            raise _error(404, "Not Found", f"{DOCS}/git/blobs#get-a-blob")
        if "raw" in accept:
            return self._raw(data)
        return Response(
            200,
            {
                "sha": sha,
                "node_id": _node_id("Blob", zlib.crc32(sha.encode())),
                "size": len(data),
                "url": f"{self.repo_url}/git/blobs/{sha}",
                "content": _b64_lines(data),
                "encoding": "base64",
            },
        )

    def _get_contents(self, path: str, *, query: dict[str, str], accept: str, **_: Any) -> Response:
        path = urllib.parse.unquote(path).strip("/")
        ref = query.get("ref") or self.default_branch
        sha = self.contents.get((ref, path))
        if sha is not None and self.modes.get((ref, path)) == "120000":
            # GitHub's contents API follows a link to a file in the repository and answers
            # `type: file` with the target's content
            target = posixpath.normpath(posixpath.join(posixpath.dirname(path),
                                                       self.blobs[sha].decode()))  # fmt: skip
            if (ref, target) in self.contents:
                path, sha = target, self.contents[(ref, target)]
        if sha is not None:
            data = self.blobs[sha]
            if "raw" in accept:
                return self._raw(data)
            return Response(200, self._content_json(ref, path, sha, data))
        entries = sorted(
            {p for (r, p) in self.contents if r == ref and (not path or p.startswith(path + "/"))}
        )
        if not entries:
            raise _error(404, "Not Found", f"{DOCS}/repos/contents#get-repository-content")
        listing: dict[str, dict[str, Any]] = {}
        for entry in entries:
            rest = entry[len(path) + 1 :] if path else entry
            name = rest.split("/")[0]
            child = f"{path}/{name}" if path else name
            if "/" in rest:
                listing.setdefault(name, self._dir_json(ref, child))
            else:
                item = self._content_json(ref, child, self.contents[(ref, child)], None)
                listing[name] = item
        return Response(200, list(listing.values()))

    def _content_links(self, ref: str, path: str, sha: str, kind: str) -> dict[str, Any]:
        quoted = urllib.parse.quote(path)
        url = f"{self.repo_url}/contents/{quoted}?ref={urllib.parse.quote(ref)}"
        git = f"{self.repo_url}/git/{'blobs' if kind == 'file' else 'trees'}/{sha}"
        html = f"{self.html_url}/{'blob' if kind == 'file' else 'tree'}/{ref}/{quoted}"
        return {
            "name": path.rsplit("/", 1)[-1],
            "path": path,
            "sha": sha,
            "url": url,
            "git_url": git,
            "html_url": html,
            "download_url": (
                f"https://raw.githubusercontent.com/{self.full_name}/{ref}/{quoted}"
                if kind == "file"
                else None
            ),
            "type": kind,
            "_links": {"self": url, "git": git, "html": html},
        }

    def _dir_json(self, ref: str, path: str) -> dict[str, Any]:
        sha = hashlib.sha1(f"tree:{ref}:{path}".encode()).hexdigest()
        return {**self._content_links(ref, path, sha, "dir"), "size": 0}

    def _content_json(self, ref: str, path: str, sha: str, data: bytes | None) -> dict[str, Any]:
        size = len(self.blobs[sha])
        body = {**self._content_links(ref, path, sha, "file"), "size": size}
        if data is not None:  # a single file, not a directory entry
            inline = size <= INLINE_CONTENT_LIMIT
            body["content"] = _b64_lines(data) if inline else ""
            body["encoding"] = "base64" if inline else "none"
        return body

    # -------------------------------------------------- a pull request's history: issue events
    # (REST description: "List issue events" GET /repos/{owner}/{repo}/issues/{n}/events answers
    # [{id, node_id, url, actor, event, commit_id, commit_url, created_at,
    # performed_via_github_app}]; changing a pull request's base records `base_ref_changed`,
    # which the issue-events API lists and the timeline API does not)

    def retarget(
        self,
        number: int,
        base_ref: str,
        base_sha: str,
        *,
        at: str | None = None,
        actor: str = "octocat",
    ) -> None:
        """Change pull request ``number``'s base branch, as the web UI does: the pull request
        now targets ``base_ref`` at ``base_sha``, and a ``base_ref_changed`` event is recorded
        (at ``at``, an ISO time, default now)."""
        with self.lock:
            pull = self.pulls[number]
            pull.base_ref, pull.base_sha = base_ref, base_sha
            self.issue_events.setdefault(number, []).append(
                {"event": "base_ref_changed", "actor": actor, "created_at": at or _now()}
            )

    def _issue_event_json(self, number: int, index: int, e: dict[str, Any]) -> dict[str, Any]:
        eid = 9_000_000_000 + number * 1000 + index
        return {
            "id": eid,
            "node_id": _node_id("BaseRefChangedEvent", eid),
            "url": f"{self.repo_url}/issues/events/{eid}",
            "actor": self.user(e["actor"]),
            "event": e["event"],
            "commit_id": None,
            "commit_url": None,
            "created_at": e["created_at"],
            "performed_via_github_app": None,
        }

    def _list_issue_events(self, number: str, *, query: dict[str, str], **_: Any) -> Response:
        self._issue_exists(int(number))
        events = self.issue_events.get(int(number), [])
        page, headers = self._paginate(list(enumerate(events)), f"/issues/{number}/events", query)
        return Response(200, [self._issue_event_json(int(number), i, e) for i, e in page], headers)

    def _history_routes(self) -> list[tuple[str, str, Callable[..., Response]]]:
        return [("GET", r"/issues/(\d+)/events", self._list_issue_events)]


# ------------------------------------------------------------------ held to GitHub (ghapi)

MAX_STATUS_CONTEXT = 255


def check_status_context(data: dict[str, Any], doc: str) -> None:
    """GitHub's 422 for a status context longer than 255 characters."""
    context = data.get("context")
    if isinstance(context, str) and len(context) > MAX_STATUS_CONTEXT:
        message = f"context is too long (maximum is {MAX_STATUS_CONTEXT} characters)"
        raise _validation_failed("Status", "context", message, doc)


def _budget_exhausted(app: FakeGitHub) -> Response:
    """GitHub's answer once the hour's budget is spent: 403, remaining 0, the reset."""
    headers = {
        "x-ratelimit-limit": str(app.rate_limit),
        "x-ratelimit-remaining": "0",
        "x-ratelimit-used": str(app.rate_limit),
        "x-ratelimit-reset": str(app.rate_reset),
        "x-ratelimit-resource": "core",
    }
    doc = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"
    body = {"message": PRIMARY_RATE_LIMIT, "documentation_url": doc}
    return Response(403, body, headers, faulted=True)  # GitHub's answer to any operation


def require_api_version(headers: dict[str, str]) -> None:
    """Every request names the REST API version it was written for. GitHub falls back to
    2022-11-28 when the header is missing; this server refuses, so that a client that forgets
    it on any request (a second HTTP session, a raw call) is caught by the tests."""
    given = next((v for k, v in headers.items() if k.lower() == "x-github-api-version"), None)
    if given is None:
        raise _error(400, "X-GitHub-Api-Version header missing (this server requires it)")
    if given != API_VERSION:
        raise _error(400, f"API version {given} is not supported.")


# ------------------------------------------------------------------------------------ plumbing


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    app: FakeGitHub

    def handle_error(self, request: Any, client_address: Any) -> None:
        # The client went away (it timed out, or gave up on an oversized body): not a bug.
        if not isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            self.app.errors.append(traceback.format_exc())


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    app: FakeGitHub

    def setup(self) -> None:
        super().setup()
        # headers and body go out in two writes: without this, Nagle's algorithm and the
        # client's delayed ACK add ~40 ms to every keep-alive request
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def version_string(self) -> str:
        return "github.com"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _serve(self) -> None:
        split = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(split.query, keep_blank_values=True))
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        headers = dict(self.headers.items())
        response, delay = self.app.handle(self.command, split.path, query, headers, body)
        if delay and self.app._stopping.wait(delay):
            self.close_connection = True  # server shutting down: drop the connection
            return
        self._send(response, headers)

    def _send(self, response: Response, request_headers: dict[str, str]) -> None:
        if isinstance(response.body, bytes):
            payload = response.body
        elif response.body is None:
            payload = b""
        else:
            payload = json.dumps(response.body).encode()
        app = self.app
        with app.lock:
            used = app.rate_used
        headers = {
            "Content-Type": response.content_type,
            "Cache-Control": "private, max-age=60, s-maxage=60",
            "Vary": "Accept, Authorization, Cookie, X-GitHub-OTP, Accept-Encoding",
            "X-GitHub-Media-Type": "github.v3; format=json",
            "x-github-api-version-selected": API_VERSION,
            "X-RateLimit-Limit": str(app.rate_limit),
            "X-RateLimit-Remaining": str(max(app.rate_limit - used, 0)),
            "X-RateLimit-Reset": str(app.rate_reset),
            "X-RateLimit-Used": str(used),
            "X-RateLimit-Resource": "core",
            "X-GitHub-Request-Id": uuid.uuid4().hex[:20].upper(),
        }
        status = response.status
        if self.command == "GET" and status == 200:
            etag = f'W/"{hashlib.sha256(payload).hexdigest()}"'
            headers["ETag"] = etag
            if request_headers.get("If-None-Match") == etag:
                status, payload = 304, b""
        for key, value in response.headers.items():  # fault headers override the defaults
            for existing in [k for k in headers if k.lower() == key.lower()]:
                del headers[existing]
            headers[key] = value
        if status == 204 or status == 304:
            headers.pop("Content-Type", None)
        chunked = app.raw_chunked and response.content_type == RAW_MEDIA_TYPE
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        if chunked:  # no Content-Length: the client only learns the size by reading
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if self.command == "HEAD":
            return
        if not chunked:
            self.wfile.write(payload)
            return
        for start in range(0, len(payload), 64 * 1024):
            piece = payload[start : start + 64 * 1024]
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
        self.wfile.write(b"0\r\n\r\n")

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = do_HEAD = _serve


# -------------------------------------------------------------------------------------- pytest


def fake_github_fixture(name: str = "fake_github", **kwargs: Any) -> Any:
    """A pytest fixture yielding a running :class:`FakeGitHub` (``kwargs`` go to the
    constructor); it fails the test if the server itself hit a bug. Use at module level::

        fake_github = fake_github_fixture()
    """
    import pytest

    @pytest.fixture(name=name)
    def _fixture() -> Iterator[FakeGitHub]:
        with FakeGitHub(**kwargs) as server:
            yield server
        assert not server.errors, "FakeGitHub raised:\n" + "\n".join(server.errors)

    return _fixture
