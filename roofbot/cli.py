"""The command line: `roofbot check`, `explain`, `parts`, `coverage` (and `pr`, the action)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from roofbot import __version__

if TYPE_CHECKING:
    from roofbot.adapters.repo import Repository

FORMATS = ("text", "json", "markdown", "sarif", "github")


def _open(repo: Path):  # type: ignore[no-untyped-def]
    from roofbot.adapters.repo import Repository
    from roofbot.core.config import ConfigError

    try:
        return Repository.open(repo)
    except ConfigError as e:
        raise click.UsageError(_neutral(str(e))) from None


def _neutral(text: str) -> str:
    """A message quoting a file's text, safe in a job log (no `::` or `##[` command)."""
    from roofbot.adapters.actions import neutralise

    return neutralise(text)


repo_option = click.option(
    "--repo",
    type=click.Path(file_okay=False, path_type=Path),
    default=".",
    show_default=True,
    help="The records repository (its root folder).",
)
"""The option every command that reads a repository shares."""


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="roofbot")
def cli() -> None:
    """Check LLM-inference benchmark records against the roofline ceilings that apply."""


@cli.command()
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
    "--jobs",
    "-j",
    type=click.IntRange(0, 64),
    default=0,
    help="Check on N processes. [default: 0, as many as there are CPUs (up to 8) for a "
    "sweep of 1,000 records or more, else 1]",
)
@click.option(
    "--changed",
    is_flag=True,
    help="PATHS are changed files (as pre-commit passes them): check the benchmark records "
    "among them and the records that reference a changed catalogue record; a changed "
    ".roofbot.yml or schema checks every record; other files are ignored.",
)
@click.option(
    "--cache/--no-cache",
    default=True,
    show_default=True,
    help="Reuse the results of records unchanged since the last run (and unchanged everything "
    "they depend on: roofbot, the config, the catalogue, the schemas, the records they name).",
)
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where the result cache lives. [default: $ROOFBOT_CACHE_DIR, else "
    "$XDG_CACHE_HOME/roofbot, else ~/.cache/roofbot]",
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
    jobs: int,
    changed: bool,
    cache: bool,
    cache_dir: Path | None,
    quiet: bool,
    verbose: bool,
) -> None:
    """Check PATHS (default: every benchmark record) and exit 0 ok, 1 not ok, 2 usage error.

    Example: roofbot check --repo fixtures data/benchmarks/mpt7b-a100-bs1-per-user-decode-tps.json
    """
    from roofbot.engine import CacheStats, run_check
    from roofbot.links import gotcha_paths
    from roofbot.progress import progress_for

    if quiet and verbose:
        raise click.UsageError("--quiet and --verbose exclude each other")
    if fmt is None:
        fmt = "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    repository = _open(repo)
    rels: list[str] | None = [_relative(p, repo) for p in paths] or None
    if changed:
        rels = _changed_records(repository, rels or [])
    spec = _cache_spec(repository, repo, cache_dir) if cache else None
    stats = CacheStats()
    bar = progress_for(sys.stderr, quiet)
    if fmt in ("json", "text"):  # streamed: no report of every result is built
        try:
            if fmt == "json":
                ok = _stream_json(repository, rels, not no_calibration, jobs, bar, spec, stats)
            else:
                ok = _stream_text(
                    repository, rels, not no_calibration, jobs, bar, spec, stats,
                    sys.stdout.isatty(), quiet, verbose,
                )  # fmt: skip
        finally:
            if bar is not None:
                bar.close()
        _cache_line(spec, stats, verbose, quiet)
        sys.exit(0 if ok else 1)
    try:
        report = run_check(
            repository,
            rels,
            calibration=not no_calibration,
            progress=bar,
            jobs=jobs,
            cache=spec,
            stats=stats,
        )
    finally:
        if bar is not None:
            bar.close()
    _cache_line(spec, stats, verbose, quiet)
    links = gotcha_paths(repository.config, repository.catalogue())
    cfg = repo / ".roofbot.yml"
    cfg_text = cfg.read_text("utf-8", "replace") if cfg.is_file() and not cfg.is_symlink() else None
    text = _render(fmt, report, repository, links, cfg_text, quiet, verbose)
    # text and Markdown print a record's paths and ids: never a workflow command in a job log
    # (json and sarif are data; github escapes every value itself)
    click.echo(_neutral(text) if fmt in ("text", "markdown") else text, nl=False)
    sys.exit(0 if report.ok else 1)


