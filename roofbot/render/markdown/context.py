"""The template's context: a Report, and what the pull request changed, as the plain data
(dicts, lists, strings, numbers) the comment template reads, at one level of detail. Every
string in it is escaped before the template sees it (escape.escaped)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from roofbot.core.changes import Changes
from roofbot.core.compare import Comparison
from roofbot.core.results import Calibration, RecordResult, Report, Verdict
from roofbot.render.markdown.chart import report_chart
from roofbot.render.markdown.compare import compare_view
from roofbot.render.markdown.escape import Safe
from roofbot.render.markdown.existing import existing_view
from roofbot.render.markdown.levels import Options, cap, keeps_details
from roofbot.render.markdown.records import EMOJI, fixes_view, record_view

MARKER = "<!-- roofbot:roofcheck -->"
"""The comment's first line, hidden on the page: how roofbot finds its sticky comment again."""


def build_context(
    report: Report,
    links: Mapping[str, str | None],
    *,
    title: str,
    summary_url: str | None,
    changes: Changes | None,
    head_sha: str | None,
    opts: Options,
    omitted: list[str],
    chart_url: str | None = None,
    comparison: Comparison | None = None,
    review: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The context of one rendering level (`opts`; `omitted`: what it leaves out, said on
    the page). `links`: each trap's documentation; `head_sha`: the commit links point at."""
    current = _order(r for r in report.records if not r.deprecated)
    deprecated = _order(r for r in report.records if r.deprecated)
    counts = [
        {"verdict": v.value, "emoji": EMOJI[v], "count": report.count(v)}
        for v in Verdict
        if report.count(v)
    ]
    failing = {r.id for r in report.failing()}
    notes, notes_hidden = cap([m.text for m in report.messages], opts.max_list)
    return {
        "marker": Safe(MARKER),
        "title": title,
        "ok": report.ok,
        "counts": counts,
        "total": len(report.records),
        "failing": len(failing),
        "fail_on": sorted(v.value for v in report.fail_on),
        "deprecated_fail": report.deprecated_fail,
        "coverage": {"token_rate": report.token_rate_records, "checked": report.checked},
        "records": _section(current, links, head_sha, opts),
        "deprecated": _section(deprecated, links, head_sha, opts),
        "chart": report_chart(current),
        "calibration": _calibration_view(report.calibration, opts),
        "messages": notes,
        "messages_hidden": notes_hidden,
        "changes": _changes_view(changes, opts, {r.id for r in report.records}),
        "summary_url": summary_url,
        "chart_url": chart_url,
        "omitted": omitted,
        "compare": compare_view(comparison, head_sha, opts),
        # what to fix: the change's own findings, never a file the base already had failing
        "fixes": fixes_view([r for r in current if r.path not in report.already], head_sha, opts),
        "existing": existing_view(report, comparison, head_sha, opts),
        "review": review,
    }


def _order(records: Iterable[RecordResult]) -> list[RecordResult]:
    return sorted(records, key=lambda r: (r.verdict.rank, r.id))


def _section(
    records: list[RecordResult], links: Mapping[str, str | None], sha: str | None, opts: Options
) -> dict[str, Any]:
    shown = records if opts.max_rows is None else records[: opts.max_rows]
    return {
        "rows": [record_view(r, links, sha, keeps_details(r, opts)) for r in shown],
        "hidden": len(records) - len(shown),
        "total": len(records),
    }


def _calibration_view(c: Calibration, opts: Options) -> dict[str, Any]:
    ordered = sorted(c.entries, key=lambda e: e.ok)  # misses first: they are never cut
    shown, hidden = cap(ordered, opts.max_list)
    return {
        "ran": c.ran,
        "ok": c.ok,
        "tolerance_pp": c.tolerance_pp,
        "total": len(c.entries),
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
    files, files_hidden = cap(list(changes.files), opts.max_list)
    # pins and calibration entries of the records in this report first: a pin that moves a
    # verdict is never the one a shortened comment leaves out
    instrument = sorted(changes.instrument, key=lambda c: c.key.split(": ")[0] not in reported)
    instrument, instrument_hidden = cap(instrument, opts.max_list)
    return {
        "source": changes.source,
        "files": [
            {"status": f.status, "path": f.path, "old_path": f.old_path, "symlink": f.symlink}
            for f in files
        ],
        "files_total": len(changes.files),
        "files_hidden": files_hidden,
        "dependents": list(changes.dependents),
        "instrument": [
            {"kind": c.kind, "key": c.key, "before": c.before, "after": c.after} for c in instrument
        ],
        "instrument_total": len(changes.instrument),
        "instrument_hidden": instrument_hidden,
    }
