"""Checking records on several processes (`--jobs N`): parsing and extraction are CPU-bound,
so processes, not threads. Each worker builds the catalogue once, then takes chunks."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor

from roofbot.adapters.repo import Repository
from roofbot.adapters.tree import FolderTree
from roofbot.core.catalogue import Catalogue
from roofbot.core.results import RecordResult

_STATE: list[tuple[Repository, Catalogue]] = []


def _init(repo: Repository) -> None:
    _STATE.append((repo, repo.catalogue()))


def _check_chunk(paths: Sequence[str]) -> list[RecordResult]:
    from roofbot.engine import check_path

    repo, catalogue = _STATE[-1]
    return [check_path(repo, catalogue, p) for p in paths]


def can_parallelise(repo: Repository) -> bool:
    """Workers are forked with the repository: only a folder tree (a git tree holds a pipe)."""
    return isinstance(repo.tree, FolderTree) and "fork" in multiprocessing.get_all_start_methods()


def iter_parallel(
    repo: Repository,
    paths: Sequence[str],
    jobs: int,
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[RecordResult]:
    """The results in path order, a chunk at a time, checked on `jobs` forked workers."""
    size = max(25, len(paths) // (jobs * 8) or 1)
    chunks = [paths[i : i + size] for i in range(0, len(paths), size)]
    done = 0
    ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(jobs, mp_context=ctx, initializer=_init, initargs=(repo,)) as ex:
        for results in ex.map(_check_chunk, chunks):
            done += len(results)
            yield from results
            if progress:
                progress(done, len(paths))
