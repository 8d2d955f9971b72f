"""What a pull request brings: its changed files and trees, from git when base and head are in
the workspace, else from the GitHub API (git mode / API mode)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, TextIO

from roofbot.action.head_files import read_head
from roofbot.action.settings import MAX_API_FILES, Settings
from roofbot.action.tree_diff import tree_changes
from roofbot.adapters import actions as A
from roofbot.adapters.git import changed_files
from roofbot.adapters.git_tree import GitTree
from roofbot.adapters.github.models import MAX_COMPARE_FILES
from roofbot.adapters.github.protocol import GitHub
from roofbot.adapters.jsonfile import MAX_BYTES
from roofbot.adapters.overlay import OverlayTree
from roofbot.adapters.repo import MAX_CONFIG_BYTES, load_config_text
from roofbot.adapters.tree import Tree, TreeError
from roofbot.core.changes import FileChange, catalogue_kind, matches_any
from roofbot.core.config import Config


@dataclass
class Gathered:
    """What the check runs on: the PR's tree, the two configs, what changed."""

    tree: Tree
    base_config_text: str | None
    head_config_text: str | None
    files: list[FileChange]
    source: Literal["git", "api"]
    notes: tuple[str, ...] = ()  # what the report must say about how the files were read
    head_config_problem: str | None = None  # the PR's config is there but can't be read
    # the base's files: its catalogue, for the check-twice; its records, for before and after
    base_tree: Tree | None = None
    patches: Mapping[str, str | None] | None = None  # API mode: each changed file's diff


def head_config(tree: Tree, path: str, present: bool) -> tuple[str | None, str | None]:
    """(text, problem) of the PR's `.roofbot.yml`: (None, None) when there is none; a problem
    when there is something roofbot can't read (a link, too big, not UTF-8). An unreadable
    config is never taken for an absent one: that would drop every pin without saying why."""
    if not present:
        return None, None
    try:
        return tree.read(path, MAX_CONFIG_BYTES).decode("utf-8"), None
    except TreeError as e:
        if "limit" in str(e):
            return None, f"{path} is over {MAX_CONFIG_BYTES // 1024} KiB"
        return None, str(e)
    except UnicodeDecodeError as e:
        return None, f"{path} is not UTF-8 (bad byte at offset {e.start})"


def is_relevant(path: str, cfg: Config, config_path: str) -> bool:
    return (
        path == config_path
        or matches_any(path, cfg.records)
        or catalogue_kind(path, cfg.catalogue) is not None
    )


def gather_git(s: Settings) -> Gathered:
    head = GitTree(s.workspace, s.event.head_sha)
    base = GitTree(s.workspace, s.event.base_sha)  # kept open: the check-twice, before/after
    try:
        base_text = base.text(s.config_path)
        files = changed_files(s.workspace, s.event.base_sha, s.event.head_sha)
    except BaseException:
        base.close()
        raise
    head_text, problem = head_config(head, s.config_path, s.config_path in head.entries)
    return Gathered(
        head, base_text, head_text, files, "git", head_config_problem=problem, base_tree=base
    )


def gather_api(s: Settings, client: GitHub, base: GitTree, out: TextIO) -> Gathered:
    """The change read through the API, pinned to the event's SHAs (roofbot.action.head_files): the
    comparison base...head, modes from the head's git tree, blobs by SHA. The base is `base`,
    the base commit read from the workspace's git objects, never the checked-out folder (on
    `pull_request` that is the merge commit, which already holds the PR's edits; on
    `issue_comment` the default branch, not the PR's base)."""

    base_tree: Tree = base
    base_text = base.text(s.config_path)
    base_cfg = load_config_text(base_text)
    files: list[FileChange] = []
    overlay: dict[str, bytes | None] = {}
    reasons: dict[str, str] = {}
    notes: list[str] = []
    status_map = {"removed": "deleted", "renamed": "renamed", "added": "added", "copied": "copied"}
    listed, full = client.compare_files(s.event.base_sha, s.event.head_sha)
    patches = {f.filename: f.patch for f in listed}
    for pf in listed:
        status = status_map.get(pf.status, "modified")
        files.append(FileChange(status, pf.filename, pf.previous_filename))  # type: ignore[arg-type]
    if full:  # the comparison's list stops at 300: the two commits' trees say what changed
        files = tree_changes(client, s.event.base_sha, s.event.head_sha)
        A.log(out, f"the comparison lists {MAX_COMPARE_FILES} files, GitHub's maximum: "
                   f"{len(files)} changed files read from the two commits' trees")  # fmt: skip
    relevant = [f for f in files if is_relevant(f.path, base_cfg, s.config_path)]
    wanted: list[str] = []
    skipped = 0
    for f in relevant:
        if f.old_path:
            overlay[f.old_path] = None
        if f.status == "deleted":
            overlay[f.path] = None
            reasons[f.path] = "the pull request deletes it"
        elif len(wanted) >= MAX_API_FILES:
            overlay[f.path] = None
            reasons[f.path] = (
                f"not fetched: the pull request changes more than {MAX_API_FILES} files roofbot "
                "reads, and without its head in the workspace each costs an API call"
            )
            skipped += 1
        else:
            wanted.append(f.path)
    head = read_head(client, s.event.head_sha, wanted, MAX_BYTES)
    for path, error in head.failures:
        A.log(out, f"{path}: {error}")
    overlay.update(head.data)
    reasons.update(head.reasons)
    files = [dataclasses.replace(f, symlink=True) if f.path in head.links else f for f in files]
    if skipped:
        A.log(out, f"more than {MAX_API_FILES} changed files: {skipped} not fetched")
        notes.append(
            f"{skipped} changed files were not fetched (more than {MAX_API_FILES} through the "
            "API): they are listed as errors. Fetch the pull request's head in the workflow "
            "to check them all."
        )
    tree = OverlayTree(base_tree, overlay, reasons)
    head_text, problem = base_text, None
    if s.config_path in overlay:
        deleted = overlay[s.config_path] is None and any(
            f.path == s.config_path and f.status == "deleted" for f in files
        )
        head_text, problem = head_config(tree, s.config_path, not deleted)
    return Gathered(
        tree, base_text, head_text, files, "api", tuple(notes), problem, base_tree, patches
    )


# ------------------------------------------------------------------ policy and instrument
