"""The GitHub client's reads of a pull request: its metadata, its files (the pull's list, a
comparison, a git tree) and file contents at a SHA, within the size the settings allow."""

from __future__ import annotations

import base64
import binascii
import logging
from typing import TYPE_CHECKING

from roofbot.adapters.github.errors import (
    GitHubFileTooLarge,
    GitHubNotFound,
    GitHubUnavailable,
)
from roofbot.adapters.github.models import (
    MAX_COMPARE_FILES,
    MAX_PULL_FILES,
    RAW_MEDIA_TYPE,
    PullFile,
    PullInfo,
    TreeEntry,
)

if TYPE_CHECKING:
    pass


from roofbot.adapters.github.session import Session, check_sha, parse_body

log = logging.getLogger(__name__)


class Reads(Session):
    """A pull request's metadata, files and contents."""

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
        check_sha(base)
        check_sha(head)
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
        check_sha(sha)
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
        check_sha(sha)
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
                raise self._error(
                    operation, response.status_code, response.headers, parse_body(head)
                )
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


def _decode_base64(content: str, what: str) -> bytes:
    try:
        return base64.b64decode(content)  # GitHub wraps lines; b64decode skips the newlines
    except (binascii.Error, ValueError):
        raise GitHubUnavailable(f"{what}: GitHub sent invalid base64 content") from None
