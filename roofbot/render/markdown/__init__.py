"""The pull-request comment and job summary: a Report rendered to GitHub Markdown through a
Jinja2 template (templates/comment.md.j2, or a repository's own).

Every string that can come from a record, a file name or `.roofbot.yml` is escaped before it
reaches the page: the template applies `md` (inline Markdown), `html` (inside HTML tags) or
`url`, and an environment-wide `finalize` escapes anything the template forgot to. The
template runs in Jinja's sandbox; record text is only ever data, never template source.
The rendered text is kept under `max_chars` by dropping detail, never by cutting mid-table.

This module tries the levels of detail in order; the rest of the package has one concern a
module: `escape` (the escapers), `environment` (Jinja, the filters, the template folders),
`context` (what the template reads) with `records`, `compare` and `chart` (its parts),
`levels` (what each level keeps) and `fit` (the last-resort cut at a block boundary)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import jinja2

from roofbot.core.changes import Changes
from roofbot.core.compare import Comparison
from roofbot.core.results import Report
from roofbot.render.findings import Read
from roofbot.render.markdown.context import MARKER, build_context
from roofbot.render.markdown.environment import load_template
from roofbot.render.markdown.escape import Field, escaped, md
from roofbot.render.markdown.fit import fit
from roofbot.render.markdown.levels import (
    CAPPED,
    DETAILED,
    MIN_DETAILS_CHARS,
    MIN_ROW_CHARS,
    TABLES,
    Options,
    caps_a_list,
    keeps_details,
    rows_only,
)
from roofbot.render.markdown.records import Links, Move

DEFAULT_TITLE = "roofcheck"
TEMPLATE_FAILED = (
    "> [!WARNING]\n> This repository's comment template ({name}) could not be rendered "
    "({error}); roofbot used its built-in template instead.\n\n"
)

Render = Callable[[Options, list[str]], str]
"""One rendering level's text: its options and what it leaves out, said on the page."""


def render_report(
    report: Report,
    links: Mapping[str, str | None],
    *,
    template: str | Path | None = None,
    **kwargs: Any,
) -> str:
    """The comment (`_render_report`); a repository's template that fails to render (a syntax
    error, an include outside its folder, a sandbox SecurityError, an undefined name) falls
    back to the built-in template, and the comment says so right under its marker."""
    if template is None:
        return _render_report(report, links, **kwargs)
    try:
        return _render_report(report, links, template=template, **kwargs)
    except (jinja2.TemplateError, OSError, RecursionError, UnicodeError) as e:
        text = _render_report(report, links, **kwargs)
        why = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
        note = TEMPLATE_FAILED.format(name=md(Path(template).name, 120), error=md(why, 300))
        first, _, rest = text.partition("\n")
        return f"{first}\n{note}{rest}"


def _render_report(
    report: Report,
    links: Mapping[str, str | None],
    *,
    title: str = DEFAULT_TITLE,
    max_chars: int = 60000,
    summary_url: str | None = None,
    changes: Changes | None = None,
    head_sha: str | None = None,
    template: str | Path | None = None,
    chart_url: str | None = None,
    comparison: Comparison | None = None,
    review: Mapping[str, Any] | None = None,
    extra: Mapping[str, Any] | None = None,
    repo_url: str | None = None,
    read: Read | None = None,
) -> str:
    """The comment: the full report if it fits in `max_chars`, else with less detail, saying
    what was left out and pointing at the job summary (`summary_url`). `chart_url` links the
    roofline chart the workflow uploaded as an artifact; `extra` adds names to the template's
    context (`instrument`: the instrument review). `repo_url` (`<server>/<owner>/<repo>`) and
    `head_sha` make every file link absolute; `read` (a file's bytes at the head) gives each
    link its line."""
    tpl = load_template(template)
    seen: dict[str, Field] = {}  # the strings escaped so far, shared by the levels
    files = Links.of(repo_url, head_sha, _cached(read) if read is not None else None)
    instrument = (extra or {}).get("instrument")
    notes = _field_notes(instrument)
    moves = _moves(instrument)

    def render(opts: Options, omitted: list[str]) -> str:
        ctx = build_context(
            report,
            links,
            title=title,
            summary_url=summary_url,
            changes=changes,
            links=files,
            opts=opts,
            omitted=omitted,
            chart_url=chart_url,
            comparison=comparison,
            review=review,
            notes=notes,
            moves=moves,
        )
        ctx.update(extra or {})  # sections other modules add (roofbot.action.instrument's review)
        text = tpl.render(escaped(ctx, seen))
        return text if text.startswith(MARKER) else f"{MARKER}\n{text}"

    return _fitted(render, report, changes, max_chars, summary_url, builtin=template is None)


