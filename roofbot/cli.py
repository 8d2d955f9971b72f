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
    from roofbot.core.results import Verdict

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


def _repository(repo: Path, *, records: bool = True) -> tuple[Path, Repository]:
    """The records repository at or above `repo` (its root and the repository), or exit 2
    when there is none, or (`records`) when its records globs match nothing."""
    from roofbot.locate import LocateError, find_root, require_records
    from roofbot.pins import pin_problems

    try:
        root = find_root(repo)
        repository = _open(root)
        require_records(repository, root, records=records)
    except LocateError as e:
        raise click.UsageError(str(e)) from None
    problems = pin_problems(repository)
    if problems:  # a pin that points at nothing: a configuration error, every line of it
        raise click.UsageError(f"{root / '.roofbot.yml'}: " + "; ".join(problems))
    return root, repository


def _verdicts(text: str) -> frozenset[Verdict]:
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


def _record_args(repository: Repository, names: Sequence[str], root: Path) -> list[str]:
    """The repository paths of the records named on the command line: ids, paths (from the
    current folder or the root) or globs; exit 2 for one that names nothing."""
    from roofbot.locate import LocateError, expand, is_glob, record_path

    out: list[str] = []
    try:
        for name in names:
            if is_glob(name) and not Path(name).exists():
                out += expand(repository, name, root)
            else:
                out.append(record_path(repository, name, root))
    except LocateError as e:
        raise click.UsageError(str(e)) from None
    return list(dict.fromkeys(out))


repo_option = click.option(
    "--repo",
    type=click.Path(file_okay=False, path_type=Path),
    default=".",
    show_default=True,
    help="The records repository, or a folder inside it: its root is the nearest folder at or "
    "above it holding .roofbot.yml or data/benchmarks/.",
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
    quiet: bool,
    verbose: bool,
) -> None:
    """Check PATHS (default: every benchmark record) and exit 0 ok, 1 not ok, 2 usage error.

    Example: roofbot check --repo fixtures data/benchmarks/mpt7b-a100-bs1-per-user-decode-tps.json
    """
    from roofbot.engine import run_check
    from roofbot.links import gotcha_paths
    from roofbot.progress import progress_for

    if quiet and verbose:
        raise click.UsageError("--quiet and --verbose exclude each other")
    if fmt is None:
        fmt = "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    repo, repository = _repository(repo)
    if fail_on is not None:
        import dataclasses

        repository.config = dataclasses.replace(repository.config, fail_on=_verdicts(fail_on))
    rels: list[str] | None
    if changed:
        rels = _changed_records(repository, [_relative(p, repo) for p in paths])
    else:
        rels = _record_args(repository, paths, repo) or None
    bar = progress_for(sys.stderr, quiet)
    try:
        report = run_check(repository, rels, calibration=not no_calibration, progress=bar)
    finally:
        if bar is not None:
            bar.close()
    links = gotcha_paths(repository.config, repository.catalogue())
    cfg = repo / ".roofbot.yml"
    cfg_text = cfg.read_text("utf-8", "replace") if cfg.is_file() and not cfg.is_symlink() else None
    text = _render(fmt, report, repository, links, cfg_text, quiet, verbose)
    # text and Markdown print a record's paths and ids: never a workflow command in a job log
    # (json and sarif are data; github escapes every value itself)
    click.echo(_neutral(text) if fmt in ("text", "markdown") else text, nl=False)
    sys.exit(0 if report.ok else 1)


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
    from roofbot.adapters.repo import dependents
    from roofbot.core.changes import catalogue_kind
    from roofbot.engine import stem

    repository.catalogue()  # built: its failing files are known
    problems = repository.catalogue_problems
    if any(p == ".roofbot.yml" or p.startswith("schemas/") for p in rels):
        return list(repository.record_paths()) + sorted(problems)
    records = [p for p in rels if repository.is_record_path(p)]
    refs = {
        (kind, stem(p))
        for p in rels
        if p not in records and (kind := catalogue_kind(p, repository.config.catalogue))
    }
    invalid = [p for p in rels if p in problems]  # reported on the catalogue file itself
    if not refs:
        return records + invalid
    others = [p for p in repository.record_paths() if p not in records]
    return records + dependents(repository.tree, others, refs, repository.catalogue()) + invalid


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
    default=None,
    help="Folder the charts are written to. [default: roofbot-plots in the system's temporary "
    "folder, never inside the records repository]",
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
    out_dir: Path | None,
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

    repo, repository = _repository(repo)
    rels = _record_args(repository, paths, repo) or None
    chosen = formats or FORMATS
    if out_dir is None:
        import tempfile

        out_dir = Path(tempfile.gettempdir()) / "roofbot-plots"
    # every --record is found, and its sweep drawn, before the corpus chart: a wrong id
    # fails at once, not after the whole corpus was checked and drawn
    sweeps = [(rid, _record_args(repository, [rid], repo)) for rid in record_ids]
    try:
        figures = []
        for _rid, found in sweeps:
            for path in found:
                result = check_path(repository, repository.catalogue(), path)
                try:
                    figures.append((result.id, sweep_chart(result)))
                except ValueError as e:
                    raise click.UsageError(str(e)) from None
        report = run_check(repository, rels, calibration=False)
        cal = [c.id for c in repository.config.calibration]
        written = save(corpus_chart(report, cal), out_dir / "roofline", chosen)
        for rid, fig in figures:
            written += save(fig, out_dir / f"sweep-{rid}", chosen)
    except PlotUnavailable as e:
        raise click.UsageError(str(e)) from None
    for w in written:
        click.echo(str(w))


