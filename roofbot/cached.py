"""Checking records through the result cache (adapters/cache.py): a hit returns the earlier
result without reading the file past its lstat; a miss is checked as always and remembered
with the files its check looked up. The first failure of the cache switches it off for the
run, with a warning, and every record is still checked."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from roofbot.adapters.cache import (
    CacheError,
    CacheSpec,
    Dependency,
    ResultCache,
    Row,
    digest,
    signature,
)
from roofbot.adapters.jsonfile import MAX_BYTES
from roofbot.adapters.repo import Repository
from roofbot.adapters.tree import FolderTree, TreeError, read_or_none, safe_relpath
from roofbot.core.catalogue import Catalogue
from roofbot.core.check import error_result
from roofbot.core.results import RecordResult
from roofbot.engine import check_bytes, check_path, read_record, stem
from roofbot.render.json_report import PreRendered, pre_rendered
from roofbot.render.kept import KeptForm, printed


class CachedChecks:
    """`check_all(paths)` is `engine.check_path(repo, catalogue, path)` of each path, through
    the cache."""

    def __init__(
        self,
        repo: Repository,
        catalogue: Catalogue,
        spec: CacheSpec | None,
        form: KeptForm | None = None,
        whole: frozenset[str] = frozenset(),
    ) -> None:
        """With a `form` (render/kept.py), `check_all` gives a record as what that format
        prints of it (PreRendered), from the cache without building the result; the records
        whose ids are in `whole` (the calibration set) come with their result too. A record
        checked here (no cache, a miss, an error) is rendered with the bytes its check read,
        where the report would read its file again for line numbers."""
        self.repo = repo
        self.catalogue = catalogue
        self.form = form
        self.whole = whole
        self.cache: ResultCache | None = None
        self.warnings: list[str] = []
        self.hits = 0
        self.misses = 0
        self._seen: dict[str, tuple[str, bytes, bytes | None]] = {}
        self._deps_ok: dict[bytes, bool] = {}  # a row's pickled dependencies: all unchanged
        self._now = time.time_ns()  # a file changed since the run began is racy (`signature`)
        if spec is not None and isinstance(repo.tree, FolderTree):
            try:
                self.cache = spec.open(form.column if form else None)
            except CacheError as e:
                self.warnings.append(f"{e}; checking without it")

    def check_all(self, paths: Iterable[str]) -> Iterator[RecordResult | PreRendered]:
        """Each path's record in turn. A record whose row answers by its signature, with
        the files it looked up already found unchanged this run, is answered in this loop
        (a warm sweep is this loop, with no call a record into a per-record method: see
        docs/performance.md, the eighth pass); anything else goes through `_through`."""
        deps_ok, now = self._deps_ok, self._now
        tree = self.repo.tree if isinstance(self.repo.tree, FolderTree) else None  # tested once
        for path in paths:
            cache = self.cache
            if cache is None or tree is None:
                yield self._plain(path)
                continue
            try:
                rel = safe_relpath(path)
                if not rel.isascii():
                    rel.encode("utf-8")  # a name that isn't UTF-8 can't be a key
            except (TreeError, UnicodeEncodeError):
                yield check_path(self.repo, self.catalogue, path)
                continue
            st = tree.regular(rel, normalised=True)
            if st is None:  # missing, a link, a folder: the plain check words the error
                yield check_path(self.repo, self.catalogue, rel)
                continue
            sig = signature(st, now)
            try:
                row = cache.row(rel)
                if (
                    row is not None
                    and sig
                    and row.sig == sig
                    and (deps_ok.get(row.deps_blob) or self._deps_fresh(cache, row))
                    and (hit := self._answer(cache, rel, row)) is not None
                ):
                    got = hit
                else:
                    got = self._through(cache, rel, sig, row)
            except CacheError as e:
                self._off(e)
                got = self._plain(rel)
            yield got

    def flush(self) -> None:
        if self.cache is not None:
            try:
                self.cache.flush()
            except CacheError as e:
                self._off(e)

    def close(self, every_record: Iterable[str] | None = None) -> None:
        """Write what is pending; after a sweep of `every_record`, forget the rest."""
        if self.cache is None:
            return
        try:
            if every_record is not None:
                self.cache.prune(every_record)
            self.cache.close()
        except CacheError as e:
            self._off(e)
        self.cache = None

    def _off(self, e: CacheError) -> None:
        if self.cache is not None:
            self.cache.abandon()
        self.cache = None
        self.warnings.append(f"{e}; checking the rest without it")

    def _plain(self, path: str) -> RecordResult | PreRendered:
        """The record checked without the cache."""
        got = read_record(self.repo, path)
        if isinstance(got, RecordResult):
            return got
        rel, raw = got
        result = check_bytes(self.repo, self.catalogue, rel, raw, self.repo.find_by_id)
        return self._returned(result, self._kept(result, raw))

    def _through(
        self, cache: ResultCache, rel: str, sig: bytes, row: Row | None
    ) -> RecordResult | PreRendered:
        """A record its row did not answer by signature: read, it is answered by the row
        still where its bytes are the same (a touched file); else checked, and remembered
        with the files its check looked up."""
        try:
            raw = self.repo.tree.read(rel, MAX_BYTES)
        except TreeError as e:
            return error_result(stem(rel), rel, str(e))
        dig = digest(raw)
        if (
            row is not None
            and row.digest == dig
            and self._deps_fresh(cache, row)
            and (hit := self._answer(cache, rel, row)) is not None
        ):
            if sig:
                cache.touch(rel, sig)
            return hit
        deps: list[Dependency] = []

        def lookup(rid: str) -> Mapping[str, Any] | None:
            for candidate in self.repo.candidate_paths(rid):
                deps.append(self._dependency(candidate))
            return self.repo.find_by_id(rid)

        result = check_bytes(self.repo, self.catalogue, rel, raw, lookup)
        self.misses += 1
        kept = self._kept(result, raw)
        if result.id == row_id(rel):  # an error too: its words are fingerprinted (adapters/cache)
            cache.put(rel, sig, dig, deps, result, kept)
        return self._returned(result, kept)

    def _dependency(self, path: str, need_digest: bool = True) -> Dependency:
        """A looked-up file as it is now: its signature and digest; (b"-", b"") if none.
        Found once a run per file (many records name the same sibling or gotcha); the
        digest only read when asked for."""
        known = self._seen.get(path)
        if known is None:
            tree = self.repo.tree
            assert isinstance(tree, FolderTree)
            st = tree.regular(path)
            known = (path, b"-", b"") if st is None else (path, signature(st, self._now), None)
        if known[2] is None and need_digest:
            try:
                known = (path, known[1], digest(self.repo.tree.read(path, MAX_BYTES)))
            except TreeError:
                known = (path, b"-", b"")
        self._seen[path] = known
        return (path, known[1], known[2] or b"")

    def _unchanged(self, dep: Dependency) -> bool:
        """A looked-up file is as it was: by signature where that can tell, else by content."""
        path, sig, dig = dep
        current = self._dependency(path, need_digest=False)
        if sig == b"-" or current[1] == b"-":
            return current[1] == sig
        if sig and current[1] == sig:
            return True
        return self._dependency(path)[2] == dig

    def _deps_fresh(self, cache: ResultCache, row: Row) -> bool:
        """The files the row's check looked up are unchanged (each set once a run: many rows
        share one, the same sibling, the same gotcha)."""
        ok = self._deps_ok.get(row.deps_blob)
        if ok is None:
            deps = cache.deps(row)
            ok = deps is not None and all(self._unchanged(dep) for dep in deps)
            self._deps_ok[row.deps_blob] = ok
        return ok

    def _answer(self, cache: ResultCache, rel: str, row: Row) -> RecordResult | PreRendered | None:
        """A fresh row's record: as the run's form printed it, where the row kept that (with
        its result where the run needs it whole); else its result (rendered with a form,
        and kept); None where the row can't say (corrupt, foreign)."""
        form = self.form
        if form is not None and row.kept is not None and (got := form.read_back(row.kept)):
            rid = row_id(rel)
            whole = None
            if rid in self.whole:  # fetched and loaded once: a row that can't give it, can't
                whole = cache.result(rel, row)
                if whole is None:
                    return None
            self.hits += 1
            return pre_rendered((rid, *got, whole))
        result = cache.result(rel, row)
        if result is None:
            return None
        self.hits += 1
        if form is None:
            return result
        kept = form.render(result, lambda: read_or_none(self.repo.tree, rel, MAX_BYTES))
        cache.add_kept(rel, kept)
        return self._returned(result, kept)

    def _kept(self, result: RecordResult, raw: bytes) -> bytes | None:
        """What the run's form prints of a record just checked, rendered with the bytes its
        check read (the report would otherwise read the file again for line numbers)."""
        return self.form.render(result, lambda: raw) if self.form is not None else None

    def _returned(self, result: RecordResult, kept: bytes | None) -> RecordResult | PreRendered:
        """The record as `check_all` gives it: as printed where the run has a form, with its
        result only where the run needs it whole (a worker would otherwise pickle every
        record's result back to the parent, to be dropped)."""
        if kept is None:
            return result
        whole = result if result.id in self.whole else None
        return pre_rendered(
            (result.id, result.verdict, result.deprecated, result.checked, printed(kept), whole)
        )


def row_id(rel: str) -> str:
    """A cached record's id: its file's stem, as a valid record's id must be and as an
    error's is (`put` keeps only results whose id it is); sliced off where that is plainly
    the case, since it runs once a warm record."""
    name = rel[rel.rfind("/") + 1 : -5]  # (four calls fewer than slicing the name first)
    if name and name[0] != "." and rel.endswith(".json"):
        return name
    return stem(rel)
