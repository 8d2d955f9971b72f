"""API mode, pinned to the event's SHAs: the head roofbot checks is the head it judges.

Without the PR's commits in the workspace, roofbot reads the change through the REST API.
`pulls/{n}/files` lists the pull request's *current* head, which may be newer than the event's
(a record read at the event's SHA but listed from the next push is never read), and the
contents API follows a symbolic link to the file it points at. So the listing is the
comparison of exactly the event's two SHAs (`compare/{base}...{head}`), the file modes come
from the head commit's git tree (mode 120000: a link, never read; 160000: a submodule), and
each file is read as a blob by the SHA that tree names."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from roofbot.adapters.github.errors import GitHubError
from roofbot.adapters.github.protocol import GitHub

LINK = "120000"
SUBMODULE = "160000"


@dataclass
class HeadFiles:
    """What the head holds at the changed paths: bytes, or None with the reason."""

    data: dict[str, bytes | None] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)
    links: set[str] = field(default_factory=set)
    failures: list[tuple[str, str]] = field(default_factory=list)  # (path, the error)


class HeadTree:
    """The head commit's git tree, read once (recursive), or folder by folder where GitHub
    truncated it."""

    def __init__(self, client: GitHub, sha: str) -> None:
        self.client = client
        self.sha = sha
        self.entries, self.truncated = client.tree(sha)
        self._folders: dict[str, Mapping[str, Any]] = {}

    def entry(self, path: str) -> Any:
        if not self.truncated:
            return self.entries.get(path)
        parts = path.split("/")
        sha, prefix = self.sha, ""
        for i, name in enumerate(parts):
            listing = self._folders.get(prefix)
            if listing is None:
                listing = self._folders[prefix] = self.client.tree(sha, recursive=False)[0]
            found = listing.get(name)
            if found is None or i == len(parts) - 1:
                return found
            if found.type != "tree":
                return None
            sha, prefix = found.sha, f"{prefix}{name}/"
        return None


def read_head(client: GitHub, head_sha: str, paths: Iterable[str], limit: int) -> HeadFiles:
    """Read `paths` at `head_sha`: modes from the tree, bytes from blobs by SHA."""

    out = HeadFiles()
    wanted = list(paths)
    if not wanted:
        return out
    tree = HeadTree(client, head_sha)
    for path in wanted:
        try:
            entry = tree.entry(path)
        except GitHubError as e:
            out.data[path], out.reasons[path] = None, f"GitHub did not send it ({type(e).__name__})"
            out.failures.append((path, str(e)))
            continue
        if entry is None:
            out.data[path], out.reasons[path] = None, "it is not in the head commit's tree"
        elif entry.mode == LINK:
            out.data[path] = None
            out.reasons[path] = "it is a symbolic link at the head: links are never followed"
            out.links.add(path)
        elif entry.mode == SUBMODULE or entry.type != "blob":
            out.data[path], out.reasons[path] = None, "it is not a regular file at the head"
        elif entry.size is not None and entry.size > limit:
            out.data[path] = None
            out.reasons[path] = f"it is {entry.size} bytes, over the {limit}-byte limit"
        else:
            try:
                out.data[path] = client.get_blob(entry.sha)
            except GitHubError as e:
                out.data[path] = None
                out.reasons[path] = f"GitHub did not send it ({type(e).__name__})"
                out.failures.append((path, str(e)))
    return out
