"""The comment's Mermaid charts: the report's bar chart of each record's percent of its roof,
and, in a flagged record's details, the record against its roofs across batch sizes. Every
label is reduced to characters that can't close a Mermaid string."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

from roofbot.core.results import RecordResult
from roofbot.plot import Sweep, sweep
from roofbot.render.markdown.escape import Safe, md, num, plain, raw

CHART_MAX = 30  # records in the report's chart; the rest are counted
RECORD_CHART_MAX_B = 256  # the per-record chart's batch axis stops here


def chart_label(value: object, limit: int = 24) -> Safe:
    """A Mermaid x-axis label: letters, digits, dot, dash only (no quote can close it)."""
    text = re.sub(r"[^A-Za-z0-9.\-]+", "-", plain(raw(value), 200)).strip("-") or "record"
    return Safe(text if len(text) <= limit else text[: limit - 1] + "~")


def distinct_labels(values: Iterable[object], limit: int = 24) -> list[Safe]:
    """Mermaid labels for `values`, no two alike: an id cut to the same label as another
    keeps its start and its end instead (`mpt7b-a100-bs1-per-user-decode-tps` and
    `...-per-user-ttft-ms` differ at the end), and labels still alike are numbered."""
    whole = [str(chart_label(v, 200)) for v in values]
    out = [str(chart_label(text, limit)) for text in whole]
    for i, text in enumerate(whole):
        if len(text) > limit and out.count(out[i]) > 1:
            head = (limit - 1) // 2
            out[i] = text[:head] + "~" + text[len(text) - (limit - 1 - head) :]
    taken: set[str] = set()
    for i, text in enumerate(out):
        n = 1
        while out[i] in taken:  # the second of two alike, and on: numbered
            n += 1
            tag = f"-{n}"
            out[i] = text[: limit - len(tag)] + tag
        taken.add(out[i])
    return [Safe(t) for t in out]


def report_chart(records: list[RecordResult]) -> dict[str, Any] | None:
    """The report's bar chart: each record's percent of its binding roof (the first
    `CHART_MAX`), against a line at 100%; None when no record has a finite percent."""
    points = [(r.id, b.percent) for r in records if (b := r.binding()) and math.isfinite(b.percent)]
    if not points:
        return None
    shown = points[:CHART_MAX]
    top = max(100.0, *(p for _, p in shown))
    return {
        "labels": distinct_labels(i for i, _ in shown),
        "bars": [Safe(f"{p:.1f}") for _, p in shown],
        "limit": [Safe("100") for _ in shown],
        "ymax": Safe(f"{math.ceil(top / 10) * 10}"),
        "omitted": len(points) - len(shown),
    }


def record_chart(r: RecordResult) -> dict[str, Any] | None:
    """The record against its ceilings across batch sizes, for a Mermaid xychart in its
    details: the comment's counterpart of `roofbot plot --record` (the same `plot.sweep`).
    Aggregate tok/s at B = 1, 2, 4, ...: the record as a bar at its batch (a bar at every B
    when its batch is unknown), the batched memory roof (B x the batch-1 roof) and the compute
    roof as lines; a roof far above the record is named in the caption, not drawn."""
    s = sweep(r)
    if s.memory is None and s.compute is None:
        return None
    at = int(s.point[0]) if s.point else 1
    top_b = 8
    while top_b < 2 * at and top_b < RECORD_CHART_MAX_B:
        top_b *= 2
    batches = [2**i for i in range(int(math.log2(top_b)) + 1)]
    level = s.point[1] if s.point else (s.line or 0.0)
    ymax = _top_of_axis(s, level, min(at, top_b))
    bars = [(level if (s.point is None or b == int(s.point[0])) else 0.0) for b in batches]
    lines, caption = _roof_lines(s, batches, ymax, level)
    return {
        "title": Safe(chart_label(r.id, 60)),
        "batches": [Safe(str(b)) for b in batches],
        "bars": [Safe(f"{x:.4g}") for x in bars],
        "lines": lines,
        "ymax": Safe(f"{ymax:g}"),
        "caption": md(caption + "."),
    }


def _top_of_axis(s: Sweep, level: float, batch: int) -> float:
    """The y axis's top: half again over the record and the memory roof at its batch, rounded
    up in the leading digit."""
    near = [level]
    if s.memory is not None:
        near.append(s.memory * batch)
    ymax = max(near) * 1.5 or 1.0
    step = 10 ** math.floor(math.log10(ymax))
    return float(math.ceil(ymax / step) * step)


def _roof_lines(
    s: Sweep, batches: list[int], ymax: float, level: float
) -> tuple[list[list[Safe]], str]:
    """The roofs drawn as lines (each cut at the axis's top), and the caption that names
    them, and any roof above the chart."""
    lines: list[list[Safe]] = []
    drawn: list[str] = []
    beyond: list[str] = []
    if s.memory is not None:
        lines.append([Safe(f"{min(b * s.memory, ymax):.4g}") for b in batches])
        drawn.append(f"the batched memory roof (B x {num(s.memory)} tok/s, cut at the top)")
    if s.compute is not None:
        if s.compute <= ymax:
            lines.append([Safe(f"{s.compute:.4g}") for _ in batches])
            drawn.append(f"the compute roof ({num(s.compute)} tok/s)")
        else:
            beyond.append(f"the compute roof ({num(s.compute)} tok/s) is above the chart")
    what = "at its batch" if s.point else "its batch unknown: at every B"
    caption = f"Bar: the record, {num(level)} tok/s aggregate {what}"
    if drawn:
        caption += "; lines: " + ", then ".join(drawn)
    if beyond:
        caption += "; " + "; ".join(beyond)
    return lines, caption
