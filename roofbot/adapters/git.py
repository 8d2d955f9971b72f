"""git, run safely: one command at a time (`git`), whether a commit is there, and what changed
between a pull request's base and head (`git diff --raw -z`), without checking the PR out. The
files of a commit are read by `roofbot.adapters.git_tree`. Nothing from the PR is ever
executed: git runs with external diff drivers, textconv filters, hooks, fsmonitor and every
transport off."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path

from roofbot.core.changes import ChangeStatus, FileChange

GIT_TIMEOUT = 120  # seconds for one git command
_SHA = re.compile(r"[0-9a-fA-F]{7,64}")
SAFE_CONFIG = (
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


def git_env() -> dict[str, str]:
    """The environment every git command runs in: no GIT_* from outside, no prompt, no lock."""
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
            ["git", *SAFE_CONFIG, *args],
            cwd=repo_dir,
            env=git_env(),
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
        ["git", *SAFE_CONFIG, "cat-file", "-e", f"{sha}^{{commit}}"],
        cwd=repo_dir,
        env=git_env(),
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
    path's mode at the head, where asking `git ls-tree` would read the folder's whole tree
    object again, a cost that grows with the corpus."""
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


def worktree_changes(repo_dir: Path, base: str) -> list[FileChange]:
    """Every path whose working-tree version differs from commit `base`'s: the tracked files
    `git diff` sees (staged or not), and the untracked files git does not ignore, as added.
    What a pre-commit hook or a preview of uncommitted work compares."""
    if not valid_sha(base):
        raise GitError("base must be a commit SHA")
    raw = git(repo_dir, "diff", "--raw", "-z", "--no-renames", "--no-abbrev", "--no-ext-diff",
              "--no-textconv", base, "--")  # fmt: skip
    out = [
        FileChange(status, path, old, symlink=mode == MODE_SYMLINK)
        for status, path, old, mode in parse_raw_diff(raw)
    ]
    untracked = git(repo_dir, "ls-files", "-z", "--others", "--exclude-standard")
    for path in untracked.decode("utf-8", "surrogateescape").split("\0"):
        if path:
            symlink = os.path.islink(repo_dir / path)
            out.append(FileChange("added", path, None, symlink=symlink))
    return out
