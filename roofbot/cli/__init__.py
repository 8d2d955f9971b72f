"""The command line, `roofbot`: the click group and `main`. Each command lives in the module
of its group: `check` (check.py); `explain`, `coverage`, `plot` (records.py); `parts`,
`schema` (reference.py); `pr`, `preview` (pull_request.py); what they share is common.py.
A command imports what it needs when it runs, so `roofbot check` loads no renderer, git or
GitHub code it does not use."""

from __future__ import annotations

from collections.abc import Sequence

import click

from roofbot import __version__
from roofbot.cli.check import check
from roofbot.cli.pull_request import pr, preview
from roofbot.cli.records import coverage, explain, plot
from roofbot.cli.reference import parts, schema


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="roofbot")
def cli() -> None:
    """Check LLM-inference benchmark records against the roofline ceilings that apply."""


for _command in (check, schema, plot, explain, parts, coverage, pr, preview):
    cli.add_command(_command)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line (as the `roofbot` console script and `python -m roofbot` do) and
    return its exit code."""
    try:
        cli.main(
            args=list(argv) if argv is not None else None, prog_name="roofbot", standalone_mode=True
        )
    except SystemExit as e:
        return int(e.code or 0) if not isinstance(e.code, str) else 2
    return 0
