"""`roofbot check`: check records (all, the ones named, or those a change set touches, as the
pre-commit hook passes them) and print the report in the format asked for. Only the chosen
format's renderer is imported."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from roofbot.cli.common import (
    file_reader,
    named_records,
    neutral,
    open_repository,
    repo_option,
    usage_errors,
    verdicts,
)
from roofbot.render.formats import FORMATS

if TYPE_CHECKING:
    from roofbot.adapters.repo import Repository
    from roofbot.core.results import Report


@click.command()
@click.argument("paths", nargs=-1)
@repo_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default=None,
    help="Output format. [default: text; github when GITHUB_ACTIONS is set]",
)
@click.option("--no-calibration", is_flag=True, help="Skip the calibration set.")
@click.option(
    "--fail-on",
    "fail_on",
    default=None,
    metavar="VERDICTS",
    help="The verdicts that fail the run, comma- or space-separated (error, violation, suspect, "
    "unchecked, pass, skipped), as the action's fail-on input. [default: fail_on in "
    ".roofbot.yml, else violation,error]",
)
@click.option(
    "--changed",
    is_flag=True,
    help="PATHS are changed files (as pre-commit passes them): check the benchmark records "
    "among them and the records that reference a changed catalogue record; a changed "
    ".roofbot.yml or schema checks every record; other files are ignored.",
)
@click.option(
    "--base",
    "base_ref",
    default=None,
    metavar="REF",
    help="With --changed: the commit the changes are judged against, as a pull request into "
    "it is (a finding it already has does not fail the run). [default: $PRE_COMMIT_FROM_REF, "
    "else HEAD]",
)
@click.option(
    "-q", "--quiet", is_flag=True, help="Only what fails the run and the summary; no progress bar."
)
@click.option(
    "-v", "--verbose", is_flag=True, help="Every record with its messages, traps and location."
)
def check(
    paths: tuple[str, ...],
    repo: Path,
    fmt: str | None,
    no_calibration: bool,
    fail_on: str | None,
    changed: bool,
    base_ref: str | None,
    quiet: bool,
    verbose: bool,
) -> None:
    """Check PATHS (default: every benchmark record) and exit 0 ok, 1 not ok, 2 usage error.

    Example: roofbot check --repo fixtures data/benchmarks/mpt7b-a100-bs1-per-user-decode-tps.json
    """
    if quiet and verbose:
        raise click.UsageError("--quiet and --verbose exclude each other")
    if fmt is None:
        fmt = "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    root, repository = open_repository(repo)
    if fail_on is not None:
        import dataclasses

        repository.config = dataclasses.replace(repository.config, fail_on=verdicts(fail_on))
    if base_ref is not None and not changed:
        raise click.UsageError("--base goes with --changed")
    if changed:
        from roofbot.locate import changed_path

        with usage_errors():
            named = [changed_path(p, root) for p in paths]
        if judged := _judged_change(root, named, base_ref, fail_on):
            report, held = judged
            text = render(fmt, report, repository, root, quiet=quiet, verbose=verbose)
            click.echo(neutral(text) if fmt in ("text", "markdown") else text, nl=False)
            if existing := report.existing():
                n = len(existing)
                click.echo(f"roofbot: {n} finding{'s' if n != 1 else ''} already at the base, not "
                           f"this change's (they don't fail it): {', '.join(r.id for r in existing)}",
                           err=True)  # fmt: skip
            if held:
                click.echo(f"roofbot: {held}", err=True)
            sys.exit(0 if report.ok and not held else 1)
        rels: list[str] | None = changed_records(repository, named)
    else:
        rels = named_records(repository, paths, root) or None
    report = _run(repository, rels, calibration=not no_calibration, quiet=quiet)
    text = render(fmt, report, repository, root, quiet=quiet, verbose=verbose)
    # text and Markdown print a record's paths and ids: never a workflow command in a job log
    # (json and sarif are data; github escapes every value itself)
    click.echo(neutral(text) if fmt in ("text", "markdown") else text, nl=False)
    sys.exit(0 if report.ok else 1)


def _judged_change(
    root: Path, named: list[str], base_ref: str | None, fail_on: str | None
) -> tuple[Report, str | None] | None:
    """The change the working tree makes to `named` (as the pre-commit hook passes them),
    judged as `roofbot pr` judges a pull request into `base_ref` (else $PRE_COMMIT_FROM_REF,
    else HEAD): its report and, where the run is held, why. None where that can't be done (no
    git repository at `root`, no such commit, or a named file the working tree does not
    change, as `pre-commit run --all-files` passes them): every finding then counts."""
    if not (root / ".git").exists():  # not the top of a git repository: nothing to judge against
        if base_ref is not None:
            raise click.UsageError(f"--base: {root} is not the top of a git repository")
        return None
    from roofbot.adapters.git import GitError, worktree_changes
    from roofbot.preview import PreviewError, commit_of, git_top, judge_worktree

    ref = base_ref or os.environ.get("PRE_COMMIT_FROM_REF") or "HEAD"
    try:
        if git_top(root).resolve() != root.resolve():
            return None
        base = commit_of(root, ref)
        files = worktree_changes(root, base)
    except (PreviewError, GitError):
        if base_ref is not None:
            raise click.UsageError(f"--base: {base_ref!r} names no commit in {root}") from None
        return None
    wanted = set(named)
    mine = [f for f in files if f.path in wanted or (f.old_path or "") in wanted]
    if not mine or wanted - {p for f in mine for p in (f.path, f.old_path) if p}:
        return None
    verdict_set = verdicts(fail_on) if fail_on is not None else None
    outcome = judge_worktree(root, base, mine, verdict_set, base_ref=ref)
    if outcome.report is None:
        return None
    held = outcome.description if outcome.state == "failure" and outcome.report.ok else None
    return outcome.report, held


def _run(
    repository: Repository, rels: list[str] | None, *, calibration: bool, quiet: bool
) -> Report:
    """The check of `rels` (None: every record), with a progress bar on a terminal."""
    from roofbot.engine import run_check
    from roofbot.progress import progress_for

    bar = progress_for(sys.stderr, quiet)
    try:
        return run_check(repository, rels, calibration=calibration, progress=bar)
    finally:
        if bar is not None:
            bar.close()


def render(
    fmt: str, report: Report, repository: Repository, root: Path, *, quiet: bool, verbose: bool
) -> str:
    """The report in `fmt`, with the repository's trap links and its files' line numbers."""
    from roofbot.core.changes import catalogue_kind
    from roofbot.links import gotcha_paths
    from roofbot.render import formats

    links = gotcha_paths(repository.config, repository.catalogue())
    read, config = file_reader(repository), _config_text(root)
    color = sys.stdout.isatty()
    return formats.render(
        fmt, report, links, read, config, color=color, quiet=quiet, verbose=verbose,
        kind_of=lambda path: catalogue_kind(path, repository.config.catalogue),
    )  # fmt: skip


def _config_text(root: Path) -> str | None:
    """`.roofbot.yml`'s text, for the lines of findings about it (None: no such file)."""
    cfg = root / ".roofbot.yml"
    return cfg.read_text("utf-8", "replace") if cfg.is_file() and not cfg.is_symlink() else None


def changed_records(repository: Repository, rels: list[str]) -> list[str]:
    """The records a change set touches: changed records, and the records referencing a
    changed catalogue record; every record when the config or a schema changed."""
    from roofbot.adapters.repo import dependents
    from roofbot.core.changes import changed_references

    repository.catalogue()  # built: its failing files are known
    problems = repository.catalogue_problems
    if any(p == ".roofbot.yml" or p.startswith("schemas/") for p in rels):
        return list(repository.record_paths()) + sorted(problems)
    records = [p for p in rels if repository.is_record_path(p)]
    refs = changed_references((p for p in rels if p not in records), repository.config.catalogue)
    invalid = [p for p in rels if p in problems]  # reported on the catalogue file itself
    if not refs:
        return records + invalid
    others = [p for p in repository.record_paths() if p not in records]
    return records + dependents(repository.tree, others, refs, repository.catalogue()) + invalid
