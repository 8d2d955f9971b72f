"""Plain text for people at a terminal: verdict first, aligned, colour only on a terminal."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from roofbot.core.results import RecordResult, Report, RoofCheck, Verdict
from roofbot.core.units import show_input
from roofbot.render.findings import Finding

_COLOURS = {
    Verdict.ERROR: "\x1b[1;31m",
    Verdict.VIOLATION: "\x1b[1;31m",
    Verdict.SUSPECT: "\x1b[33m",
    Verdict.UNCHECKED: "\x1b[2m",
    Verdict.PASS: "\x1b[32m",
    Verdict.SKIPPED: "\x1b[2m",
}
_RESET = "\x1b[0m"


def _clean(text: str, limit: int = 160) -> str:
    """One line, no control characters: record text is a stranger's."""
    out = "".join(ch if ch.isprintable() else " " for ch in text)
    out = " ".join(out.split())
    return out if len(out) <= limit else out[: limit - 1] + "…"


def _verdict(v: Verdict, color: bool) -> str:
    word = f"{v.value:<9}"
    return f"{_COLOURS[v]}{word}{_RESET}" if color else word


def check_line(c: RoofCheck) -> str:
    state = "applies" if c.applies else "not applied"
    line = f"{c.check.value:<20} {c.percent:8.1f}%  {state:<11}  {c.formula}"
    if c.why:
        line += f"  ({c.why})"
    return line


def record_lines(
    r: RecordResult, color: bool, verbose: bool = False, found: Sequence[Finding] = ()
) -> list[str]:
    b = r.binding()
    where = f"{b.percent:6.1f}% of {b.check.value}" if b else " " * 7 + "-"
    head = f"{_verdict(r.verdict, color)} {where:<30} {_clean(r.id, 90)}"
    lines = [head]
    show = verbose or r.verdict in (
        Verdict.ERROR,
        Verdict.VIOLATION,
        Verdict.SUSPECT,
        Verdict.UNCHECKED,
    )
    if show:
        main = next((f for f in found if not f.trap), None)
        if main is not None:
            col = f":{main.column}" if main.column else ""
            lines.append(f"          {_clean(main.path, 200)}:{main.line}{col}")
        for m in r.messages[:3]:
            lines.append(f"          {_clean(m.text, 200)}")
        if main is not None and main.advice:
            lines.append(f"          to fix: {_clean(main.advice, 400)}")
        for t in r.traps:
            lines.append(f"          trap: {t}")
    return lines


def render_text(
    report: Report,
    color: bool = False,
    verbose: bool = False,
    quiet: bool = False,
    found: Mapping[str, Sequence[Finding]] | None = None,
) -> str:
    """The report for a terminal. `quiet`: only the records that fail the run, and the
    summary. `found`: findings by record id, for `path:line` and what to change."""
    found = found or {}
    out: list[str] = []
    ordered = sorted(report.records, key=lambda r: (r.deprecated, r.verdict.rank, r.id))
    if quiet:
        failing = {id(r) for r in report.failing()}
        ordered = [r for r in ordered if id(r) in failing]
    current = [r for r in ordered if not r.deprecated and r.verdict is not Verdict.SKIPPED]
    deprecated = [r for r in ordered if r.deprecated and r.verdict is not Verdict.SKIPPED]
    for r in current:
        out += record_lines(r, color, verbose, found.get(r.id, ()))
    if deprecated:
        out.append("")
        out.append(
            f"deprecated records ({len(deprecated)}, reported apart"
            f"{'' if report.deprecated_fail else ', never fail the run'}):"
        )
        for r in deprecated:
            out += record_lines(r, color, verbose, found.get(r.id, ()))
    out.append("")
    counts = ", ".join(f"{report.count(v)} {v.value}" for v in Verdict if report.count(v))
    out.append(f"{len(report.records)} records: {counts}")
    out.append(
        f"coverage: {report.checked} of {report.token_rate_records} token-rate records "
        "get an applied roof"
    )
    cal = report.calibration
    if cal.ran:
        state = "ok" if cal.ok else "FAILED"
        out.append(
            f"calibration: {state} ({sum(e.ok for e in cal.entries)}/{len(cal.entries)} "
            f"within {cal.tolerance_pp:g} pp)"
        )
        for e in cal.entries:
            if not e.ok:
                out.append(f"  MISS {e.id} {e.check}: {_clean(e.why or '', 400)}")
    for m in report.messages[:20]:
        out.append(f"note: {_clean(m.text, 200)}")
    out.append("ok" if report.ok else "NOT OK")
    return "\n".join(out) + "\n"


def explain_record(r: RecordResult) -> str:
    """The arithmetic step by step, each input with its provenance, as on paper."""
    out = [f"{r.id}  ({r.path})", f"  verdict: {r.verdict.value}"]
    if r.metric:
        out.append(
            f"  metric:  {r.metric} = {r.value if r.value is not None else '?'} "
            f"[{_clean(r.unit or '', 100)}]"
        )
    if r.inputs:
        out.append("  inputs:")
        width = max(len(n) for n, _ in r.inputs)
        for name, i in r.inputs:
            val = i.value.value if hasattr(i.value, "value") else i.value
            val = show_input(name, val) or (f"{val:.6g}" if isinstance(val, float) else val)
            tag = (
                ""
                if i.basis.value in ("field", "catalogue", "text", "derived")
                else f" [{i.basis.value}]"
            )
            out.append(f"    {name:<{width}}  {val}{tag}")
            out.append(f"    {'':<{width}}  from {_clean(i.source, 200)}")
    if r.checks:
        out.append("  ceilings:")
        for c in r.checks:
            out.append(f"    {check_line(c)}")
            for label, x in c.alternatives:
                out.append(f"      under {label}: {x:.2f} tok/s -> {100 * c.value / x:.1f}%")
            if c.assumed:
                out.append(f"      rests on assumed: {', '.join(c.assumed)}")
    for t, why in r.trap_notes:
        out.append(f"  trap {t}: {_clean(why, 300)}")
    for m in r.messages:
        out.append(f"  {m.level}: {_clean(m.text, 300)}")
    for lack in r.lacks:
        out.append(f"  lacks: {_clean(lack, 300)}")
    return "\n".join(out) + "\n"
