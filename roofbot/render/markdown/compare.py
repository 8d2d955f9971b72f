"""The comment's before/after table: each record's verdict at the base and at the head, and
the inputs that moved it (with a link to the catalogue file that changed), worse first."""

from __future__ import annotations

from typing import Any

from roofbot.core.compare import Comparison, Delta
from roofbot.core.results import RecordResult
from roofbot.render.markdown.escape import Safe, md, pct
from roofbot.render.markdown.levels import Options, cap
from roofbot.render.markdown.records import EMOJI, link

COMPARE_MAX = 20  # before/after rows on the first screen; the rest are counted
MOVED_MAX = 4  # inputs named per before/after row
_KIND_ORDER = {"worse": 0, "new": 1, "better": 2, "same": 3}


def _state(r: RecordResult | None) -> Safe:
    if r is None:
        return Safe("new")
    b = r.binding()
    where = f" {pct(b.percent)}" if b is not None else ""
    return Safe(f"{EMOJI[r.verdict]} {r.verdict.value}{where}")


def _moved_text(d: Delta, head_sha: str | None) -> Safe:
    parts = []
    for m in d.moved[:MOVED_MAX]:
        text = f"{md(m.name)} {md(m.before if m.before is not None else '–')} → "
        text += str(md(m.after if m.after is not None else "–"))
        if m.path and (target := link(m.path, head_sha)):
            name = m.path.rsplit("/", 1)[-1].removesuffix(".json")
            text += f" ([{md(name)}]({target}))"
        parts.append(text)
    if len(d.moved) > MOVED_MAX:
        parts.append(f"and {len(d.moved) - MOVED_MAX} more")
    return Safe("; ".join(parts) if parts else ("–" if d.kind != "new" else "added"))


def compare_view(
    comparison: Comparison | None, head_sha: str | None, opts: Options
) -> dict[str, Any] | None:
    """The before/after table (the first `COMPARE_MAX` rows, fewer where the level keeps
    fewer), or None when there is nothing to compare."""
    if comparison is None or not comparison.deltas:
        return None
    # within a kind, the records whose inputs moved first (a catalogue edit's dependents)
    ordered = sorted(comparison.deltas, key=lambda d: (_KIND_ORDER[d.kind], not d.moved, d.id))
    limit = COMPARE_MAX if opts.max_rows is None else min(COMPARE_MAX, opts.max_rows)
    shown, hidden = cap(ordered, limit)
    return {
        "counts": {k: comparison.count(k) for k in ("worse", "better", "same", "new")},
        "rows": [
            {
                "id": d.id,
                "link": link(d.path, head_sha),
                "kind": d.kind,
                "before": _state(d.before),
                "after": _state(d.after),
                "moved": _moved_text(d, head_sha),
            }
            for d in shown
        ],
        "hidden": hidden,
    }
