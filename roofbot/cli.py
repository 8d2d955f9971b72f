"""The command line: `roofbot check`, `explain`, `parts`, `coverage` (and `pr`, the action)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import click

from roofbot import __version__

FORMATS = ("text", "json", "markdown")


def _open(repo: Path):  # type: ignore[no-untyped-def]
    from roofbot.adapters.repo import Repository
    from roofbot.core.config import ConfigError

    try:
        return Repository.open(repo)
    except ConfigError as e:
        raise click.UsageError(str(e)) from None


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="roofbot")
def cli() -> None:
    """Check LLM-inference benchmark records against the roofline ceilings that apply."""


@cli.command()
@click.argument("paths", nargs=-1)
@click.option("--repo", type=click.Path(file_okay=False, path_type=Path), default=".",
              show_default=True, help="The records repository (its root folder).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option("--no-calibration", is_flag=True, help="Skip the calibration set.")
def check(paths: tuple[str, ...], repo: Path, fmt: str, no_calibration: bool) -> None:
    """Check PATHS (default: every benchmark record) and exit 0 ok, 1 not ok, 2 usage error.

    Example: roofbot check --repo fixtures data/benchmarks/mpt7b-a100-bs1-per-user-decode-tps.json
    """
    from roofbot.engine import run_check
    from roofbot.links import gotcha_paths
    from roofbot.render import json_report

    repository = _open(repo)
    rels = [_relative(p, repo) for p in paths] or None
    report = run_check(repository, rels, calibration=not no_calibration)
    links = gotcha_paths(repository.config, repository.catalogue())
    if fmt == "json":
        click.echo(json_report.dumps(report, links), nl=False)
    elif fmt == "markdown":
        from roofbot.render.markdown import render_report

        click.echo(render_report(report, links))
    else:
        from roofbot.render.text import render_text

        click.echo(render_text(report, color=sys.stdout.isatty()), nl=False)
    sys.exit(0 if report.ok else 1)


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
        cli.main(args=list(argv) if argv is not None else None, prog_name="roofbot", standalone_mode=True)
    except SystemExit as e:
        return int(e.code or 0) if not isinstance(e.code, str) else 2
    return 0
