"""A repository tree to read records from: the working folder, or a commit in git (the
`git` adapter provides that one). Both refuse symlinks and anything outside the tree."""

from __future__ import annotations

import fnmatch
import os
import stat
from pathlib import Path, PurePosixPath
from typing import Protocol

from roofbot.core.changes import path_matches


class TreeError(ValueError):
    """A path can't be read from the tree; the message says why."""


class Tree(Protocol):
    """Read-only access to the files of one version of a repository, by relative path."""

    def glob(self, pattern: str) -> list[str]:
        """The paths that match `pattern` (segment by segment), sorted."""
        ...

    def read(self, path: str, limit: int) -> bytes: ...

    def exists(self, path: str) -> bool: ...


def safe_relpath(path: str) -> str:
    """Normalise a repository-relative path; refuse absolute paths, `..` and NUL bytes."""
    s = path.replace("\\", "/")
    parts = [p for p in s.split("/") if p and p != "."]
    if s.startswith("/") or ".." in parts or not parts:
        raise TreeError(f"{path!r} is outside the repository")
    if "\x00" in s:
        raise TreeError(f"{path!r} contains a NUL byte")
    return "/".join(parts)


def too_big(path: str, size: int, limit: int) -> str:
    """The message for a file over the size limit, in units that fit both numbers."""
    unit, scale = ("MiB", 1 << 20) if limit >= 1 << 20 else ("KiB", 1 << 10)
    return f"{path} is {size / scale:.1f} {unit}, over the {limit / scale:g} {unit} limit for one record"


def read_or_none(tree: Tree, path: str, limit: int) -> bytes | None:
    """A file's bytes where a report only wants them for line numbers: None where they can't
    be read, for any reason (no such file, a link, too big, an I/O or git failure); the
    report then shows no line."""
    try:
        return tree.read(path, limit)
    except Exception:
        return None


def _read_upto(fd: int, expect: int, limit: int) -> bytes:
    """Read a file descriptor to its end or to `limit` bytes. The first read asks for the
    size lstat saw plus one byte (asking for `limit` would allocate the whole limit for
    every record); a file that grew since is read on, up to the limit."""
    chunks = [os.read(fd, min(expect, limit))]
    got = len(chunks[0])
    while expect <= got < limit and chunks[-1]:  # a short first read was the end
        chunks.append(os.read(fd, limit - got))
        got += len(chunks[-1])
    return b"".join(chunks)


class FolderTree:
    """The working tree on disk. Symlinks are never followed."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._root = str(self.root)
        self._folders: dict[str, bool] = {}

    def glob(self, pattern: str) -> list[str]:
        pattern = safe_relpath(pattern)
        folder = PurePosixPath(pattern).parent
        base = self.root / folder
        if any(c in folder.as_posix() for c in "*?[") or "**" in pattern:
            return self._walk_glob(pattern)
        try:
            with os.scandir(base) as it:
                names = [e.name for e in it if e.is_file(follow_symlinks=False) or e.is_symlink()]
        except OSError:
            return []
        name = PurePosixPath(pattern).name
        prefix = "" if folder.as_posix() == "." else folder.as_posix() + "/"
        return sorted([prefix + n for n in names if fnmatch.fnmatchcase(n, name)])

    def _walk_glob(self, pattern: str) -> list[str]:
        out = []
        for dirpath, _dirs, files in os.walk(self.root, followlinks=False):
            for f in files:
                rel = Path(dirpath, f).relative_to(self.root).as_posix()
                if path_matches(rel, pattern):
                    out.append(rel)
        return sorted(out)

    def exists(self, path: str) -> bool:
        """A regular file is there: a link is not (as in GitTree, and as `read` refuses it)."""
        return self.regular(path) is not None

    def regular(self, path: str) -> os.stat_result | None:
        """A regular file's lstat, None for anything else (missing, a link, a folder)."""
        try:
            st = os.lstat(f"{self._root}/{safe_relpath(path)}")
        except (OSError, TreeError):
            return None
        return st if stat.S_ISREG(st.st_mode) else None

    def read(self, path: str, limit: int) -> bytes:
        p = os.path.join(self._root, safe_relpath(path))
        try:
            st = os.lstat(p)
        except OSError:
            raise TreeError(f"{path}: no such file") from None
        if stat.S_ISLNK(st.st_mode):
            raise TreeError(f"{path} is a symbolic link; roofbot does not follow links")
        if not stat.S_ISREG(st.st_mode):
            raise TreeError(f"{path} is not a regular file")
        if st.st_size > limit:
            raise TreeError(too_big(path, st.st_size, limit))
        if not self._inside(os.path.dirname(p)):  # a parent folder that links out of the tree
            raise TreeError(f"{path} resolves outside the repository")
        try:  # O_NOFOLLOW: a file swapped for a link after the checks is still refused
            fd = os.open(p, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError as e:
            raise TreeError(f"{path}: {e.strerror}") from None
        try:
            return _read_upto(fd, st.st_size + 1, limit + 1)
        finally:
            os.close(fd)

    def _inside(self, folder: str) -> bool:
        """Whether a folder, links resolved, is in the tree (once per folder, not per file)."""
        if folder not in self._folders:
            self._folders[folder] = Path(folder).resolve().is_relative_to(self.root)
        return self._folders[folder]
