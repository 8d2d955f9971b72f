"""The chart of a run (the `plot` extra): drawn only when asked for and installed."""

from __future__ import annotations

from pathlib import Path

from roofbot.core.config import Config
from roofbot.core.results import Report

NO_CHART = "no chart (install roofbot[plot]): matplotlib is not installed"
"""The note in the log and the comment of a run asked for a chart without the `plot` extra."""


class ChartUnavailable(RuntimeError):
    """A chart was asked for (input plot) and matplotlib, the `plot` extra, is missing."""


def draw_chart(report: Report, config: Config, folder: Path | None) -> Path | None:
    """The roofline chart of the checked records (PNG and SVG) for the workflow to upload as
    an artifact; None when charts are off or there is nothing to draw. ChartUnavailable when
    matplotlib (the `plot` extra, in the action's image; not in a plain `pip install .`) is
    missing: the caller says so and goes on."""
    if folder is None or not any(r.checks for r in report.records):
        return None
    from roofbot import plot  # matplotlib itself is imported only when a chart is drawn

    try:
        fig = plot.corpus_chart(report, (c.id for c in config.calibration), "roofcheck")
        return plot.save(fig, folder / "roofline")[0]
    except (ImportError, plot.PlotUnavailable):
        raise ChartUnavailable(NO_CHART) from None
