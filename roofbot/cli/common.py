"""What the commands share: the `--repo` option, opening the repository a command names (its
root found, its config and pins checked), the records named on the command line, and turning
what the user got wrong into click's usage error (exit 2)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from roofbot.adapters.repo import Repository
    from roofbot.core.results import RecordResult, Verdict

repo_option = click.option(
    "--repo",
    type=click.Path(file_okay=False, path_type=Path),
    default=".",
    show_default=True,
    help="The records repository, or a folder inside it: its root is the nearest folder at or "
    "above it holding .roofbot.yml or data/benchmarks/.",
)
"""The option every command that reads a repository shares."""


@contextmanager
def usage_errors(*errors: type[Exception]) -> Iterator[None]:
    """What the user named is not there (LocateError, and any of `errors`): click's usage
    error with the same words, so the command exits 2."""
    from roofbot.locate import LocateError

    caught: tuple[type[Exception], ...] = (LocateError, *errors)
    try:
        yield
    except caught as e:
        raise click.UsageError(str(e)) from None


def neutral(text: str) -> str:
    """A message quoting a file's text, safe in a job log (no `::` or `##[` command)."""
    from roofbot.adapters.actions import neutralise

    return neutralise(text)


def _open(root: Path) -> Repository:
    from roofbot.adapters.repo import Repository
    from roofbot.core.config import ConfigError

    try:
        return Repository.open(root)
    except ConfigError as e:
        raise click.UsageError(neutral(str(e))) from None


def open_repository(repo: Path, *, records: bool = True) -> tuple[Path, Repository]:
    """The records repository at or above `repo` (its root and the repository), or exit 2
    when there is none, or (`records`) when its records globs match nothing."""
    from roofbot.locate import find_root, require_records
    from roofbot.pins import pin_problems

    with usage_errors():
        root = find_root(repo)
        opened = _open(root)
        require_records(opened, root, records=records)
    problems = pin_problems(opened)
    if problems:  # a pin that points at nothing: a configuration error, every line of it
        raise click.UsageError(f"{root / '.roofbot.yml'}: " + "; ".join(problems))
    return root, opened


def verdicts(text: str) -> frozenset[Verdict]:
    """`--fail-on`'s list, as the action's fail-on input reads it."""
    from roofbot.core.results import Verdict

    valid = {v.value: v for v in Verdict}
    names = [n.strip() for n in text.replace(",", " ").split()]
    bad = [n for n in names if n not in valid]
    if bad or not names:
        raise click.BadParameter(
            f"{', '.join(map(repr, bad)) or 'nothing'}: a list of {', '.join(valid)}",
            param_hint="--fail-on",
        )
    return frozenset(valid[n] for n in names)


def named_records(repository: Repository, names: Sequence[str], root: Path) -> list[str]:
    """The repository paths of the records named on the command line, each once: ids, paths
    (from the current folder or the root) or globs; exit 2 for one that names nothing."""
    from roofbot.locate import expand, is_glob, record_path

    out: list[str] = []
    with usage_errors():
        for name in names:
            if is_glob(name) and not Path(name).exists():
                out += expand(repository, name, root)
            else:
                out.append(record_path(repository, name, root))
    return list(dict.fromkeys(out))


def checked(repository: Repository, path: str) -> RecordResult:
    """One record checked against this repository's catalogue."""
    from roofbot.engine import check_path

    return check_path(repository, repository.catalogue(), path)


def file_reader(repository: Repository) -> Callable[[str], bytes | None]:
    """A record file's bytes for the report's line numbers (None where unreadable)."""
    from functools import partial

    from roofbot.adapters.jsonfile import MAX_BYTES
    from roofbot.adapters.tree import read_or_none

    return partial(read_or_none, repository.tree, limit=MAX_BYTES)
