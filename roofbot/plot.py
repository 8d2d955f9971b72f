"""Pictures of a report (`roofbot plot`, matplotlib from the `[plot]` extra).

- The corpus chart: every checked record as a point at its percent of the roof that binds it
  (log scale, the 100% line marked), coloured by verdict, shaped by which roof binds, hollow
  when deprecated, ringed when it is a calibration record.
- The batch sweep of one record: aggregate tok/s against batch size B, with the batch-1 memory
  roof, the batched memory roof (B x the batch-1 roof) and the compute roof, which cross at
  B* = compute roof / batch-1 roof, and the record placed on it.

matplotlib is imported here only, and only when a chart is drawn (no pyplot: no global state,
no display needed)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from roofbot.core.provenance import clip
from roofbot.core.results import CheckId, RateKind, RecordResult, Report, RoofCheck, Verdict

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FORMATS = ("png", "svg")
COLOURS = {
    Verdict.VIOLATION: "#d62728",
    Verdict.SUSPECT: "#ff7f0e",
    Verdict.PASS: "#2ca02c",
    Verdict.UNCHECKED: "#7f7f7f",
    Verdict.ERROR: "#9467bd",
    Verdict.SKIPPED: "#bbbbbb",
}
MARKERS = {CheckId.MEMORY: "o", CheckId.BATCHED: "s", CheckId.COMPUTE: "^"}
ROOF_WORDS = {
    CheckId.MEMORY: "batch-1 memory roof",
    CheckId.BATCHED: "batched memory roof",
    CheckId.COMPUTE: "compute roof",
}
LABEL_LIMIT = 150  # above this many records the corpus chart drops the id labels


class PlotUnavailable(RuntimeError):
    """matplotlib is not installed."""


def _figure(width: float, height: float) -> Figure:
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise PlotUnavailable(
            "roofbot plot needs matplotlib: pip install 'roofbot[plot]'"
        ) from None
    return Figure(figsize=(width, height), layout="constrained")


def save(fig: Figure, base: Path, formats: Iterable[str] = FORMATS) -> list[Path]:
    """Write `base`.png / .svg (deterministic: no date, fixed SVG ids)."""
    import matplotlib

    out = []
    base.parent.mkdir(parents=True, exist_ok=True)
    for fmt in formats:
        path = base.with_suffix(f".{fmt}")
        with matplotlib.rc_context({"svg.hashsalt": "roofbot", "svg.fonttype": "none"}):
            meta: dict[str, Any] = {"Date": None} if fmt == "svg" else {"Software": "roofbot"}
            fig.savefig(path, format=fmt, dpi=110, metadata=meta)
        out.append(path)
    return out


# ------------------------------------------------------------------ the corpus chart


@dataclass(frozen=True)
class Point:
    id: str
    percent: float
    check: CheckId
    verdict: Verdict
    deprecated: bool
    calibration: bool


def points(report: Report, calibration_ids: Iterable[str] = ()) -> list[Point]:
    """One point per record with an applied roof, lowest percent first."""
    cal = set(calibration_ids)
    out = []
    for r in report.records:
        b = r.binding()
        if b is None or b.ceiling <= 0:
            continue
        out.append(Point(r.id, b.percent, b.check, r.verdict, r.deprecated, r.id in cal))
    return sorted(out, key=lambda p: (p.percent, p.id))


def corpus_chart(report: Report, calibration_ids: Iterable[str] = (), title: str = "") -> Figure:
    pts = points(report, calibration_ids)
    labelled = len(pts) <= LABEL_LIMIT
    height = max(3.5, 0.22 * len(pts) + 1.6) if labelled else 7.0
    fig = _figure(11.0 if labelled else 9.0, height)
    ax = fig.add_subplot()
    ax.set_xscale("log")
    for i, p in enumerate(pts):
        colour = COLOURS[p.verdict]
        ax.scatter(
            [max(p.percent, 1e-3)],
            [i],
            marker=MARKERS[p.check],
            s=46 if labelled else 14,
            facecolors="none" if p.deprecated else colour,
            edgecolors=colour,
            linewidths=1.4,
            zorder=3,
        )
        if p.calibration:
            ax.scatter(
                [max(p.percent, 1e-3)], [i], marker="o", s=170, facecolors="none",
                edgecolors="black", linewidths=1.2, zorder=4,
            )  # fmt: skip
    ax.axvline(100.0, color="#d62728", linestyle="--", linewidth=1.2, zorder=2)
    ax.axvspan(100.0, max([200.0, *(p.percent * 1.6 for p in pts)]), color="#d62728", alpha=0.06)
    if labelled:
        ax.set_yticks(range(len(pts)), [clip(p.id, 58) for p in pts], fontsize=7.5)
        ax.set_ylim(-0.8, len(pts) - 0.2)
    else:
        ax.set_ylabel("records, lowest percent first")
    ax.set_xlabel("percent of the roof that binds the record (log scale; above 100% is over it)")
    ax.grid(axis="x", which="both", alpha=0.25)
    ax.xaxis.set_major_formatter(_percent_formatter())
    not_plotted = ", ".join(
        f"{report.count(v)} {v.value}"
        for v in (Verdict.UNCHECKED, Verdict.ERROR, Verdict.SKIPPED)
        if report.count(v)
    )
    head = title or "roofbot: each record against the roof that binds it"
    ax.set_title(
        f"{head}\n{len(pts)} checked of {report.token_rate_records} token-rate records; "
        f"{report.count(Verdict.VIOLATION)} violation, {report.count(Verdict.SUSPECT)} suspect"
        + (f"; not plotted: {not_plotted}" if not_plotted else ""),
        fontsize=10,
    )
    _corpus_legend(ax, pts)
    return fig


def _percent_formatter() -> Any:
    from matplotlib.ticker import FuncFormatter

    return FuncFormatter(lambda x, _pos: f"{x:g}%")


def _corpus_legend(ax: Any, pts: Sequence[Point]) -> None:
    from matplotlib.lines import Line2D

    handles = []
    for v in (Verdict.VIOLATION, Verdict.SUSPECT, Verdict.PASS):
        handles.append(Line2D([], [], marker="o", linestyle="", color=COLOURS[v], label=v.value))
    for check in (CheckId.MEMORY, CheckId.BATCHED, CheckId.COMPUTE):
        handles.append(
            Line2D([], [], marker=MARKERS[check], linestyle="", color="#555555",
                   label=f"binds: {ROOF_WORDS[check]}")
        )  # fmt: skip
    if any(p.deprecated for p in pts):
        handles.append(
            Line2D([], [], marker="o", linestyle="", markerfacecolor="none",
                   markeredgecolor="#555555", label="deprecated (hollow)")
        )  # fmt: skip
    if any(p.calibration for p in pts):
        handles.append(
            Line2D([], [], marker="o", linestyle="", markersize=12, markerfacecolor="none",
                   markeredgecolor="black", label="calibration record")
        )  # fmt: skip
    handles.append(Line2D([], [], color="#d62728", linestyle="--", label="100% of the roof"))
    ax.legend(handles=handles, loc="lower right", fontsize=8, framealpha=0.9)


# ------------------------------------------------------------------ the batch sweep


@dataclass(frozen=True)
class Sweep:
    """What the sweep chart draws for one record, in aggregate tok/s."""

    memory: float | None  # the batch-1 memory roof
    compute: float | None
    b_star: float | None  # where B x memory meets compute
    batch: int | None
    rate: RateKind | None
    point: tuple[float, float] | None  # (B, aggregate tok/s) of the record, when placed
    line: float | None  # the record's value as a level, when its batch is unknown
    note: str


def _check(r: RecordResult, cid: CheckId) -> RoofCheck | None:
    return next((c for c in r.checks if c.check is cid), None)


def _input(r: RecordResult, name: str) -> Any:
    return next((i.value for n, i in r.inputs if n == name), None)


def sweep(r: RecordResult) -> Sweep:
    mem, comp = _check(r, CheckId.MEMORY), _check(r, CheckId.COMPUTE)
    memory = mem.ceiling if mem else None
    compute = comp.ceiling if comp else None
    b_star = compute / memory if memory and compute else None
    batch = _input(r, "batch")
    rate = _input(r, "rate")
    value = r.value or 0.0
    point: tuple[float, float] | None = None
    line: float | None = None
    if rate is RateKind.AGGREGATE and batch:
        point, note = (float(batch), value), f"aggregate at batch {batch}"
    elif rate is RateKind.PER_SEQUENCE and batch and batch > 1:
        point = (float(batch), value * batch)
        note = f"per-user {value:g} tok/s x batch {batch} = {value * batch:g} tok/s aggregate"
    elif rate is RateKind.PER_SEQUENCE:
        point, note = (1.0, value), "one sequence (batch 1)"
    elif rate is RateKind.PREFILL:
        line, note = value, "prefill: only the compute roof applies"
    else:
        line, note = value, "aggregate at an unknown batch: only the compute roof applies"
    return Sweep(memory, compute, b_star, batch, rate, point, line, note)


def sweep_chart(r: RecordResult) -> Figure:
    s = sweep(r)
    if s.memory is None and s.compute is None:
        raise ValueError(f"{r.id}: no roof could be computed ({'; '.join(r.lacks) or 'unchecked'})")
    fig = _figure(9.0, 5.6)
    ax = fig.add_subplot()
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    top = max(64.0, 4 * (s.b_star or 0.0), 4 * (s.point[0] if s.point else 0.0))
    top_b = 2 ** math.ceil(math.log2(top))
    bs = [2 ** (i / 8) for i in range(8 * int(math.log2(top_b)) + 1)]
    colour = COLOURS[r.verdict]
    levels = [x for x in (s.memory, s.compute, s.line, s.point[1] if s.point else None) if x]
    bottom = min(levels) / 4
    if s.memory is not None:
        ax.plot(bs, [s.memory] * len(bs), color="#1f77b4", linestyle="--", linewidth=1.3,
                label=f"batch-1 memory roof {s.memory:,.1f} tok/s (one sequence)")  # fmt: skip
        cap = 4 * s.compute if s.compute is not None else math.inf
        batched = [b * s.memory for b in bs if b * s.memory <= cap]
        ax.plot(bs[: len(batched)], batched, color="#1f77b4", linewidth=2,
                label=f"batched memory roof B x {s.memory:,.1f} tok/s")  # fmt: skip
    if s.compute is not None:
        ax.plot(bs, [s.compute] * len(bs), color="#d62728", linewidth=2,
                label=f"compute roof {s.compute:,.0f} tok/s")  # fmt: skip
    if s.memory is not None and s.compute is not None:
        envelope = [min(b * s.memory, s.compute) for b in bs]
        ax.fill_between(bs, envelope, [bottom] * len(bs), color="#2ca02c", alpha=0.08,
                        label="attainable: under both roofs")  # fmt: skip
        if s.b_star is not None:
            ax.axvline(s.b_star, color="#555555", linestyle=":", linewidth=1.2)
            ax.annotate(
                f"B* = {s.b_star:,.0f}", (s.b_star, s.compute), textcoords="offset points",
                xytext=(6, -16), fontsize=9, color="#333333",
            )  # fmt: skip
    b = r.binding()
    where = f"{b.percent:.1f}% of its {b.check.value}" if b else "no roof applies"
    if s.point is not None:
        ax.scatter([s.point[0]], [s.point[1]], s=90, color=colour, edgecolors="black", zorder=5,
                   label=f"{r.verdict.value}: {s.note}")  # fmt: skip
        ax.annotate(
            f"{s.point[1]:,.4g} tok/s\n{where}", s.point, textcoords="offset points",
            xytext=(10, -4), fontsize=9, va="top",
        )  # fmt: skip
    elif s.line is not None:
        ax.plot(bs, [s.line] * len(bs), color=colour, linestyle="-.", linewidth=1.6,
                label=f"{r.verdict.value}: {r.value:g} tok/s, {s.note}")  # fmt: skip
    ax.set_ylim(bottom, max(levels) * 4)
    ax.set_xlim(0.7, top_b)
    ax.set_xlabel("batch size B (sequences in flight, log scale)")
    ax.set_ylabel("aggregate tok/s (log scale)")
    ax.grid(which="both", alpha=0.2)
    from matplotlib.ticker import FuncFormatter, NullFormatter

    plain = FuncFormatter(lambda x, _pos: f"{x:,.0f}" if x >= 1 else f"{x:g}")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _pos: f"{x:g}"))
    ax.yaxis.set_major_formatter(plain)
    ax.yaxis.set_minor_formatter(plain if max(levels) / min(levels) < 10 else NullFormatter())
    lacks = f" ({r.lacks[0]})" if r.lacks and b is None else ""
    ax.set_title(f"{clip(r.id, 80)}\n{r.verdict.value}: {where}{lacks}", fontsize=10)
    ax.legend(loc="upper left", fontsize=8, framealpha=0.9)
    return fig