@cli.command()
@click.argument("record")
@repo_option
def explain(record: str, repo: Path) -> None:
    """Show one record's arithmetic step by step, each input with where it came from.
    RECORD is its id or its file's path.

    Example: roofbot explain --repo fixtures mpt7b-a100-bs64-aggregate-output-tps
    """
    from roofbot.engine import check_path
    from roofbot.render.text import explain_record

    repo, repository = _repository(repo)
    found = _record_args(repository, [record], repo)
    if len(found) != 1:
        raise click.UsageError(f"{record} names {len(found)} records; explain takes one")
    path = found[0]
    result = check_path(repository, repository.catalogue(), path)
    from roofbot.core.results import Verdict, fails
    from roofbot.render.findings import record_findings

    cfg = repository.config
    failing = fails(result, cfg.fail_on, cfg.deprecated_fail)
    items = record_findings(result, _reader(repository)(result.path), failing)
    advice = next((f.advice for f in items if not f.trap and f.advice), None)
    if advice is None and result.verdict is Verdict.ERROR:
        advice = f"correct the file as the message says, then run: roofbot check {result.path}"
    click.echo(explain_record(result, advice), nl=False)


@cli.command()
@click.argument("query", required=False, default="")
@repo_option
def parts(query: str, repo: Path) -> None:
    """List the accelerator catalogue as roofbot resolves it: each part's bandwidth and, per
    precision, the largest dense peak (the one the compute roof uses), in TFLOPS. QUERY
    matches the start of a word of the part's id or name (`h100`, `mi355`).

    Example: roofbot parts --repo fixtures a100
    """
    import re

    from roofbot.core.catalogue import slug

    cat = _repository(repo, records=False)[1].catalogue()
    q = slug(query)
    word = re.compile(rf"(?:^|-){re.escape(q)}") if q else None
    rows = [
        a
        for a in sorted(cat.accelerators.values(), key=lambda a: a.id)
        if word is None or word.search(a.id) or word.search(slug(a.name))
    ]
    click.echo(f"{'part':<40} {'bandwidth':>14}  dense peak per precision (TFLOPS)")
    for a in rows:
        bw = f"{a.bandwidth_gbps:g} GB/s" if a.bandwidth_gbps else "bandwidth ?"
        best: dict[str, float] = {}
        for r in a.flops:  # one figure a precision: its largest dense row, as the roof uses
            if r.dense and r.tflops > best.get(r.precision, 0.0):
                best[r.precision] = r.tflops
        dense = sorted(best.items(), key=lambda x: (-x[1], x[0]))
        peaks = ", ".join(f"{p} {t:g}" for p, t in dense) or "no dense flops"
        sparse_only = sorted({r.precision for r in a.flops if not r.dense} - set(best))
        extra = f"  (sparse only: {', '.join(sparse_only)})" if sparse_only else ""
        click.echo(f"{a.id:<40} {bw:>14}  {peaks}{extra}")
    click.echo(f"{len(rows)} part{'' if len(rows) == 1 else 's'}")


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

    report = run_check(_repository(repo)[1], calibration=False)
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
@click.option(
    "--dry-run",
    is_flag=True,
    help="Render everything, post nothing: the comment is printed (or written to --out).",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for what the run writes: the JSON report, the chart, and with --dry-run the "
    "comment (comment.md) and the summary (summary.md). [default: $RUNNER_TEMP, else a new "
    "temporary folder]",
)
def pr(dry_run: bool, out_dir: Path | None) -> None:
    """The GitHub Action: check a pull request's records, comment, set the `roofcheck` status.

    Reads the Actions environment (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_TOKEN, ...).
    Exit 0 ok, 1 not ok, 2 usage or configuration error.
    """
    from roofbot.action import main as action_main

    sys.exit(action_main(dry_run=dry_run, out_dir=out_dir))


