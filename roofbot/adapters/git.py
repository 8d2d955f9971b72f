"""A pull request's files from git, without checking the PR out: what changed between base and
head (`git diff --name-status -z`), and a `Tree` over the head commit that reads blobs with one
`git cat-file --batch` process. Nothing from the PR is ever executed: git runs with external
diff drivers, textconv filters, hooks and fsmonitor off, symlinks are seen by their mode and
never read, and every blob read is size-limited before its bytes are fetched."""

from __future__ import annotations

import fnmatch
import os
import posixpath
import re
import subprocess
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Any, cast

from roofbot.adapters.jsonfile import MAX_BYTES, RecordFileError, parse_record_bytes
from roofbot.adapters.tree import TreeError, path_matches, safe_relpath, too_big
from roofbot.changes import ChangeStatus, FileChange
from roofbot.core.catalogue import Catalogue

GIT_TIMEOUT = 120  # seconds for one git command
_SHA = re.compile(r"[0-9a-fA-F]{7,64}")
_SAFE_CONFIG = (
    "-c", "core.fsmonitor=false",
    "-c", "core.hooksPath=/dev/null",
    "-c", "diff.external=",
    "-c", "core.pager=cat",
    "-c", "protocol.allow=never",
)  # fmt: skip
MODE_SYMLINK = "120000"
MODE_SUBMODULE = "160000"
_STATUS: Mapping[str, ChangeStatus] = {
    "A": "added",
    "M": "modified",
    "D": "deleted",
    "R": "renamed",
    "C": "copied",
    "T": "typechange",
}


class GitError(RuntimeError):
    """A git command failed; the message has git's own words."""


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_TERMINAL_PROMPT="0",
        GIT_OPTIONAL_LOCKS="0",
        GIT_NO_REPLACE_OBJECTS="1",
        LC_ALL="C",
    )
    return env


