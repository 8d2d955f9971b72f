"""The pull-request commands: `pr` (the GitHub Action itself) and `preview` (what `pr` would
post for two local git refs, posting nothing). The action's package is imported only here,
and only when one of them runs."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from roofbot.cli.common import repo_option, usage_errors, verdicts


@click.command()
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
    from roofbot.action.main import main as action_main

    sys.exit(action_main(dry_run=dry_run, out_dir=out_dir))


@click.command()
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
    no token needed. Where --head is the commit checked out, uncommitted changes to the files
    roofbot reads are part of it. Exit 0 when the status would be success, 1 failure, 2 usage error.

    Example: roofbot preview --base main --head HEAD --out comment.md
    """
    from roofbot.adapters.git import GitError
    from roofbot.core.config import ConfigError
    from roofbot.locate import find_root
    from roofbot.preview import PreviewError
    from roofbot.preview import preview as run_preview

    with usage_errors(PreviewError, ConfigError, GitError):
        root = find_root(repo)
        shown = run_preview(root, base_ref, head_ref, verdicts(fail_on) if fail_on else None)
    outcome = shown.outcome
    if out_file is not None:
        out_file.write_text(outcome.comment, encoding="utf-8")
        click.echo(f"comment: {out_file} ({len(outcome.comment):,} characters)", err=True)
    else:
        click.echo(outcome.comment, nl=not outcome.comment.endswith("\n"))
    if summary_file is not None:
        summary_file.write_text(outcome.summary, encoding="utf-8")
        click.echo(f"summary: {summary_file}", err=True)
    if shown.uncommitted:
        n = len(shown.uncommitted)
        click.echo(f"{head_ref} includes the uncommitted changes to {n} file{'s' if n != 1 else ''}"
                   f" roofbot reads: {', '.join(shown.uncommitted)}", err=True)  # fmt: skip
    elif shown.same_commit:
        click.echo(f"{base_ref} and {head_ref} are the same commit ({shown.head[:12]}): the pull "
                   "request would change nothing", err=True)  # fmt: skip
    click.echo(
        f"{base_ref} ({shown.base[:12]}) <- {head_ref} ({shown.head[:12]}): {shown.status_line}",
        err=True,
    )
    sys.exit(0 if outcome.state == "success" else 1)
