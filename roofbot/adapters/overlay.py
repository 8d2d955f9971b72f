"""A tree seen through a pull request: the base's files, with the files the PR changed laid
over them (bytes it brings, or None where it deletes or roofbot did not fetch a file)."""

from __future__ import annotations

from collections.abc import Mapping

from roofbot.adapters.tree import Tree, TreeError
from roofbot.core.changes import matches_any


class OverlayTree:
    """The base checkout with the PR's changed files laid over it (API mode): `files` maps a
    path to its head bytes, or None where the PR deletes it or it can't be read as a file
    (`reasons` says why, where known)."""

    def __init__(
        self,
        base: Tree,
        files: Mapping[str, bytes | None],
        reasons: Mapping[str, str] | None = None,
    ) -> None:
        self.base = base
        self.files = dict(files)
        self.reasons = dict(reasons or {})

    def glob(self, pattern: str) -> list[str]:
        found = set(self.base.glob(pattern))
        found |= {p for p in self.files if matches_any(p, [pattern])}
        return sorted(p for p in found if self.files.get(p, b"") is not None)

    def exists(self, path: str) -> bool:
        if path in self.files:
            return self.files[path] is not None
        return self.base.exists(path)

    def read(self, path: str, limit: int) -> bytes:
        if path in self.files:
            data = self.files[path]
            if data is None:
                why = self.reasons.get(path, "it is not a regular file in the pull request")
                raise TreeError(f"{path} can't be read: {why}")
            if len(data) > limit:
                raise TreeError(f"{path} is over the {limit}-byte limit")
            return data
        return self.base.read(path, limit)
