"""Wiring the pure core to a repository: read each record (every failure an `error`
result), check it, calibrate the instrument, and return the report. No printing."""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

from roofbot.adapters.jsonfile import MAX_BYTES, RecordFileError, parse_record_bytes
from roofbot.adapters.repo import Repository
from roofbot.adapters.tree import TreeError, safe_relpath
from roofbot.core.calibration import calibrate
from roofbot.core.catalogue import Catalogue
from roofbot.core.check import SiblingLookup, check_record, error_result
from roofbot.core.results import Calibration, RecordResult, Report

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


def iter_results(
    repo: Repository,
    catalogue: Catalogue,
    todo: Sequence[str],
    progress: Progress | None = None,
) -> Iterator[RecordResult]:
    """Each path's result, in order, one at a time; `progress(done, total)` after each."""
    for done, path in enumerate(todo, 1):
        yield check_path(repo, catalogue, path)
        if progress:
            progress(done, len(todo))


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
) -> Report:
    """Check `paths` (default: every record) and calibrate; the whole report in memory."""
    catalogue = repo.catalogue()
    todo = todo_paths(repo, paths)
    results = list(iter_results(repo, catalogue, todo, progress))
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
