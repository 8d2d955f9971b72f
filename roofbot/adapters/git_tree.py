"""The files of one commit, read from git's object database without checking it out (the
`Tree` protocol): paths are listed with `git ls-tree` only as far as a read or a glob needs,
and blobs come from one `git cat-file --batch` process. Symlinks are seen by their mode and
never read, and every blob read is size-limited before its bytes are fetched."""

from __future__ import annotations

import fnmatch
import posixpath
import subprocess
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, cast

from roofbot.adapters.git import MODE_SYMLINK, SAFE_CONFIG, git, git_env
from roofbot.adapters.tree import TreeError, safe_relpath, too_big
from roofbot.core.changes import path_matches


@dataclass(frozen=True)
class Entry:
    mode: str
    kind: str  # blob, tree, commit
    sha: str
    size: int | None
    path: str


def _ls_tree_entries(raw: bytes, long: bool = False) -> list[Entry]:
    out = []
    for rec in raw.decode("utf-8", "surrogateescape").split("\0"):
        if not rec:
            continue
        meta, _, path = rec.partition("\t")
        parts = meta.split()
        size = int(parts[3]) if long and len(parts) > 3 and parts[3].isdigit() else None
        out.append(Entry(parts[0], parts[1], parts[2], size, path))
    return out


_BATCH = 256
_SINGLE_LOOKUPS = 16
"""Paths of one folder looked up one by one before the folder is listed instead: each
look-up reads the folder's tree object, so past a few it is cheaper to list it once."""


class _Entries(Mapping[str, Entry]):
    """A commit's paths, looked up one at a time until someone iterates them."""

    def __init__(self, tree: GitTree) -> None:
        self._tree = tree

    def __getitem__(self, path: str) -> Entry:
        try:
            e = self._tree._entry(safe_relpath(path))
        except TreeError:
            e = None
        if e is None:
            raise KeyError(path)
        return e

    def __iter__(self) -> Iterator[str]:
        return iter(self._tree._everything())

    def __len__(self) -> int:
        return len(self._tree._everything())