@cli.command()
@repo_option
@click.option("--base", "base_ref", default="main", show_default=True,
              help="The branch (or any ref) the pull request would merge into.")  # fmt: skip
@click.option("--head", "head_ref", default="HEAD", show_default=True,
              help="The branch (or any ref) with the changes.")  # fmt: skip
@click.option(
    "--out",
    "out_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the comment to this file. [default: print it]",
)
@click.option(
    "--summary",
    "summary_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write the job summary (the comment without its size limit) to this file.",
)
@click.option("--fail-on", "fail_on", default=None, metavar="VERDICTS",
              help="As the action's fail-on input. [default: fail_on in .roofbot.yml]")  # fmt: skip
def preview(
    repo: Path,
    base_ref: str,
    head_ref: str,
    out_file: Path | None,
    summary_file: Path | None,
    fail_on: str | None,
) -> None:
    """Render the comment, the summary and the status line `roofbot pr` would post for a
    pull request from --head into --base, from the local git repository: nothing is posted,
    no token needed. Exit 0 when the status would be success, 1 failure, 2 usage error.

    Example: roofbot preview --base main --head HEAD --out comment.md
    """
    from roofbot.adapters.git import GitError
    from roofbot.core.config import ConfigError
    from roofbot.locate import LocateError, find_root
    from roofbot.preview import PreviewError
    from roofbot.preview import preview as run_preview

    try:
        root = find_root(repo)
        shown = run_preview(root, base_ref, head_ref, _verdicts(fail_on) if fail_on else None)
    except (LocateError, PreviewError, ConfigError, GitError) as e:
        raise click.UsageError(str(e)) from None
    outcome = shown.outcome
    if out_file is not None:
        out_file.write_text(outcome.comment, encoding="utf-8")
        click.echo(f"comment: {out_file} ({len(outcome.comment):,} characters)", err=True)
    else:
        click.echo(outcome.comment, nl=not outcome.comment.endswith("\n"))
    if summary_file is not None:
        summary_file.write_text(outcome.summary, encoding="utf-8")
        click.echo(f"summary: {summary_file}", err=True)
    click.echo(
        f"{base_ref} ({shown.base[:12]}) <- {head_ref} ({shown.head[:12]}): {shown.status_line}",
        err=True,
    )
    sys.exit(0 if outcome.state == "success" else 1)
