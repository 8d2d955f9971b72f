"""The template's context: a Report, and what the pull request changed, as the plain data
(dicts, lists, strings, numbers) the comment template reads, at one level of detail: the
headline, the one table of the records the PR moved, what to fix, the calibration's misses. Every
string in it is escaped before the template sees it (escape.escaped)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from roofbot.core.changes import Changes
from roofbot.core.compare import Comparison
from roofbot.core.results import Calibration, RecordResult, Report, Verdict
from roofbot.render.markdown.compare import rows_view
from roofbot.render.markdown.escape import Safe, md_code
from roofbot.render.markdown.existing import existing_view
from roofbot.render.markdown.headline import headline
from roofbot.render.markdown.levels import Options, cap
from roofbot.render.markdown.records import EMOJI, Links, Move

MARKER = "<!-- roofbot:roofcheck -->"
"""The comment's first line, hidden on the page: how roofbot finds its sticky comment again."""


def build_context(
    report: Report,
    traps: Mapping[str, str | None],
    *,
    title: str,
    summary_url: str | None,
    changes: Changes | None,
    links: Links,
    opts: Options,
    omitted: list[str],
    chart_url: str | None = None,
    comparison: Comparison | None = None,
    review: Mapping[str, Any] | None = None,
    notes: Mapping[tuple[str, str], str] | None = None,
    moves: Mapping[str, Move] | None = None,
) -> dict[str, Any]:
    """The context of one rendering level (`opts`; `omitted`: what it leaves out, said on
    the page). `traps`: each trap's documentation; `links`: where file links point; `notes`:
    a catalogue field's disagreeing neighbour, by (record, field)."""
    current = _order(r for r in report.records if not r.deprecated)
    deprecated = _order(r for r in report.records if r.deprecated)
    counts = [
        {"verdict": v.value, "emoji": EMOJI[v], "count": report.count(v)}
        for v in Verdict
        if report.count(v)
    ]
    failing = _order(report.failing())
    if comparison is not None:  # what the PR made worse is the news: it leads
        failing.sort(key=lambda r: not _made_worse(comparison, r))
    messages, messages_hidden = cap([m.text for m in report.messages], opts.max_list)
    # the base's own findings are not the change's: they go to the collapsed section
    mine = [r for r in current if r.path not in report.already]
    table = rows_view(mine, comparison, traps, links, opts, notes or {}, moves or {})
    shown_ids = {row["id"] for row in table["rows"]}
    shown = [r for r in mine if r.id in shown_ids] or mine
    return {
        "marker": Safe(MARKER),
        "title": title,
        "headline": md_code(
            headline(failing, shown, report.calibration, report.ok, deprecated), 1000
        ),
        "ok": report.ok,
        "counts": counts,
        "total": len(report.records),
        "failing": len(failing),
        "fail_on": sorted(v.value for v in report.fail_on),
        "deprecated_fail": report.deprecated_fail,
        "coverage": {"token_rate": report.token_rate_records, "checked": report.checked},
        "records": table,
        "deprecated": rows_view(deprecated, None, traps, links, opts, {}, {}),
        "calibration": _calibration_view(report.calibration, opts),
        "messages": messages,
        "messages_hidden": messages_hidden,
        "changes": _changes_view(changes, opts, {r.id for r in report.records}),
        "summary_url": summary_url,
        "chart_url": chart_url,
        "omitted": omitted,
        # what is not the change's: the base's own findings, and the ones it fixes
        "existing": existing_view(report, comparison, links, opts),
        "review": review,
    }


def _made_worse(comparison: Comparison, r: RecordResult) -> bool:
    d = comparison.of(r.id)
    return d is not None and d.before is not None and d.kind == "worse"


def _order(records: Iterable[RecordResult]) -> list[RecordResult]:
    return sorted(records, key=lambda r: (r.verdict.rank, r.id))


def _calibration_view(c: Calibration, opts: Options) -> dict[str, Any]:
    misses = [e for e in c.entries if not e.ok]  # only the misses are listed
    shown, hidden = cap(misses, opts.max_list)
    return {
        "ran": c.ran,
        "ok": c.ok,
        "tolerance_pp": c.tolerance_pp,
        "total": len(c.entries),
        "held": len(c.entries) - len(misses),
        "hidden": hidden,
        "entries": [
            {
                "id": e.id,
                "check": e.check,
                "expected": e.expected_percent,
                "percent": e.percent,
                "ok": e.ok,
                "why": e.why,
            }
            for e in shown
        ],
    }


def _changes_view(
    changes: Changes | None, opts: Options, reported: set[str]
) -> dict[str, Any] | None:
    if changes is None:
        return None
    # pins and calibration entries of the records in this report first: a pin that moves a
    # verdict is never the one a shortened comment leaves out
    instrument = sorted(changes.instrument, key=lambda c: c.key.split(": ")[0] not in reported)
    instrument, instrument_hidden = cap(instrument, opts.max_list)
    files, files_hidden = cap(list(changes.files), opts.max_list)
    return {
        "source": changes.source,
        # the built-in comment counts the files (each record is a row of its table); a
        # repository's own template may list them
        "files": [
            {"status": f.status, "path": f.path, "old_path": f.old_path, "symlink": f.symlink}
            for f in files
        ],
        "files_hidden": files_hidden,
        "files_total": len(changes.files),
        "dependents": list(changes.dependents),
        "instrument": [
            {"kind": c.kind, "key": c.key, "before": c.before, "after": c.after} for c in instrument
        ],
        "instrument_total": len(changes.instrument),
        "instrument_hidden": instrument_hidden,
    }
