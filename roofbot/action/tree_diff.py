"""API mode past the comparison's limit: `compare/{base}...{head}` lists at most 300 changed
files, so 300 files that sort first would hide every record after them. When the list is full,
the changed files come from the two commits' git trees instead (`git/trees/{sha}?recursive=1`
for the merge base and the head, the same three-dot change the comparison diffs): every path
whose blob or mode differs. A tree GitHub truncated can't be diffed: the run fails closed."""

from __future__ import annotations

from roofbot.adapters.github.models import TreeEntry
from roofbot.adapters.github.protocol import GitHub
from roofbot.core.changes import FileChange

LINK = "120000"


class ListingIncomplete(Exception):
    """GitHub could not give the whole list of changed files: nothing may be judged."""


def tree_changes(client: GitHub, base_sha: str, head_sha: str) -> list[FileChange]:
    """Every file that differs between the merge base of `base_sha` and `head_sha`, and
    `head_sha` (3 requests: the merge base, two recursive trees)."""
    merge_base = client.merge_base(base_sha, head_sha)
    old, old_cut = client.tree(merge_base)
    new, new_cut = client.tree(head_sha)
    if old_cut or new_cut:
        raise ListingIncomplete(
            "the pull request changes more files than a comparison lists (300), and GitHub "
            "truncated a commit's tree: the change can't be listed through the API"
        )
    return diff_trees(old, new)


def diff_trees(old: dict[str, TreeEntry], new: dict[str, TreeEntry]) -> list[FileChange]:
    """The changes from one recursive tree listing to another (folders are not files)."""
    files: list[FileChange] = []
    before = {p: e for p, e in old.items() if e.type != "tree"}
    after = {p: e for p, e in new.items() if e.type != "tree"}
    for path in sorted(before.keys() | after.keys()):
        a, b = before.get(path), after.get(path)
        if b is None:
            files.append(FileChange("deleted", path))
        elif a is None:
            files.append(FileChange("added", path, symlink=b.mode == LINK))
        elif (a.sha, a.mode) != (b.sha, b.mode):
            files.append(FileChange("modified", path, symlink=b.mode == LINK))
    return files
