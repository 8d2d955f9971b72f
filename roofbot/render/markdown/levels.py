"""The levels of detail the comment is rendered at, most detail first, and what each keeps:
a record's arithmetic, the table rows, the list entries. The comment is the first level whose
text fits GitHub's limit (roofbot.render.markdown)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from roofbot.core.changes import Changes
from roofbot.core.results import RecordResult, Report, Verdict


@dataclass(frozen=True)
class Options:
    """What a rendering level keeps."""

    details: str = "all"  # "all", "failing" (no details for pass/skipped), "none"
    max_rows: int | None = None  # table rows per section; None: all
    max_list: int | None = None  # instrument changes, calibration misses, notes
    # (the lists `build_context` caps; `caps_a_list` names the same four)


DETAILED: tuple[tuple[Options, list[str]], ...] = (
    (Options("all"), []),  # a passing record's details: its roofs' arithmetic, no inputs
    (Options("failing"), ["the arithmetic of passing and skipped records"]),
)
TABLES = (Options("none"), ["the arithmetic of every record"])
CAPPED = (
    Options("none", max_list=100),
    ["the arithmetic of every record", "list entries past the first 100"],
)
SHORT_LIST = 20  # list entries kept once table rows have to go too
MIN_ROW_CHARS = 26
"""No row of the built-in template's tables is shorter: `| ✅ pass |  | 0 | – | – |` and its
newline (tests/test_markdown.py renders one of every verdict). A report with more rows than
fit at that length skips, unrendered, the levels that keep every row."""
MIN_DETAILS_CHARS = 400  # no record's <details> block is shorter: a level that can't fit is skipped


def rows_only(rows: int) -> tuple[Options, list[str]]:
    """The level that keeps the first `rows` table rows and `SHORT_LIST` list entries."""
    omitted = [
        "the arithmetic of every record",
        f"table rows past the first {rows}",
        f"list entries past the first {SHORT_LIST}",
    ]
    return Options("none", rows, SHORT_LIST), omitted


def keeps_details(r: RecordResult, opts: Options) -> bool:
    """Whether a record's details (its arithmetic, its chart) are shown at this level."""
    if opts.details == "none":
        return False
    if opts.details == "failing":
        return r.verdict not in (Verdict.PASS, Verdict.SKIPPED)
    return True


def caps_a_list(report: Report, changes: Changes | None, opts: Options) -> bool:
    """Whether `opts.max_list` cuts any list `build_context` caps: the instrument changes,
    the calibration misses, the run's messages."""
    limit = opts.max_list
    if limit is None:
        return False
    misses = [e for e in report.calibration.entries if not e.ok]
    lists: list[Any] = [misses, report.messages]
    if changes is not None:
        lists.append(changes.instrument)
    return any(len(items) > limit for items in lists)


def cap(items: list[Any], limit: int | None) -> tuple[list[Any], int]:
    """The first `limit` items and how many were left out."""
    if limit is None or len(items) <= limit:
        return items, 0
    return items[:limit], len(items) - limit
