"""A Mermaid label filter (`label`) for a repository's own template. The built-in comment
draws no chart: a chart in the comment would have to show each value against its ceiling with
the roof drawn, and the matplotlib roofline chart (`roofbot plot`, the workflow's artifact)
does that; the comment links it."""

from __future__ import annotations

import re

from roofbot.render.markdown.escape import Safe, plain, raw


def chart_label(value: object, limit: int = 24) -> Safe:
    """A Mermaid x-axis label: letters, digits, dot, dash only (no quote can close it)."""
    text = re.sub(r"[^A-Za-z0-9.\-]+", "-", plain(raw(value), 200)).strip("-") or "record"
    return Safe(text if len(text) <= limit else text[: limit - 1] + "~")
