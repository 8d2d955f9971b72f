"""The catalogue, validated as the repository's own CI validates it: every catalogue file
against `schemas/<type>.schema.json` (and readable, its id its file name). A failure is
reported on that catalogue file as an `error` row, in the words a benchmark record's error
gets, so `fail_on` decides as for records: in a sweep, every failing catalogue file; in a pull
request, those it adds or changes and those its checked records rest on. A schema-invalid
part is still used, and a check resting on one says so."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from roofbot.core.check import error_result
from roofbot.core.results import Message, RecordResult, Report, Verdict

if TYPE_CHECKING:
    from roofbot.adapters.repo import Repository
    from roofbot.core.changes import FileChange

_PATH = re.compile(r"[\w.\-/]+\.json")


def catalogue_errors(
    problems: Mapping[str, str], paths: Iterable[str] | None = None
) -> list[RecordResult]:
    """The error rows of the failing catalogue files among `paths` (default: all), sorted."""
    chosen = sorted(problems if paths is None else {p for p in paths if p in problems})
    return [error_result(_stem(p), p, problems[p]) for p in chosen]


def rests_on(result: RecordResult, problems: Mapping[str, str]) -> list[str]:
    """The failing catalogue files a record's inputs came from (their sources name them)."""
    if not problems:
        return []
    found: dict[str, None] = {}
    for _, inp in result.inputs:
        for path in _PATH.findall(inp.source):
            if path in problems:
                found.setdefault(path, None)
    return list(found)


def mark(result: RecordResult, problems: Mapping[str, str]) -> RecordResult:
    """`result` with a warning for each failing catalogue file its check rests on."""
    if not problems or result.verdict is Verdict.ERROR:
        return result
    bad = rests_on(result, problems)
    if not bad:
        return result
    notes = tuple(Message("warning", f"rests on {p}, which is invalid: {problems[p]}") for p in bad)
    return dataclasses.replace(result, messages=(*result.messages, *notes))


def invalid_changed_catalogue(repo: Repository, changed: Iterable[FileChange]) -> list[str]:
    """The failing catalogue files a pull request adds or changes (the catalogue is built
    only when it changes a catalogue file)."""
    from roofbot.core.changes import catalogue_kind

    paths = [f.path for f in changed if f.status != "deleted"]
    touched = [p for p in paths if catalogue_kind(p, repo.config.catalogue)]
    if not touched:
        return []
    repo.catalogue()
    return [p for p in touched if p in repo.catalogue_problems]


def with_catalogue_errors(report: Report, repo: Repository, changed: Iterable[str]) -> Report:
    """A pull request's report with the error rows of the failing catalogue files it
    changes and of those its checked records rest on."""
    problems = repo.catalogue_problems
    if not problems:
        return report
    wanted = dict.fromkeys(changed)
    for r in report.records:
        wanted.update(dict.fromkeys(rests_on(r, problems)))
    rows = catalogue_errors(problems, wanted)
    if not rows:
        return report
    return dataclasses.replace(report, records=(*report.records, *rows))


def _stem(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name[:-5] if name.endswith(".json") else name
