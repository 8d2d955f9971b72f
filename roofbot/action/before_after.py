"""The base's side of before and after: the records a pull request modifies or re-checks,
checked again at the base commit with the base's config, for `core.compare` to set beside the
PR's results. The I/O half; the comparison itself is pure (roofbot/core/compare.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from roofbot.adapters.git import GitError
from roofbot.adapters.repo import Repository
from roofbot.adapters.schemas import Schemas
from roofbot.adapters.tree import Tree, TreeError
from roofbot.catalogue_check import catalogue_errors
from roofbot.core.compare import Comparison, compare
from roofbot.core.config import Config, ConfigError
from roofbot.core.results import RecordResult, Report
from roofbot.engine import run_check


def base_paths(tree: Tree, paths: Sequence[str], renames: Mapping[str, str]) -> list[str]:
    """Where each of the PR's record paths was at the base (a renamed record under its old
    name), for those the base has."""
    out = []
    for p in paths:
        old = renames.get(p, p)
        try:
            if tree.exists(old):
                out.append(old)
        except (TreeError, OSError):
            continue
    return out


def compare_with_base(
    head: Report,
    base_tree: Tree,
    base_config: Config,
    schemas: Schemas,
    paths: Sequence[str],
    renames: Mapping[str, str],
    known: Mapping[str, RecordResult] | None = None,
    *,
    head_rows: frozenset[str] = frozenset(),
    touched: frozenset[str] = frozenset(),
) -> Comparison | None:
    """The PR's results beside the base's, or None when the base can't be read (the PR's
    report stands without its before). `known`: base results already in hand, by path (a
    catalogue edit's dependents, whose files the PR leaves alone, checked under the base's
    instrument by the check-twice): those are not checked again. `head_rows`: the failing
    catalogue files the PR's report has a row for; `touched`: the catalogue files the PR
    edits. The base's rows for both are set beside them: a file invalid at the base is not the
    PR's finding (unless it edits it), and one it makes valid is fixed."""

    known = known or {}
    try:
        repo = Repository(base_tree, base_config, schemas)
        before = base_paths(base_tree, [p for p in paths if p not in known], renames)
        base = run_check(repo, before, calibration=False) if before else None
        rows = []
        if head_rows or touched:
            repo.catalogue()  # built: the base's failing files are known
            rows = catalogue_errors(repo.catalogue_problems, head_rows | touched)
    except (TreeError, OSError, GitError, ConfigError):
        return None
    catalogue = head_rows | {r.path for r in rows}
    return compare(
        [*known.values(), *(base.records if base else ()), *rows], head.records, touched, catalogue
    )
