"""Where the command line can go wrong before any record is read: the repository's root, the
records it holds, and what a user names on the command line (a record's id or its path).

- The root is found the way git finds its own: from `--repo` (default: the current folder)
  upwards, the first folder holding `.roofbot.yml` or `data/benchmarks/`.
- A repository whose record globs match nothing is a usage error (exit 2), never `0 records,
  ok`.
- A record is named by its id or by its path; an unknown one gets "did you mean" from the
  ids that exist."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from roofbot.adapters.repo import CONFIG_NAME

if TYPE_CHECKING:
    from roofbot.adapters.repo import Repository

MARKERS = (CONFIG_NAME, "data/benchmarks")
"""What makes a folder a records repository's root: either is enough."""
GLOB_CHARS = frozenset("*?[")


class LocateError(ValueError):
    """What the user named is not there (the CLI's exit 2); the message says what to do."""


def is_root(folder: Path) -> bool:
    return (folder / CONFIG_NAME).is_file() or (folder / "data" / "benchmarks").is_dir()


def find_root(start: Path) -> Path:
    """The records repository holding `start`: `start` or the nearest folder above it with a
    `.roofbot.yml` or a `data/benchmarks/` folder. LocateError when there is none."""
    if not start.exists():
        raise LocateError(f"--repo {start}: no such folder")
    if not start.is_dir():
        raise LocateError(f"--repo {start}: not a folder")
    here = start.resolve()
    for folder in (here, *here.parents):
        if is_root(folder):
            return folder if folder != here else start
    raise LocateError(
        f"no records repository at or above {start}: no folder there holds {CONFIG_NAME} or "
        "data/benchmarks/ (run roofbot inside the repository, or give --repo its root)"
    )


def require_records(repository: Repository, root: Path, *, records: bool = True) -> None:
    """LocateError when a records glob matches no file (with `records`), or when neither
    records nor a catalogue are there: a wrong root or a wrong glob, said, rather than
    `0 records, ok`."""
    patterns = repository.config.records
    if len(patterns) == 1:  # the sweep's own listing, listed once
        empty = [] if repository.record_paths() else list(patterns)
    else:
        empty = [p for p in patterns if not repository.tree.glob(p)]
    if not empty:
        return
    if len(empty) == len(repository.config.records) and not any(
        repository.tree.glob(p) for pats in repository.config.catalogue.values() for p in pats
    ):
        raise LocateError(
            f"{root} holds no benchmark records ({', '.join(empty)}) and no catalogue "
            "(data/accelerators/, data/models/, ...): is it a records repository's root?"
        )
    if not records:
        return
    globs = ", ".join(repr(p) for p in empty)
    raise LocateError(
        f"the records glob {globs} matches no file in {root} "
        f"(records: in {CONFIG_NAME}; default data/benchmarks/*.json)"
    )


def record_ids(repository: Repository) -> list[str]:
    """The ids of the repository's records, as their file names give them."""
    return [posixpath.splitext(posixpath.basename(p))[0] for p in repository.record_paths()]


def did_you_mean(name: str, ids: Iterable[str]) -> str:
    """ " (did you mean a or b?)" from the closest of `ids`, or ""."""
    import difflib

    close = difflib.get_close_matches(name, [i for i in ids if i != name], n=3, cutoff=0.6)
    if not close:
        return ""
    return " (did you mean " + " or ".join(close) + "?)"


def looks_like_id(name: str) -> bool:
    return "/" not in name and "\\" not in name and not name.endswith(".json")


def record_path(repository: Repository, name: str, root: Path, cwd: Path | None = None) -> str:
    """The repository-relative path of the record `name` names: an id, a path relative to the
    current folder, or a path relative to the root. LocateError with "did you mean" when
    there is no such record."""
    here = (cwd or Path.cwd()).resolve()
    given = Path(name)
    on_disk = given if given.is_absolute() else here / given
    if on_disk.exists():
        return inside(on_disk, root, name)
    if repository.tree.exists(name):
        return name
    if looks_like_id(name):
        found = repository.path_for_id(name)
        if found is not None:
            return found
        raise LocateError(
            f"no benchmark record with id {name!r} in {root}"
            + did_you_mean(name, record_ids(repository))
        )
    stem = posixpath.splitext(posixpath.basename(name))[0]
    hint = did_you_mean(stem, record_ids(repository))
    raise LocateError(f"no such file: {name} (in {here} or {root}){hint}")


def inside(path: Path, root: Path, name: str) -> str:
    """`path`, a file on disk that the user called `name`, relative to the repository's root;
    LocateError when it is outside the repository."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        raise LocateError(f"{name} is not inside the repository {root}") from None


def changed_path(name: str, root: Path) -> str:
    """A changed file as pre-commit names it (from the current folder, which is the root), or
    absolute, relative to the root; a name that is not on disk (a deletion) is kept as given."""
    given = Path(name)
    return inside(given, root, name) if given.is_absolute() or given.exists() else name


def expand(repository: Repository, name: str, root: Path) -> list[str]:
    """A record glob given on the command line (quoted, or left by a shell that matched
    nothing), expanded in the repository; LocateError when it matches no file."""
    found = repository.tree.glob(name)
    if not found:
        raise LocateError(f"{name} matches no file in {root}")
    return found


def is_glob(name: str) -> bool:
    return any(c in GLOB_CHARS for c in name)
