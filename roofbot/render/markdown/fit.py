"""The last resort under GitHub's size limit: a rendered comment cut at a block boundary
(never inside a `<details>` element, a code fence or a table), with a note saying where the
rest is. The marker line always stays."""

from __future__ import annotations

import re

from roofbot.render.markdown.context import MARKER
from roofbot.render.markdown.escape import href

_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_OPEN = re.compile(r"<details\b", re.IGNORECASE)
_CLOSE = re.compile(r"</details\s*>", re.IGNORECASE)


def cut_points(text: str) -> list[int]:
    """Offsets where `text` may be cut and stay well-formed: the ends of lines that close a
    top-level block (a blank line or the last line) outside any code fence and any
    `<details>` element, and not between two rows of one table."""
    points: list[int] = []
    fence: str | None = None
    depth = 0
    offset = 0
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        offset += len(line)
        stripped = line.strip()
        m = _FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)[0] * 3
        elif fence is not None and stripped.startswith(fence) and stripped.strip(fence[0]) == "":
            fence = None
        elif fence is None:
            depth += len(_OPEN.findall(line)) - len(_CLOSE.findall(line))
            depth = max(depth, 0)
        if fence is not None or depth:
            continue
        following = lines[i + 1].lstrip() if i + 1 < len(lines) else ""
        if stripped == "" or (not following.startswith("|") and not stripped.startswith("|")):
            points.append(offset)
        elif stripped.startswith("|") and not following.startswith("|"):
            points.append(offset)  # the last row of a table
    return points


def fit(text: str, max_chars: int, summary_url: str | None = None) -> str:
    """`text` cut to at most `max_chars` at a block boundary (never inside a `<details>`
    element, a code fence or a table), with a note saying so. The first line (the marker)
    always stays."""
    if len(text) <= max_chars:
        return text
    where = f"[job summary]({href(summary_url)})" if summary_url else "job summary"
    note = f"\n> [!NOTE]\n> Cut here to fit GitHub's limit: the full report is in the {where}.\n"
    head = text.split("\n", 1)[0] + "\n"
    budget = max_chars - len(note)
    best = len(head) if head.startswith(MARKER) else 0
    for point in cut_points(text):
        if point > budget:
            break
        best = max(best, point)
    kept = text[:best] if best else f"{MARKER}\n"
    return (kept if kept.endswith("\n") else kept + "\n") + note
