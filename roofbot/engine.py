"""Wiring the pure core to a repository: read each record (every failure an `error`
result), check it, calibrate the instrument, and return the report. No printing."""

from __future__ import annotations

import gc
import os
import posixpath
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from itertools import islice
from typing import TYPE_CHECKING

from roofbot.adapters.jsonfile import MAX_BYTES, RecordFileError, parse_record_bytes
from roofbot.adapters.repo import Repository
from roofbot.adapters.tree import TreeError, safe_relpath
from roofbot.core.calibration import calibrate
from roofbot.core.catalogue import Catalogue
from roofbot.core.check import SiblingLookup, check_record, error_result
from roofbot.core.results import Calibration, RecordResult, Report

if TYPE_CHECKING:
    from roofbot.adapters.cache import CacheSpec
    from roofbot.render.json_report import PreRendered
    from roofbot.render.kept import KeptForm

Progress = Callable[[int, int], None]


def stem(path: str) -> str:
    return posixpath.splitext(posixpath.basename(path))[0]


def shown_path(path: str) -> str:
    """A path as a report can print it: a name that isn't UTF-8 (the listings decode one with
    surrogate escapes) shows its bad bytes as \\xNN."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def check_path(repo: Repository, catalogue: Catalogue, path: str) -> RecordResult:
    got = read_record(repo, path)
    if isinstance(got, RecordResult):
        return got
    return check_bytes(repo, catalogue, *got, repo.find_by_id)


def read_record(repo: Repository, path: str) -> tuple[str, bytes] | RecordResult:
    """A record file's normalised path and bytes, or the error result that says why not."""
    shown = shown_path(path)
    if shown != path:
        return error_result(
            stem(shown), shown, f"{shown}: the file name is not UTF-8; rename it to be checked"
        )
    try:
        path = safe_relpath(path)
        return path, repo.tree.read(path, MAX_BYTES)
    except TreeError as e:
        return error_result(stem(path), path, str(e))


def check_bytes(
    repo: Repository, catalogue: Catalogue, path: str, raw: bytes, lookup: SiblingLookup
) -> RecordResult:
    """Parse, validate and check one record file's bytes; `lookup` finds records by id."""
    try:
        parsed = parse_record_bytes(raw)
    except RecordFileError as e:
        return error_result(stem(path), path, str(e))
    status = parsed.data.get("status")
    status = status if isinstance(status, str) else None
    problem = repo.validate(path, parsed)
    if problem:
        rid = parsed.data.get("id")
        return error_result(
            rid if isinstance(rid, str) and rid == stem(path) else stem(path), path, problem, status
        )
    try:
        read = repo.siblings_read(catalogue)
        result = check_record(parsed.data, path, catalogue, repo.config, lookup, read)
        if repo.catalogue_problems:  # a check resting on an invalid catalogue part says so
            from roofbot.catalogue_check import mark

            return mark(result, repo.catalogue_problems)
        return result
    except Exception as e:  # a bug in roofbot must cost one record, not the run
        return error_result(
            stem(path), path, f"roofbot could not check this record (a roofbot bug): {e!r}", status
        )


@dataclass
class CacheStats:
    """What the result cache did in one run (hits, records checked, warnings)."""

    hits: int = 0
    misses: int = 0
    warnings: list[str] = field(default_factory=list)
    workers: int = 1  # processes that checked records (>1: the sweep went to workers)


def iter_results(
    repo: Repository,
    catalogue: Catalogue,
    todo: Sequence[str],
    jobs: int = 1,
    progress: Progress | None = None,
    cache: CacheSpec | None = None,
    stats: CacheStats | None = None,
    every_record: bool = False,
) -> Iterator[RecordResult]:
    """Each path's result, in order, one at a time (a sweep need not hold them all). `jobs` > 1
    checks on that many processes where the tree allows it (0: `auto_jobs`); `cache` reuses earlier results
    (a folder tree only); the results are the same either way. What the cache did, and why
    it was off if it was, goes to `stats` (a tool's diagnostic, not part of the report);
    `every_record` says `todo` is the whole corpus (the cache forgets the rest)."""
    for r in _results(repo, catalogue, todo, jobs, progress, cache, stats, every_record):
        assert isinstance(r, RecordResult)  # no trap links were given: no PreRendered
        yield r


def iter_kept(
    repo: Repository,
    catalogue: Catalogue,
    todo: Sequence[str],
    form: KeptForm,
    whole: frozenset[str] = frozenset(),
    jobs: int = 1,
    progress: Progress | None = None,
    cache: CacheSpec | None = None,
    stats: CacheStats | None = None,
    every_record: bool = False,
) -> Iterator[RecordResult | PreRendered]:
    """`iter_results` for a report in one format: where the cache holds what that `form`
    prints of a record, the record comes as those bytes, unbuilt (with its result where its
    id is in `whole`). (The records come straight from `_results`: a generator around it
    would be resumed once more a record.)"""
    return _results(repo, catalogue, todo, jobs, progress, cache, stats, every_record, form, whole)


AUTO_JOBS_FROM = 1_000
"""Records from which `jobs=0` (the CLI's default) checks on several processes: below it,
starting the workers costs about what they save (bench/bench_sweep.py, 1k records)."""


AUTO_PROBE = 200
"""With `jobs=0` and a cache, records checked on one process before the sweep decides: if
most of them missed, the rest go to workers."""


def auto_jobs(records: int) -> int:
    """Processes for `jobs=0`: the CPUs this process may use, up to 8, for a sweep of
    AUTO_JOBS_FROM records or more; else 1."""
    if records < AUTO_JOBS_FROM:
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, 8))


SWEEP_GEN0 = 10_000
"""The collector's generation-0 threshold during a sweep (CPython's default is 700)."""