def _cache_spec(repository, root: Path, folder: Path | None):  # type: ignore[no-untyped-def]
    """The result cache for a working folder (a git tree is never cached)."""
    from roofbot.adapters.cache import CacheSpec, default_dir
    from roofbot.adapters.tree import FolderTree

    if not isinstance(repository.tree, FolderTree):
        return None
    return CacheSpec.for_repo(repository, folder or default_dir(), root)


def _cache_line(spec, stats, verbose: bool, quiet: bool) -> None:  # type: ignore[no-untyped-def]
    """What the cache did, on stderr: why it was off (unless -q), its counts (with -v)."""
    if not quiet:
        for warning in dict.fromkeys(stats.warnings):
            click.echo(f"roofbot: {_neutral(warning)}", err=True)
    if spec is not None and verbose:
        click.echo(
            f"roofbot: {stats.hits:,} result(s) from the cache, {stats.misses:,} checked "
            f"({spec.db})",
            err=True,
        )
    if verbose and stats.workers > 1:
        click.echo(f"roofbot: checked on {stats.workers} processes", err=True)


def _stream_json(  # type: ignore[no-untyped-def]
    repository, rels: list[str] | None, calibration: bool, jobs: int, bar, cache, stats, out=None
) -> bool:
    from roofbot.core.results import Calibration, Message, RecordResult
    from roofbot.engine import calibration_ids, calibration_of, iter_kept, todo_paths
    from roofbot.links import gotcha_paths
    from roofbot.render import json_report
    from roofbot.render.kept import JsonForm

    cfg = repository.config
    catalogue = repository.catalogue()
    gotchas = gotcha_paths(cfg, catalogue)
    wanted = calibration_ids(repository, calibration)

    def finish(kept: list[RecordResult]) -> tuple[Calibration, list[Message]]:
        seen = {r.id: r for r in kept}
        return calibration_of(repository, catalogue, seen, calibration), repository.messages

    out = out or sys.stdout
    ok = json_report.stream(
        out,
        iter_kept(
            repository,
            catalogue,
            todo_paths(repository, rels),
            JsonForm(gotchas),
            wanted,
            jobs,
            bar,
            cache,
            stats,
            every_record=rels is None,
        ),
        finish,
        json_report.Tally(cfg.fail_on, cfg.deprecated_fail),
        gotchas,
        keep_id=wanted.__contains__,
    )
    out.flush()
    return ok


def _stream_text(  # type: ignore[no-untyped-def]
    repository,
    rels,
    calibration: bool,
    jobs: int,
    bar,
    cache,
    stats,
    color,
    quiet,
    verbose,
    out=None,
) -> bool:
    """The text report without a report of every result: each record becomes its lines as
    it comes (from the cache's kept lines where it has them), then all are sorted."""
    from roofbot.core.results import RecordResult
    from roofbot.engine import (
        calibration_ids,
        calibration_of,
        iter_kept,
        iter_results,
        todo_paths,
    )
    from roofbot.render.findings import has_findings, record_findings
    from roofbot.render.json_report import PreRendered, Tally
    from roofbot.render.kept import TextForm
    from roofbot.render.text import TextEntry, TextSummary, assemble, kept_entry, text_entry

    cfg = repository.config
    catalogue = repository.catalogue()
    wanted = calibration_ids(repository, calibration)
    todo = todo_paths(repository, rels)
    every = rels is None
    form = TextForm(cfg.fail_on, cfg.deprecated_fail)
    items = (  # verbose lines are not kept: those runs build every result
        iter_results(repository, catalogue, todo, jobs, bar, cache, stats, every)
        if verbose
        else iter_kept(repository, catalogue, todo, form, wanted, jobs, bar, cache, stats, every)
    )
    read = _reader(repository)
    tally = Tally(cfg.fail_on, cfg.deprecated_fail)
    entries: list[TextEntry] = []
    kept: dict[str, RecordResult] = {}
    for item in items:
        failing = tally.add(item)
        if isinstance(item, PreRendered):
            entries.append(kept_entry(item.id, item.verdict, item.deprecated, failing, item.text))
            result = item.result
        else:
            raw = read(item.path) if has_findings(item) else None
            entries.append(text_entry(item, failing, verbose, record_findings(item, raw, failing)))
            result = item
        if result is not None and result.id in wanted:
            kept[result.id] = result
    cal = calibration_of(repository, catalogue, kept, calibration)
    ok = tally.failing == 0 and cal.ok
    summary = TextSummary(
        tally.by_verdict,
        len(entries),
        tally.checked,
        tally.token_rate,
        cal,
        repository.messages,
        ok,
        cfg.deprecated_fail,
    )
    (out or sys.stdout).write(_neutral(assemble(entries, summary, color, quiet)))
    return ok


