"""The commands that show what the check makes of records: `explain` (one record's
arithmetic), `coverage` (which roof each token-rate record gets) and `plot` (the charts)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from roofbot.cli.common import checked, file_reader, named_records, open_repository, repo_option

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from roofbot.adapters.repo import Repository
    from roofbot.core.results import Report


@click.command()
@click.argument("record")
@repo_option
def explain(record: str, repo: Path) -> None:
    """Show one record's arithmetic step by step, each input with where it came from.
    RECORD is its id or its file's path.

    Example: roofbot explain --repo fixtures mpt7b-a100-bs64-aggregate-output-tps
    """
    from roofbot.core.results import Verdict, fails
    from roofbot.render.findings import record_findings
    from roofbot.render.text import explain_record

    root, repository = open_repository(repo)
    found = named_records(repository, [record], root)
    if len(found) != 1:
        raise click.UsageError(f"{record} names {len(found)} records; explain takes one")
    result = checked(repository, found[0])
    cfg = repository.config
    failing = fails(result, cfg.fail_on, cfg.deprecated_fail)
    items = record_findings(result, file_reader(repository)(result.path), failing)
    advice = next((f.advice for f in items if not f.trap and f.advice), None)
    if advice is None and result.verdict is Verdict.ERROR:
        advice = f"correct the file as the message says, then run: roofbot check {result.path}"
    click.echo(explain_record(result, advice), nl=False)


@click.command()
@repo_option
@click.option(
    "--format", "fmt", type=click.Choice(("text", "json")), default="text", show_default=True
)
def coverage(repo: Path, fmt: str) -> None:
    """Which token-rate records get which roof, and what the unchecked ones lack.

    Example: roofbot coverage --repo fixtures
    """
    from roofbot.engine import run_check

    report = run_check(open_repository(repo)[1], calibration=False)
    if fmt == "json":
        click.echo(_coverage_json(report))
    else:
        _echo_coverage(report)


def _coverage_json(report: Report) -> str:
    import json

    rows = [r for r in report.records if r.token_rate]
    return json.dumps(
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


def _echo_coverage(report: Report) -> None:
    from roofbot.core.results import Verdict

    rows = [r for r in report.records if r.token_rate]
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


@click.command()
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
    from roofbot.engine import run_check
    from roofbot.plot import FORMATS, PlotUnavailable, corpus_chart, save

    root, repository = open_repository(repo)
    rels = named_records(repository, paths, root) or None
    chosen = formats or FORMATS
    if out_dir is None:
        import tempfile

        out_dir = Path(tempfile.gettempdir()) / "roofbot-plots"
    # every --record is found, and its sweep drawn, before the corpus chart: a wrong id
    # fails at once, not after the whole corpus was checked and drawn
    sweeps = [named_records(repository, [rid], root) for rid in record_ids]
    try:
        figures = [_sweep(repository, path) for found in sweeps for path in found]
        report = run_check(repository, rels, calibration=False)
        cal = [c.id for c in repository.config.calibration]
        written = save(corpus_chart(report, cal), out_dir / "roofline", chosen)
        for rid, fig in figures:
            written += save(fig, out_dir / f"sweep-{rid}", chosen)
    except PlotUnavailable as e:
        raise click.UsageError(str(e)) from None
    for w in written:
        click.echo(str(w))


def _sweep(repository: Repository, path: str) -> tuple[str, Figure]:
    """One record's batch-sweep chart, by its id; exit 2 when it has no sweep to draw."""
    from roofbot.plot import sweep_chart

    result = checked(repository, path)
    try:
        return result.id, sweep_chart(result)
    except ValueError as e:
        raise click.UsageError(str(e)) from None
