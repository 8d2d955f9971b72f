"""The report's output formats, by name, for `roofbot check --format`. Each format's renderer
is imported only when it is chosen. A new format is a module in this folder and a branch
here."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from roofbot.core.results import Report
    from roofbot.render.findings import Read

FORMATS = ("text", "json", "markdown", "sarif", "github")


def render(
    fmt: str,
    report: Report,
    links: dict[str, str | None],
    read: Read,
    config_text: str | None,
    *,
    color: bool,
    quiet: bool,
    verbose: bool,
    kind_of: Callable[[str], str | None] | None = None,
) -> str:
    """The report in `fmt`. `links`: each trap's gotcha record; `read`: a record file's bytes,
    for the findings' line numbers; `config_text`: `.roofbot.yml`'s, for theirs; `kind_of`: a
    path's catalogue kind (the text format lists catalogue files after the records)."""
    if fmt == "json":
        from roofbot.render import json_report

        return json_report.dumps(report, links)
    if fmt == "markdown":
        from roofbot.render.markdown import render_report

        return render_report(report, links) + "\n"
    from roofbot.render.findings import by_record, findings

    items = findings(report, read, config_text)
    if fmt == "sarif":
        from roofbot.render import sarif

        return sarif.dumps(items, links, report.ok)
    if fmt == "github":
        from roofbot.render.github import render_github

        return render_github(report, items, quiet, verbose)
    from roofbot.render.text import render_text

    return render_text(
        report, color=color, verbose=verbose, quiet=quiet, found=by_record(items), kind_of=kind_of
    )