def _render(  # type: ignore[no-untyped-def]
    fmt: str,
    report,
    repository,
    links: dict[str, str | None],
    config_text: str | None,
    quiet: bool,
    verbose: bool,
) -> str:
    from roofbot.render.findings import by_record, findings

    if fmt == "json":
        from roofbot.render import json_report

        return json_report.dumps(report, links)
    if fmt == "markdown":
        from roofbot.render.markdown import render_report

        return render_report(report, links) + "\n"
    items = findings(report, _reader(repository), config_text)
    if fmt == "sarif":
        from roofbot.render import sarif

        return sarif.dumps(items, links, report.ok)
    if fmt == "github":
        from roofbot.render.github import render_github

        return render_github(report, items, quiet, verbose)
    from roofbot.render.text import render_text

    return render_text(
        report, color=sys.stdout.isatty(), verbose=verbose, quiet=quiet, found=by_record(items)
    )


def _reader(repository: Repository) -> Callable[[str], bytes | None]:
    """A record file's bytes for the report's line numbers (None where unreadable)."""
    from functools import partial

    from roofbot.adapters.jsonfile import MAX_BYTES
    from roofbot.adapters.tree import read_or_none

    return partial(read_or_none, repository.tree, limit=MAX_BYTES)


def _changed_records(repository, rels: list[str]) -> list[str]:  # type: ignore[no-untyped-def]
    """The records a change set touches: changed records, and the records referencing a
    changed catalogue record; every record when the config or a schema changed."""
    from roofbot.adapters.git import catalogue_kind, dependents
    from roofbot.engine import stem

    if any(p == ".roofbot.yml" or p.startswith("schemas/") for p in rels):
        return list(repository.record_paths())
    records = [p for p in rels if repository.is_record_path(p)]
    refs = {
        (kind, stem(p))
        for p in rels
        if p not in records and (kind := catalogue_kind(p, repository.config.catalogue))
    }
    if not refs:
        return records
    others = [p for p in repository.record_paths() if p not in records]
    return records + dependents(repository.tree, others, refs, repository.catalogue())


@cli.command()
def schema() -> None:
    """Print the JSON Schema of `.roofbot.yml` (draft-07), generated from the loader's table.

    Example: roofbot schema > .roofbot.schema.json, then start .roofbot.yml with
    `# yaml-language-server: $schema=.roofbot.schema.json` so editors check it as you type.
    """
    import json

    from roofbot.core.config import json_schema

    click.echo(json.dumps(json_schema(), indent=2))


@cli.command()
@click.argument("paths", nargs=-1)
@repo_option
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default="roofbot-plots",
    show_default=True,
    help="Folder the charts are written to.",
)
@click.option(
    "--record",
    "record_ids",
    multiple=True,
    help="Also draw this record's batch sweep (repeatable): sweep-<id>.png/.svg.",
)
@click.option(
    "--image-format",
    "formats",
    type=click.Choice(("png", "svg")),
    multiple=True,
    help="Image format(s) to write (repeatable). [default: png and svg]",
)
def plot(
    paths: tuple[str, ...],
    repo: Path,
    out_dir: Path,
    record_ids: tuple[str, ...],
    formats: tuple[str, ...],
) -> None:
    """Draw the roofline charts: PATHS (default: every record) at their percent of the roof
    that binds them (roofline.png/.svg), and each --record's batch sweep. Needs the [plot]
    extra (matplotlib).

    Example: roofbot plot --repo fixtures --out plots --record mpt7b-a100-bs64-aggregate-output-tps
    """
    from roofbot.engine import check_path, run_check
    from roofbot.plot import FORMATS, PlotUnavailable, corpus_chart, save, sweep_chart

    repository = _open(repo)
    rels = [_relative(p, repo) for p in paths] or None
    chosen = formats or FORMATS
    try:
        report = run_check(repository, rels, calibration=False)
        cal = [c.id for c in repository.config.calibration]
        written = save(corpus_chart(report, cal), out_dir / "roofline", chosen)
        for rid in record_ids:
            path = repository.path_for_id(rid)
            if path is None:
                raise click.UsageError(f"no benchmark record with id {rid!r} in {repo}")
            result = check_path(repository, repository.catalogue(), path)
            try:
                fig = sweep_chart(result)
            except ValueError as e:
                raise click.UsageError(str(e)) from None
            written += save(fig, out_dir / f"sweep-{rid}", chosen)
    except PlotUnavailable as e:
        raise click.UsageError(str(e)) from None
    for w in written:
        click.echo(str(w))


