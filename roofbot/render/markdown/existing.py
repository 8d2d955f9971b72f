"""The comment's collapsed section of the findings that are not the pull request's: those the
base branch already has (counted by kind, "6 violations, 55 invalid catalogue files") and
those the pull request fixes. They are never labelled new, and never fail the run unless the
repository asks for it (`fail_on_existing`)."""

from __future__ import annotations

from typing import Any

from roofbot.core.compare import Attribution, Comparison
from roofbot.core.results import RecordResult, Report, Verdict
from roofbot.render.markdown.levels import Options, cap
from roofbot.render.markdown.records import EMOJI, Links, link

_PLURAL = {
    Verdict.ERROR: ("error", "errors"),
    Verdict.VIOLATION: ("violation", "violations"),
    Verdict.SUSPECT: ("suspect", "suspects"),
    Verdict.UNCHECKED: ("unchecked record", "unchecked records"),
}


def tally(results: tuple[RecordResult, ...], catalogue: frozenset[str]) -> str:
    """`6 violations, 55 invalid catalogue files`: the findings counted by kind."""
    parts = []
    for v, (one, many) in _PLURAL.items():
        n = sum(1 for r in results if r.verdict is v and r.path not in catalogue)
        if n:
            parts.append(f"{n} {one if n == 1 else many}")
    files = sum(1 for r in results if r.path in catalogue)
    if files:
        parts.append(f"{files} invalid catalogue file{'s' if files != 1 else ''}")
    return ", ".join(parts)


def existing_view(
    report: Report, comparison: Comparison | None, links: Links, opts: Options
) -> dict[str, Any] | None:
    """The findings already on the base (and, with a comparison, the ones this change fixes),
    or None when there are none of either."""
    catalogue = comparison.catalogue if comparison is not None else frozenset()
    existing = report.existing()
    fixed = comparison.attributed(Attribution.FIXED) if comparison is not None else ()
    if not existing and not fixed:
        return None
    fixed_ids, fixed_hidden = cap([r.id for r in fixed], opts.max_list)
    rows, hidden = cap(sorted(existing, key=lambda r: (r.verdict.rank, r.id)), opts.max_list)
    return {
        "tally": tally(existing, catalogue),
        "count": len(existing),
        "rows": [
            {
                "id": r.id,
                "link": link(r.path, links),
                "emoji": EMOJI[r.verdict],
                "verdict": r.verdict.value,
            }
            for r in rows
        ],
        "hidden": hidden,
        "fixed": tally(fixed, catalogue),
        "fixed_ids": fixed_ids,
        "fixed_hidden": fixed_hidden,
    }