def _cached(read: Read) -> Read:
    """`read`, each file read once."""
    seen: dict[str, bytes | None] = {}

    def once(path: str) -> bytes | None:
        if path not in seen:
            seen[path] = read(path)
        return seen[path]

    return once


def _field_notes(instrument: Any) -> dict[tuple[str, str], str]:
    """Each changed catalogue field's disagreeing neighbour, by (record id, field), from the
    instrument review's field changes."""
    if not isinstance(instrument, Mapping):
        return {}
    out: dict[tuple[str, str], str] = {}
    for c in instrument.get("field_changes") or ():
        if isinstance(c, Mapping) and c.get("disagrees"):
            out[(str(c["record"]).rsplit("/", 1)[-1], str(c["field"]))] = str(c["disagrees"])
    return out


def _moves(instrument: Any) -> dict[str, Move]:
    """The records the instrument review checked twice and found moved, by id: their
    verdict under the base branch's instrument, and whether they are held."""
    if not isinstance(instrument, Mapping):
        return {}
    held = not instrument.get("approval")
    out: dict[str, Move] = {}
    for m in instrument.get("moves") or ():
        if isinstance(m, Mapping) and m.get("id") is not None:
            out[str(m["id"])] = Move(
                str(m["base_verdict"]), m.get("base_percent"), bool(m.get("held")) and held
            )
    return out


def _fitted(
    render: Render,
    report: Report,
    changes: Changes | None,
    max_chars: int,
    summary_url: str | None,
    *,
    builtin: bool,
) -> str:
    """The text of the most detailed level that fits in `max_chars`; past the levels, fewer
    table rows; past one row, the text cut at a block boundary (`fit`)."""
    total = max(len(report.records), 1)
    if builtin and total * MIN_ROW_CHARS > max_chars:
        # every row can't fit (a /roofcheck all, a catalogue change with thousands of
        # dependents): what fits is estimated from as many rows as could, rendered once
        shown = max(1, max_chars // MIN_ROW_CHARS)
        text = render(*rows_only(shown))
    else:
        # the tables alone first (cheap): the levels with arithmetic only add to them
        tables = render(*TABLES)
        if len(tables) <= max_chars:
            return _most_detailed(render, report, tables, max_chars)
        # CAPPED differs from TABLES only in the lists it caps: where none is that long, its
        # text is the tables' (a summary of 12,000 rows rendered them twice, 0.5 s each)
        capped = caps_a_list(report, changes, CAPPED[0])
        shown, text = total, render(*CAPPED) if capped else tables
    if len(text) <= max_chars:
        return text
    return fit(_fewer_rows(render, shown, len(text), max_chars), max_chars, summary_url)


def _most_detailed(render: Render, report: Report, tables: str, max_chars: int) -> str:
    """The first of the DETAILED levels whose text fits, else `tables` (which does)."""
    for opts, omitted in DETAILED:
        detailed = sum(1 for r in report.records if keeps_details(r, opts))
        if len(tables) + detailed * MIN_DETAILS_CHARS > max_chars:
            continue  # can't fit: not worth rendering
        text = render(opts, omitted)
        if len(text) <= max_chars:
            return text
    return tables


def _fewer_rows(render: Render, shown: int, length: int, max_chars: int) -> str:
    """Fewer table rows than `shown` (whose text was `length` long), from an estimate of
    what fits, then halving, down to one row."""
    rows = min(shown - 1, max(1, int(shown * 0.9 * max_chars / length)))
    while True:
        text = render(*rows_only(rows))
        if len(text) <= max_chars or rows <= 1:
            return text
        rows //= 2
