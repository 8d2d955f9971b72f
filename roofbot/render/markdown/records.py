"""One record as the comment's template reads it: its table row, its details (the checks and
the inputs they came from, the traps, the messages, the chart) and what to fix in it. Links
point at the files as the pull request's head has them."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from roofbot.core.fix import fix_for
from roofbot.core.provenance import Input
from roofbot.core.results import RecordResult, RoofCheck, Verdict
from roofbot.core.units import show_input
from roofbot.render.confusables import reveal
from roofbot.render.findings import record_fix
from roofbot.render.markdown.chart import record_chart
from roofbot.render.markdown.escape import Safe, fix_markdown, md, num, url
from roofbot.render.markdown.levels import Options, cap
from roofbot.render.text import message_label

EMOJI = {
    Verdict.ERROR: "❗",
    Verdict.VIOLATION: "🟥",
    Verdict.SUSPECT: "🟨",
    Verdict.UNCHECKED: "⬜",
    Verdict.PASS: "✅",
    Verdict.SKIPPED: "➖",
}
FIX_MAX = 10  # what-to-fix entries on the first screen
_CHARTED = (Verdict.VIOLATION, Verdict.SUSPECT)
_FIXED = (Verdict.ERROR, Verdict.VIOLATION, Verdict.SUSPECT, Verdict.UNCHECKED)
_CATALOGUE_PATH = re.compile(r"^([a-z_]+ -> )?([A-Za-z0-9_./\-]+\.json)(?=:|$)")


def link(path: str | None, head_sha: str | None) -> str | None:
    """A link to a repository file: at the head commit when it is known, else relative."""
    if not path:
        return None
    if head_sha and re.fullmatch(r"[0-9a-f]{7,64}", head_sha):
        return Safe(f"../blob/{head_sha}/{url(path)}")
    return url(path)


def _input_view(name: str, i: Input[Any], head_sha: str | None = None) -> dict[str, Any]:
    v = i.value
    if hasattr(v, "value") and not isinstance(v, int | float | str):
        v = v.value
    shown = show_input(name, v) or (
        num(v, 4) if isinstance(v, int | float) and not isinstance(v, bool) else md(v)
    )
    source: object = i.source
    m = _CATALOGUE_PATH.match(i.source)
    if m and (target := link(m[2], head_sha)):
        # a catalogue record's id links to its file at the head
        rest = md(i.source[m.end() :])
        source = Safe(f"{md(m[1] or '')}[{md(m[2])}]({target}){rest}")
    basis = i.basis.value  # said once: a source that ends "(assumed)" already says it
    said = i.source.rstrip().endswith(f"({basis})")
    return {"name": name, "value": shown, "from": source, "basis": None if said else basis}


def _check_view(c: RoofCheck) -> dict[str, Any]:
    return {
        "check": c.check.value,
        "applies": c.applies,
        "ceiling": c.ceiling,
        "percent": c.percent if c.ceiling else None,
        "formula": c.formula,
        "why": c.why,
        "assumed": list(c.assumed),
        "alternatives": [
            {"reading": label, "ceiling": x, "percent": 100 * c.value / x if x else None}
            for label, x in c.alternatives
        ],
    }


def record_view(
    r: RecordResult, links: Mapping[str, str | None], head_sha: str | None, keep: bool
) -> dict[str, Any]:
    """The record's row; with `keep`, its details too (`links`: each trap's documentation)."""
    binding = r.binding()
    notes = dict(r.trap_notes)
    fix = fix_for(r)
    return {
        "fix": fix_markdown(r, fix) if fix else None,
        "id": r.id,
        "path": r.path,
        "link": link(r.path, head_sha),
        "record_chart": record_chart(r) if keep and r.verdict in _CHARTED else None,
        "verdict": r.verdict.value,
        "emoji": EMOJI[r.verdict],
        "status": r.status,
        "metric": r.metric,
        "value": r.value,
        "unit": r.unit,
        "binding": binding.check.value if binding else None,
        "percent": binding.percent if binding else None,
        "pinned": r.pinned,
        "details": keep,
        # the arithmetic is only built for the records that show it (3000 records' inputs
        # would otherwise be escaped at every rendering level)
        "checks": [_check_view(c) for c in r.checks] if keep else [],
        "inputs": [_input_view(n, i, head_sha) for n, i in r.inputs] if keep else [],
        "traps": [
            {"id": t, "why": notes.get(t), "link": link(links.get(t), head_sha)} for t in r.traps
        ],
        "messages": [{"level": message_label(r, m), "text": reveal(m.text)} for m in r.messages],
        "lacks": list(r.lacks),
    }


def fixes_view(
    records: list[RecordResult], head_sha: str | None, opts: Options
) -> dict[str, Any] | None:
    """What to fix, record by record (the first `FIX_MAX`), for every record not passing."""
    todo = [(r, f) for r in records if r.verdict in _FIXED and (f := record_fix(r))]
    if not todo:
        return None
    limit = FIX_MAX if opts.max_rows is None else min(FIX_MAX, opts.max_rows)
    shown, hidden = cap(todo, limit)
    return {
        "rows": [
            {
                "id": r.id,
                "link": link(r.path, head_sha),
                "emoji": EMOJI[r.verdict],
                "verdict": r.verdict.value,
                "fix": fix_markdown(r, f),
            }
            for r, f in shown
        ],
        "hidden": hidden,
    }
