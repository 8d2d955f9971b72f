"""Checking records on several processes (`--jobs N`): parsing and extraction are CPU-bound,
so processes, not threads. Each worker builds the catalogue once, then takes chunks."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING

from roofbot.adapters.git import GitTree
from roofbot.adapters.repo import Repository
from roofbot.adapters.tree import FolderTree
from roofbot.core.results import RecordResult

if TYPE_CHECKING:
    from roofbot.adapters.cache import CacheSpec
    from roofbot.cached import CachedChecks
    from roofbot.engine import CacheStats
    from roofbot.render.json_report import PreRendered
    from roofbot.render.kept import KeptForm

_STATE: list[CachedChecks] = []


def _init(
    repo: Repository, cache: CacheSpec | None, form: KeptForm | None, whole: frozenset[str]
) -> None:
    import gc

    from roofbot.cached import CachedChecks
    from roofbot.engine import SWEEP_GEN0

    gc.set_threshold(SWEEP_GEN0, *gc.get_threshold()[1:])  # the worker's whole life is a sweep
    if isinstance(repo.tree, GitTree):
        repo.tree.forked()
    _STATE.append(CachedChecks(repo, repo.catalogue(), cache, form, whole))


def _check_chunk(
    paths: Sequence[str],
) -> tuple[list[RecordResult | PreRendered], int, int, list[str]]:
    """A chunk's results, and what the worker's cache did for it (hits, misses, warnings)."""
    checks = _STATE[-1]
    hits, misses = checks.hits, checks.misses
    results = list(checks.check_all(paths))
    checks.flush()
    warnings, checks.warnings = checks.warnings, []
    return results, checks.hits - hits, checks.misses - misses, warnings


def can_parallelise(repo: Repository) -> bool:
    """Workers are forked with the repository: a folder tree, or a git commit's (each worker
    reads through its own `git cat-file`, `GitTree.forked`); not a tree of files fetched
    from the API."""
    return isinstance(repo.tree, FolderTree | GitTree) and (
        "fork" in multiprocessing.get_all_start_methods()
    )


def iter_parallel(
    repo: Repository,
    paths: Sequence[str],
    jobs: int,
    progress: Callable[[int, int], None] | None = None,
    cache: CacheSpec | None = None,
    stats: CacheStats | None = None,
    form: KeptForm | None = None,
    whole: frozenset[str] = frozenset(),
) -> Iterator[RecordResult | PreRendered]:
    """The results in path order, a chunk at a time, checked on `jobs` forked workers (each
    with its own connection to the cache)."""
    size = max(25, len(paths) // (jobs * 8) or 1)
    chunks = [paths[i : i + size] for i in range(0, len(paths), size)]
    done = 0
    ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(
        jobs, mp_context=ctx, initializer=_init, initargs=(repo, cache, form, whole)
    ) as ex:
        for results, hits, misses, warnings in ex.map(_check_chunk, chunks):
            if stats is not None:
                stats.hits += hits
                stats.misses += misses
                stats.warnings += warnings
            done += len(results)
            yield from results
            if progress:
                progress(done, len(paths))