@cli.command()
@click.argument("record_id")
@repo_option
def explain(record_id: str, repo: Path) -> None:
    """Show one record's arithmetic step by step, each input with where it came from.

    Example: roofbot explain --repo fixtures mpt7b-a100-bs64-aggregate-output-tps
    """
    from roofbot.engine import check_path
    from roofbot.render.text import explain_record

    repository = _open(repo)
    path = repository.path_for_id(record_id)
    if path is None:
        raise click.UsageError(f"no benchmark record with id {record_id!r} in {repo}")
    result = check_path(repository, repository.catalogue(), path)
    click.echo(explain_record(result), nl=False)


@cli.command()
@click.argument("query", required=False, default="")
@repo_option
def parts(query: str, repo: Path) -> None:
    """List the accelerator catalogue as roofbot resolves it (bandwidth, dense peaks).

    Example: roofbot parts --repo fixtures a100
    """
    from roofbot.core.catalogue import slug

    cat = _open(repo).catalogue()
    q = slug(query)
    rows = [
        a
        for a in sorted(cat.accelerators.values(), key=lambda a: a.id)
        if not q or q in a.id or q in slug(a.name)
    ]
    for a in rows:
        bw = f"{a.bandwidth_gbps:g} GB/s" if a.bandwidth_gbps else "bandwidth ?"
        dense = sorted({(r.precision, r.tflops) for r in a.flops if r.dense}, key=lambda x: -x[1])
        peaks = ", ".join(f"{p} {t:g}" for p, t in dense[:4]) or "no dense flops"
        sparse = [r.precision for r in a.flops if not r.dense]
        extra = (
            f"  (sparse only: {', '.join(sorted(set(sparse) - {p for p, _ in dense}))})"
            if set(sparse) - {p for p, _ in dense}
            else ""
        )
        click.echo(f"{a.id:<40} {bw:>14}  {peaks}{extra}")
    click.echo(f"{len(rows)} part(s)")


@cli.command()
@repo_option
@click.option(
    "--format", "fmt", type=click.Choice(("text", "json")), default="text", show_default=True
)
def coverage(repo: Path, fmt: str) -> None:
    """Which token-rate records get which roof, and what the unchecked ones lack.

    Example: roofbot coverage --repo fixtures
    """
    import json

    from roofbot.core.results import Verdict
    from roofbot.engine import run_check

    report = run_check(_open(repo), calibration=False)
    rows = [r for r in report.records if r.token_rate]
    if fmt == "json":
        click.echo(
            json.dumps(
                {
                    "token_rate_records": report.token_rate_records,
                    "checked": report.checked,
                    "records": [
                        {
                            "id": r.id,
                            "roofs": [c.check.value for c in r.checks if c.applies],
                            "lacks": list(r.lacks),
                        }
                        for r in rows
                    ],
                },
                indent=2,
            )
        )
        return
    for r in sorted(rows, key=lambda r: (not r.checked, r.id)):
        roofs = ", ".join(c.check.value for c in r.checks if c.applies) or "-"
        click.echo(f"{r.id[:64]:<64} {roofs}")
        if r.verdict is Verdict.UNCHECKED:
            for lack in r.lacks:
                click.echo(f"{'':<8}lacks {lack}")
    pct = 100 * report.checked / report.token_rate_records if report.token_rate_records else 100.0
    click.echo(
        f"coverage: {report.checked} of {report.token_rate_records} token-rate records "
        f"({pct:.1f}%) get an applied roof"
    )


def _relative(path: str, repo: Path) -> str:
    p = Path(path)
    if p.is_absolute() or p.exists():
        try:
            return p.resolve().relative_to(repo.resolve()).as_posix()
        except ValueError:
            raise click.UsageError(f"{path} is not inside the repository {repo}") from None
    return path


def main(argv: Sequence[str] | None = None) -> int:
    try:
        cli.main(
            args=list(argv) if argv is not None else None, prog_name="roofbot", standalone_mode=True
        )
    except SystemExit as e:
        return int(e.code or 0) if not isinstance(e.code, str) else 2
    return 0


@cli.command()
@click.option("--dry-run", is_flag=True, help="Render everything, post nothing.")
def pr(dry_run: bool) -> None:
    """The GitHub Action: check a pull request's records, comment, set the `roofcheck` status.

    Reads the Actions environment (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_TOKEN, ...).
    Exit 0 ok, 1 not ok, 2 usage or configuration error.
    """
    from roofbot.action import main as action_main

    sys.exit(action_main(dry_run=dry_run))