class GitTree:
    """The files of one commit, read from the object database (the `Tree` protocol). Only what
    is asked for is listed: a folder with `git ls-tree --long` when a glob needs it, one path
    when it is read, so a PR's cost does not grow with the corpus (bench/bench_pr.py). Blobs
    come from one `git cat-file --batch` process, after their size was checked."""

    def __init__(self, repo_dir: Path, rev: str) -> None:
        self.repo_dir = repo_dir
        self.rev = rev
        self._folders: dict[str, dict[str, Entry]] = {}
        self._paths: dict[str, Entry | None] = {}
        self._singles: dict[str, int] = {}
        self._all: dict[str, Entry] | None = None
        self._batch: subprocess.Popen[bytes] | None = None

    def _ls(self, *args: str) -> list[Entry]:
        # paths are literal: a record named "*.json" or ":(top)x" is not a pattern
        raw = git(
            self.repo_dir, "--literal-pathspecs", "ls-tree", "-z", "--long", "--full-tree", *args
        )
        return _ls_tree_entries(raw, long=True)

    def _folder(self, folder: str) -> dict[str, Entry]:
        if folder not in self._folders:
            spec = [self.rev, "--", f"{folder}/"] if folder else [self.rev]
            self._folders[folder] = {e.path: e for e in self._ls(*spec)}
        return self._folders[folder]

    @property
    def entries(self) -> Mapping[str, Entry]:
        """Every path of the commit. `path in entries` and `entries[path]` look up one path;
        only iterating lists the whole commit (a wildcard folder needs that, nothing else)."""
        return _Entries(self)

    def _everything(self) -> dict[str, Entry]:
        if self._all is None:
            self._all = {e.path: e for e in self._ls("-r", self.rev)}
        return self._all

    def _entry(self, path: str) -> Entry | None:
        folder = posixpath.dirname(path)
        if folder in self._folders:
            return self._folders[folder].get(path)
        if self._all is not None:
            return self._all.get(path)
        if path not in self._paths:
            self._singles[folder] = self._singles.get(folder, 0) + 1
            if self._singles[folder] > _SINGLE_LOOKUPS:  # many reads in one folder: list it once
                return self._folder(folder).get(path)
            found = [e for e in self._ls(self.rev, "--", path) if e.path == path]
            self._paths[path] = found[0] if found else None
        return self._paths[path]

    def prefetch(self, paths: Iterable[str]) -> None:
        """Look up these paths in one `git ls-tree`, for the reads and `exists` that follow:
        each single look-up is a process that reads the whole folder's tree object, a cost
        that grows with the corpus."""
        todo = []
        for path in paths:
            try:
                path = safe_relpath(path)
            except TreeError:
                continue
            if path not in self._paths and posixpath.dirname(path) not in self._folders:
                todo.append(path)
        if not todo or self._all is not None:
            return
        found = {e.path: e for e in self._ls(self.rev, "--", *todo)}
        for path in todo:
            self._paths[path] = found.get(path)

    # -------------------------------------------------------------- Tree protocol
    def glob(self, pattern: str) -> list[str]:
        pattern = safe_relpath(pattern)
        folder, name = posixpath.split(pattern)
        if any(c in folder for c in "*?[") or "**" in pattern:
            return sorted(p for p in self._everything() if path_matches(p, pattern))
        return sorted(
            p for p in self._folder(folder) if fnmatch.fnmatchcase(posixpath.basename(p), name)
        )

    def exists(self, path: str) -> bool:
        try:
            e = self._entry(safe_relpath(path))
        except TreeError:
            return False
        return e is not None and e.kind == "blob" and e.mode != MODE_SYMLINK

    def read(self, path: str, limit: int) -> bytes:
        e = self._checked(safe_relpath(path), limit)
        return self._cat(e.sha, limit)

    def read_many(
        self, paths: Iterable[str], limit: int
    ) -> Iterator[tuple[str, bytes | TreeError]]:
        """Each path's bytes (or why it can't be read), in order: object names go to
        `git cat-file --batch` 256 at a time with one flush, not one round trip per file."""
        todo = list(paths)
        for i in range(0, len(todo), _BATCH):
            chunk = todo[i : i + _BATCH]
            wanted: list[tuple[str, Entry]] = []
            for path in chunk:
                try:
                    e = self._checked(safe_relpath(path), limit)
                except TreeError as err:
                    yield path, err
                    continue
                wanted.append((path, e))
            proc = self._process()
            stdin, stdout = cast(IO[bytes], proc.stdin), cast(IO[bytes], proc.stdout)
            stdin.write(b"".join(e.sha.encode() + b"\n" for _, e in wanted))
            stdin.flush()
            for path, e in wanted:
                header = stdout.readline().decode("ascii", "replace").split()
                if len(header) != 3 or header[1] != "blob":
                    self.close()
                    raise TreeError(f"blob {e.sha[:12]} is missing from the repository")
                data = stdout.read(int(header[2]))
                stdout.read(1)
                yield path, data

    def _checked(self, path: str, limit: int) -> Entry:
        e = self._entry(path)
        if e is None:
            raise TreeError(f"{path}: no such file at {self.rev[:12]}")
        if e.mode == MODE_SYMLINK:
            raise TreeError(f"{path} is a symbolic link; roofbot does not follow links")
        if e.kind != "blob":
            raise TreeError(f"{path} is not a regular file")
        if e.size is None or e.size > limit:
            raise TreeError(too_big(path, e.size or 0, limit))
        return e

    # -------------------------------------------------------------- cat-file --batch
    def _cat(self, sha: str, limit: int) -> bytes:
        proc = self._process()
        stdin, stdout = cast(IO[bytes], proc.stdin), cast(IO[bytes], proc.stdout)
        stdin.write(sha.encode() + b"\n")
        stdin.flush()
        header = stdout.readline().decode("ascii", "replace").split()
        if len(header) != 3 or header[1] != "blob":
            self.close()
            raise TreeError(f"blob {sha[:12]} is missing from the repository")
        size = int(header[2])
        data = stdout.read(size)
        stdout.read(1)  # the newline after each object
        if size > limit:
            raise TreeError(f"blob {sha[:12]} is over the {limit}-byte limit")
        return data

    def _process(self) -> subprocess.Popen[bytes]:
        if self._batch is None or self._batch.poll() is not None:
            self._batch = subprocess.Popen(
                ["git", *SAFE_CONFIG, "cat-file", "--batch"],
                cwd=self.repo_dir,
                env=git_env(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        return self._batch

    def close(self) -> None:
        if self._batch is not None:
            if self._batch.stdin:
                self._batch.stdin.close()
            try:
                self._batch.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._batch.kill()
                self._batch.wait()
            if self._batch.stdout:
                self._batch.stdout.close()
            self._batch = None

    def __enter__(self) -> GitTree:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def text(self, path: str, limit: int = 256 * 1024) -> str | None:
        """A small text file (e.g. `.roofbot.yml`) at this commit, or None if it is absent,
        a link, too big or not UTF-8."""
        try:
            return self.read(path, limit).decode("utf-8")
        except (TreeError, UnicodeDecodeError):
            return None