def git(repo_dir: Path, *args: str, check: bool = True) -> bytes:
    """Run one git command in `repo_dir` and return its stdout."""
    try:
        proc = subprocess.run(
            ["git", *_SAFE_CONFIG, *args],
            cwd=repo_dir,
            env=_env(),
            capture_output=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise GitError(f"git {args[0]}: {e}") from None
    if check and proc.returncode != 0:
        msg = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git {args[0]} failed: {msg[-1] if msg else proc.returncode}")
    return proc.stdout


def valid_sha(sha: str | None) -> bool:
    return bool(sha) and _SHA.fullmatch(sha or "") is not None


def has_commit(repo_dir: Path, sha: str | None) -> bool:
    """Whether `sha` names a commit present in the repository (no fetch is attempted)."""
    if not valid_sha(sha) or not (repo_dir / ".git").exists():
        return False
    proc = subprocess.run(
        ["git", *_SAFE_CONFIG, "cat-file", "-e", f"{sha}^{{commit}}"],
        cwd=repo_dir,
        env=_env(),
        capture_output=True,
        timeout=GIT_TIMEOUT,
        check=False,
    )
    return proc.returncode == 0


def parse_raw_diff(raw: bytes) -> list[tuple[ChangeStatus, str, str | None, str]]:
    """`git diff --raw -z` output -> (status, path, old path for renames/copies, the mode at
    the head): each entry is `:<old mode> <new mode> <old sha> <new sha> <status>` then its
    path, or its old and new paths, each ended by a NUL."""
    fields = raw.decode("utf-8", "surrogateescape").split("\0")
    out: list[tuple[ChangeStatus, str, str | None, str]] = []
    i = 0
    while i < len(fields) and fields[i].startswith(":"):
        meta = fields[i].split()
        mode, code = meta[1], meta[-1][:1]
        status = _STATUS.get(code, "modified")
        if code in ("R", "C"):
            out.append((status, fields[i + 2], fields[i + 1], mode))
            i += 3
        else:
            out.append((status, fields[i + 1], None, mode))
            i += 2
    return out


def changed_files(repo_dir: Path, base: str, head: str) -> list[FileChange]:
    """Every path that differs between the merge base of `base` and `head`, and `head`:
    added, modified, renamed (with the old name), copied, deleted, type-changed; a head
    version that is a symbolic link is marked so, and never read. The raw diff gives each
    path's mode at the head: asking `git ls-tree` for it read the folder's whole tree object
    again (about 20 ms in a folder of 100,000 records; bench/bench_pr.py)."""
    if not (valid_sha(base) and valid_sha(head)):
        raise GitError("base and head must be commit SHAs")
    raw = git(
        repo_dir,
        "diff", "--raw", "-z", "-M", "--no-abbrev", "--no-ext-diff", "--no-textconv",
        f"{base}...{head}", "--",
    )  # fmt: skip
    return [
        FileChange(status, path, old, symlink=mode == MODE_SYMLINK)
        for status, path, old, mode in parse_raw_diff(raw)
    ]


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
        each single look-up is a process that reads the whole folder's tree object (about
        45 ms in a folder of 100,000 records)."""
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
        if any(c in folder for c in "*?["):
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
                ["git", *_SAFE_CONFIG, "cat-file", "--batch"],
                cwd=self.repo_dir,
                env=_env(),
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


# ------------------------------------------------------------------ dependents


def matches_any(path: str, patterns: Iterable[str]) -> bool:
    return any(path_matches(path, p) for p in patterns)


def catalogue_kind(path: str, catalogue_globs: Mapping[str, tuple[str, ...]]) -> str | None:
    """'accelerators', 'models', 'quantization' or 'gotchas' for a catalogue path, else None."""
    for kind, patterns in catalogue_globs.items():
        if matches_any(path, patterns):
            return kind
    return None


REFERABLE = frozenset({"accelerators", "models", "quantization"})
"""The catalogue kinds a benchmark record refers to (a gotcha is linked, not referred to)."""


def references(
    data: Mapping[str, Any], catalogue: Catalogue, kinds: frozenset[str] = REFERABLE
) -> set[tuple[str, str]]:
    """The (kind, id) catalogue records a benchmark record refers to: its accelerator_ids (or
    the parts its text names when it has none), its format_id, and the model it names; only
    those of `kinds` (the rest are not looked for: naming a model costs a slug and a look-up)."""
    refs: set[tuple[str, str]] = set()
    if "accelerators" in kinds:
        ids = data.get("accelerator_ids")
        if isinstance(ids, list):
            refs.update(("accelerators", i) for i in ids if isinstance(i, str))
        if not ids:
            text = " ".join(str(data.get(k) or "") for k in ("name", "methodology"))
            refs.update(("accelerators", a.id) for a in catalogue.match_accelerators(text))
    fmt = data.get("format_id")
    if "quantization" in kinds and isinstance(fmt, str):
        refs.add(("quantization", fmt))
    model = data.get("model")
    if isinstance(model, str):
        if "models" in kinds:
            m = catalogue.match_model(model)
            if m is not None:
                refs.add(("models", m.id))
        if "quantization" in kinds:
            named = model.lower().replace("_", "-")
            for q in catalogue.quantization.values():  # formats named in the model string
                if len(q.id) >= 4 and q.id in named:
                    refs.add(("quantization", q.id))
    return refs


def dependents(
    tree: Any,
    record_paths: Iterable[str],
    changed: set[tuple[str, str]],
    catalogue: Catalogue,
) -> list[str]:
    """Benchmark record paths whose references meet `changed` ((kind, id) pairs). Scans the
    record files once, looking only for the kinds that changed; none when no kind a record
    refers to changed (a gotcha)."""
    kinds = frozenset(kind for kind, _ in changed) & REFERABLE
    if not kinds:
        return []
    paths = list(record_paths)
    read_many = getattr(tree, "read_many", None)
    if read_many is not None:  # a git tree: one batched pass over the object database
        contents: Iterable[tuple[str, bytes | TreeError]] = read_many(paths, MAX_BYTES)
    else:
        contents = ((p, _read_or_error(tree, p)) for p in paths)
    out = []
    for path, raw in contents:
        if isinstance(raw, TreeError):
            continue
        try:
            data = parse_record_bytes(raw).data
        except RecordFileError:
            continue
        if references(data, catalogue, kinds) & changed:
            out.append(path)
    return out


def _read_or_error(tree: Any, path: str) -> bytes | TreeError:
    try:
        data: bytes = tree.read(path, MAX_BYTES)
        return data
    except TreeError as e:
        return e
