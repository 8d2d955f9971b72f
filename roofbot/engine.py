"""Wiring the pure core to a repository: read each record (every failure an `error`
result), check it, calibrate the instrument, and return the report. No printing."""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

from roofbot.adapters.jsonfile import RecordFileError
from roofbot.adapters.repo import Repository
from roofbot.adapters.tree import TreeError, safe_relpath
from roofbot.core.calibration import calibrate
from roofbot.core.catalogue import Catalogue
from roofbot.core.check import check_record, error_result
from roofbot.core.results import Calibration, RecordResult, Report

Progress = Callable[[int, int], None]


def stem(path: str) -> str:
    return posixpath.splitext(posixpath.basename(path))[0]


def check_path(repo: Repository, catalogue: Catalogue, path: str) -> RecordResult:
    try:
        path = safe_relpath(path)
        parsed = repo.read(path)
    except (RecordFileError, TreeError) as e:
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
        return check_record(parsed.data, path, catalogue, repo.config, repo.find_by_id)
    except Exception as e:  # a bug in roofbot must cost one record, not the run
        return error_result(
            stem(path), path, f"roofbot could not check this record (a roofbot bug): {e!r}", status
        )


def iter_results(
    repo: Repository,
    catalogue: Catalogue,
    todo: Sequence[str],
    jobs: int = 1,
    progress: Progress | None = None,
) -> Iterator[RecordResult]:
    """Each path's result, in order, one at a time (a sweep need not hold them all). `jobs` > 1
    checks on that many processes where the tree allows it; the results are the same."""
    parallel = jobs > 1 and len(todo) >= 100
    if parallel:  # multiprocessing is only imported when asked for
        from roofbot.parallel import can_parallelise, iter_parallel

        parallel = can_parallelise(repo)
    if parallel:
        yield from iter_parallel(repo, todo, jobs, progress)
        return
    for i, p in enumerate(todo):
        yield check_path(repo, catalogue, p)
        if progress:
            progress(i + 1, len(todo))


def calibration_of(
    repo: Repository, catalogue: Catalogue, seen: Mapping[str, RecordResult]
) -> Calibration:
    """Calibrate with the results already at hand, checking the calibration records missing
    from them (found by id, without reading the corpus)."""
    if not repo.config.calibration:
        return Calibration(False, repo.config.tolerance_pp)
    by_id = dict(seen)
    for spec in repo.config.calibration:
        if spec.id not in by_id:
            data = repo.find_by_id(spec.id)
            if data is not None:
                path = repo.path_for_id(spec.id) or spec.id
                by_id[spec.id] = check_record(data, path, catalogue, repo.config, repo.find_by_id)
    return calibrate(repo.config, by_id)


def todo_paths(repo: Repository, paths: Iterable[str] | None) -> list[str]:
    return list(paths) if paths is not None else repo.record_paths()


def run_check(
    repo: Repository,
    paths: Iterable[str] | None = None,
    calibration: bool = True,
    progress: Progress | None = None,
    jobs: int = 1,
) -> Report:
    """Check `paths` (default: every record) and calibrate; the whole report in memory."""
    catalogue = repo.catalogue()
    results = list(iter_results(repo, catalogue, todo_paths(repo, paths), jobs, progress))
    cal = Calibration(False, repo.config.tolerance_pp)
    if calibration:
        cal = calibration_of(repo, catalogue, {r.id: r for r in results})
    return Report(
        records=tuple(results),
        calibration=cal,
        fail_on=repo.config.fail_on,
        deprecated_fail=repo.config.deprecated_fail,
        messages=tuple(repo.messages),
    )