@contextmanager
def fewer_collections(gen0: int = SWEEP_GEN0) -> Iterator[None]:
    """Run the cyclic garbage collector less often during a sweep. Results are acyclic and
    kept; at the default threshold (700 allocations) the collector keeps re-walking them:
    a third of a warm sweep's time (bench/bench_sweep.py). Cycles are still collected."""
    before = gc.get_threshold()
    gc.set_threshold(max(gen0, before[0]), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _results(
    repo: Repository,
    catalogue: Catalogue,
    todo: Sequence[str],
    jobs: int,
    progress: Progress | None,
    cache: CacheSpec | None,
    stats: CacheStats | None,
    every_record: bool,
    form: KeptForm | None = None,
    whole: frozenset[str] = frozenset(),
) -> Iterator[RecordResult | PreRendered]:
    stats = stats if stats is not None else CacheStats()
    with fewer_collections():
        auto, jobs = jobs == 0, jobs or auto_jobs(len(todo))
        parallel = jobs > 1 and len(todo) >= 100
        if parallel:  # multiprocessing is only imported when asked for
            from roofbot.parallel import can_parallelise, iter_parallel

            parallel = can_parallelise(repo)
        # Records before `rest` are checked on this process, the rest on workers. `jobs=0`
        # with a cache starts on this process and stays there while the cache answers
        # (workers would only slow a warm sweep: its records cost less than sending them
        # back); if most of the first AUTO_PROBE records missed, the rest go to workers.
        probe = AUTO_PROBE if parallel and auto and cache is not None else 0
        rest = len(todo) if probe or not parallel else 0
        if rest:
            checked: Iterator[RecordResult | PreRendered] = map(
                partial(check_path, repo, catalogue), todo
            )
            checks = None
            if cache is not None or form is not None:  # a form: the file is read once
                from roofbot.cached import CachedChecks

                checks = CachedChecks(repo, catalogue, cache, form, whole)
                checked = checks.check_all(todo)
            if progress:
                checked = _reporting(checked, progress, len(todo))
            try:  # (delegated: a warm record passes no Python line of this loop)
                if probe:
                    yield from islice(checked, probe)
                    if len(todo) > probe and checks is not None and 2 * checks.misses > probe:
                        rest = probe
                if rest == len(todo):
                    yield from checked
            finally:
                if checks is not None:
                    checks.close(todo if every_record and rest == len(todo) else None)
                    stats.hits += checks.hits
                    stats.misses += checks.misses
                    stats.warnings += checks.warnings
        if rest < len(todo):
            stats.workers = jobs

            def moved(done: int, total: int) -> None:
                if progress:
                    progress(rest + done, rest + total)

            yield from iter_parallel(repo, todo[rest:], jobs, moved, cache, stats, form, whole)
            if cache is not None and every_record:
                _prune(repo, catalogue, cache, todo, stats)


def _reporting(
    items: Iterator[RecordResult | PreRendered], progress: Callable[[int, int], None], total: int
) -> Iterator[RecordResult | PreRendered]:
    for i, item in enumerate(items, 1):
        yield item
        progress(i, total)


def _prune(
    repo: Repository, catalogue: Catalogue, cache: CacheSpec, todo: Sequence[str], stats: CacheStats
) -> None:
    from roofbot.cached import CachedChecks

    checks = CachedChecks(repo, catalogue, cache)
    checks.close(todo)
    stats.warnings += checks.warnings


def calibration_ids(repo: Repository, run: bool = True) -> frozenset[str]:
    """The ids of the calibration set (none when calibration is not `run`): the records a
    streamed report keeps whole for `calibration_of`."""
    return frozenset(spec.id for spec in repo.config.calibration) if run else frozenset()


def calibration_of(
    repo: Repository, catalogue: Catalogue, seen: Mapping[str, RecordResult], run: bool = True
) -> Calibration:
    """Calibrate with the results already at hand, checking the calibration records missing
    from them (found by id, without reading the corpus). `run=False`: a calibration that
    did not run (`--no-calibration`)."""
    if not run or not repo.config.calibration:
        return Calibration(False, repo.config.tolerance_pp)
    by_id = dict(seen)
    for spec in repo.config.calibration:
        if spec.id not in by_id:
            data = repo.find_by_id(spec.id)
            if data is not None:
                path = repo.path_for_id(spec.id) or spec.id
                by_id[spec.id] = check_record(
                    data,
                    path,
                    catalogue,
                    repo.config,
                    repo.find_by_id,
                    repo.siblings_read(catalogue),
                )
    return calibrate(repo.config, by_id)


def todo_paths(repo: Repository, paths: Iterable[str] | None) -> list[str]:
    return list(paths) if paths is not None else repo.record_paths()


def run_check(
    repo: Repository,
    paths: Iterable[str] | None = None,
    calibration: bool = True,
    progress: Progress | None = None,
    jobs: int = 1,
    cache: CacheSpec | None = None,
    stats: CacheStats | None = None,
) -> Report:
    """Check `paths` (default: every record) and calibrate; the whole report in memory."""
    catalogue = repo.catalogue()
    todo = todo_paths(repo, paths)
    results = list(
        iter_results(
            repo, catalogue, todo, jobs, progress, cache, stats, every_record=paths is None
        )
    )
    cal = calibration_of(repo, catalogue, {r.id: r for r in results}, calibration)
    if paths is None and repo.catalogue_problems:  # a sweep reports every catalogue file
        from roofbot.catalogue_check import catalogue_errors

        results += catalogue_errors(repo.catalogue_problems)
    return Report(
        records=tuple(results),
        calibration=cal,
        fail_on=repo.config.fail_on,
        deprecated_fail=repo.config.deprecated_fail,
        messages=tuple(repo.messages),
    )
