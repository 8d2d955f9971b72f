"""Plain text for people at a terminal: verdict first, aligned, colour only on a terminal."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from operator import attrgetter
from typing import NamedTuple

from roofbot.core.figures import figure, percent, roof_name
from roofbot.core.provenance import clip
from roofbot.core.results import Calibration, Message, RecordResult, Report, RoofCheck, Verdict
from roofbot.core.units import show_input
from roofbot.render.findings import Finding, record_fix

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
    if not text.isprintable():  # most text is: then it needs no walk character by character
        text = "".join(ch if ch.isprintable() else " " for ch in text)
    return clip(" ".join(text.split()), limit)


_WORD = 9
"""Characters of a record's first line that hold its verdict word (coloured on a terminal)."""


def check_line(c: RoofCheck) -> str:
    state = "applies" if c.applies else "not applied"
    line = f"{c.check.value:<20} {percent(c.percent):>8}  {state:<11}  {c.formula}"
    if c.why:
        line += f"  ({c.why})"
    return line


def record_lines(
    r: RecordResult, verbose: bool = False, found: Sequence[Finding] = ()
) -> list[str]:
    """A record's lines, uncoloured (`_coloured` colours the verdict word); `verbose` cuts
    no text short."""
    cut = 100_000 if verbose else 200
    b = r.binding()
    where = f"{percent(b.percent):>7} of {roof_name(b.check.value)}" if b else " " * 7 + "-"
    head = f"{r.verdict.value:<{_WORD}} {where:<30} {_clean(r.id, 90)}"
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
            lines.append(f"          {_clean(main.path, cut)}:{main.line}{col}")
        for m in r.messages if verbose else r.messages[:3]:
            lines.append(f"          {_clean(m.text, cut)}")
        if main is not None and main.advice:
            lines.append(f"          to fix: {_clean(main.advice, 2 * cut)}")
        for t in r.traps:
            lines.append(f"          trap: {t}")
    return lines


class TextEntry(NamedTuple):
    """One record as the text report lists it: how it sorts and counts, and its lines
    (uncoloured: colour goes on as the report is put together). `rank` is the verdict's,
    for sorting."""

    verdict: Verdict
    deprecated: bool
    id: str
    fails: bool
    lines: str
    rank: int
    kind: str | None = None  # the catalogue kind ("accelerators") of a catalogue file
    problem: str | None = None  # a catalogue file's defect, as files that share it are grouped


def text_entry(
    r: RecordResult,
    fails: bool,
    verbose: bool = False,
    found: Sequence[Finding] = (),
    kind: str | None = None,
) -> TextEntry:
    lines = "\n".join(record_lines(r, verbose, found))
    problem = _problem(r.messages[0].text) if kind and r.messages else None
    return TextEntry(r.verdict, r.deprecated, r.id, fails, lines, r.verdict.rank, kind, problem)


def _problem(message: str) -> str:
    """A catalogue file's defect without what differs from file to file (the row), so the
    55 files that lack the same field read as one line."""
    if m := re.search(r"at ([A-Za-z_]+)/\d+: '([^']+)' is a required property", message):
        return f"a `{m[1]}` row lacks `{m[2]}`"
    if m := re.search(r"at ([^:]+): '([^']+)' is a required property", message):
        return f"`{m[1]}` lacks `{m[2]}`"
    if m := re.search(r": '([^']+)' is a required property", message):
        return f"lacks `{m[1]}`"
    if m := re.search(r"at ([^:]+): .+? is not one of \[", message):
        where = re.sub(r"/\d+", "/…", m[1])
        return f"`{where}` is none of the values the schema allows"
    if "Additional properties are not allowed" in message:
        return "fields the schema does not allow"
    return re.sub(r"/\d+(?=[/:])", "/…", message)


class TextSummary(NamedTuple):
    """What the text report's last lines say."""

    counts: Mapping[Verdict, int]
    records: int
    checked: int
    token_rate_records: int
    calibration: Calibration
    messages: Sequence[Message]
    ok: bool
    deprecated_fail: bool


def render_text(
    report: Report,
    color: bool = False,
    verbose: bool = False,
    quiet: bool = False,
    found: Mapping[str, Sequence[Finding]] | None = None,
    kind_of: Callable[[str], str | None] | None = None,
) -> str:
    """The report for a terminal: the benchmark records first, then the catalogue files,
    those with the same defect as one line (`verbose` lists them, and cuts nothing short).
    `quiet`: only what fails the run. `found`: findings by record id, for `path:line` and
    what to change; `kind_of`: a path's catalogue kind, None for a benchmark record."""
    found = found or {}
    failing = {id(r) for r in report.failing()}
    kind = kind_of or (lambda _path: None)
    entries = [
        text_entry(r, id(r) in failing, verbose, found.get(r.id, ()), kind(r.path))
        for r in report.records
    ]
    summary = TextSummary(
        {v: report.count(v) for v in Verdict},
        len(report.records),
        report.checked,
        report.token_rate_records,
        report.calibration,
        report.messages,
        report.ok,
        report.deprecated_fail,
    )
    return assemble(entries, summary, color, quiet, verbose)


_ORDER = attrgetter("deprecated", "rank", "id")
"""How the text report orders its records: current before deprecated, worst verdict first,
then by id (the sort is stable: equal ids keep their order)."""


def _grouped(entries: list[TextEntry], color: bool) -> list[str]:
    """Catalogue files: those that share a defect as one line ("55 accelerators: a `flops`
    row lacks `basis`; list with -v"), a defect of one file as its own entry."""
    groups: dict[tuple[str | None, str | None], list[TextEntry]] = {}
    for e in entries:
        groups.setdefault((e.kind, e.problem), []).append(e)
    out: list[str] = []
    for (kind, problem), members in groups.items():
        if problem is None or len(members) == 1:
            out += [_coloured(e, color) for e in members]
            continue
        word = f"{members[0].verdict.value:<{_WORD}}"
        head = f"{_COLOURS[members[0].verdict]}{word}{_RESET}" if color else word
        out.append(f"{head} {len(members)} {kind}: {problem}; list with -v")
    return out


def assemble(
    entries: list[TextEntry],
    summary: TextSummary,
    color: bool,
    quiet: bool,
    verbose: bool = False,
) -> str:
    """The text report from its records' entries (in any order) and its summary: benchmark
    verdicts first, the catalogue's files after them (grouped unless `verbose`)."""
    ordered = sorted(entries, key=_ORDER)
    if quiet:
        ordered = [e for e in ordered if e.fails]
    shown = [e for e in ordered if e.verdict is not Verdict.SKIPPED]
    current = [e for e in shown if not e.deprecated and e.kind is None]
    catalogue = [e for e in shown if not e.deprecated and e.kind is not None]
    deprecated = [e for e in shown if e.deprecated]
    out: list[str] = [_coloured(e, color) for e in current]
    if catalogue:
        if out:
            out.append("")
        out.append(f"catalogue files ({len(catalogue)}):")
        out += [_coloured(e, color) for e in catalogue] if verbose else _grouped(catalogue, color)
    if deprecated:
        out.append("")
        out.append(
            f"deprecated records ({len(deprecated)}, reported apart"
            f"{'' if summary.deprecated_fail else ', never fail the run'}):"
        )
        out += [_coloured(e, color) for e in deprecated]
    out.append("")
    counts = ", ".join(f"{summary.counts[v]} {v.value}" for v in Verdict if summary.counts.get(v))
    out.append(f"{summary.records} record{'' if summary.records == 1 else 's'}: {counts}")
    cal = summary.calibration
    if not quiet:
        out.append(
            f"coverage: {summary.checked} of {summary.token_rate_records} token-rate records "
            "get an applied roof"
        )
    if cal.ran and (not quiet or not cal.ok):
        state = "ok" if cal.ok else "FAILED"
        out.append(
            f"calibration: {state} ({sum(e.ok for e in cal.entries)}/{len(cal.entries)} "
            f"within {cal.tolerance_pp:g} pp)"
        )
        for e in cal.entries:
            if not e.ok:
                out.append(f"  MISS {e.id} {e.check}: {_clean(e.why or '', 400)}")
    elif not cal.ran and not quiet:
        out.append("calibration: not run")
    if not quiet:
        notes = summary.messages if verbose else summary.messages[:20]
        for m in notes:
            out.append(f"note: {_clean(m.text, 100_000 if verbose else 200)}")
    out.append("ok" if summary.ok else "NOT OK")
    return "\n".join(out) + "\n"


def _coloured(e: TextEntry, color: bool) -> str:
    """The entry's lines, its verdict word coloured on a terminal."""
    if not color:
        return e.lines
    return f"{_COLOURS[e.verdict]}{e.lines[:_WORD]}{_RESET}{e.lines[_WORD:]}"


def message_label(r: RecordResult, m: Message) -> str:
    """The word a record's message is shown under: its verdict for the message that states
    the verdict (a violation's is not an `error`), else its level."""
    if m.level == "error" and r.verdict is not Verdict.ERROR:
        return str(r.verdict.value)
    return m.level


def explain_record(r: RecordResult, advice: str | None = None) -> str:
    """The arithmetic step by step, each input with its provenance, as on paper; `advice`,
    what to change (the report's `to fix:`), last."""
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
    if r.set_aside:
        out.append("  readings set aside:")
        for name, why in r.set_aside[:12]:
            out.append(f"    {name}: {_clean(why, 240)}")
    if r.checks:
        out.append("  ceilings:")
        for c in r.checks:
            out.append(f"    {check_line(c)}")
            for label, x in c.alternatives:
                share = percent(100 * c.value / x) if x else "–"
                out.append(f"      under {label}: {figure(x, 'tok/s')} -> {share}")
            if c.assumed:
                out.append(f"      rests on assumed: {', '.join(c.assumed)}")
    for t, why in r.trap_notes:
        out.append(f"  trap {t}: {_clean(why, 300)}")
    for m in r.messages:
        out.append(f"  {message_label(r, m)}: {_clean(m.text, 300)}")
    for lack in r.lacks:
        out.append(f"  lacks: {_clean(lack, 300)}")
    if fix := record_fix(r) or advice:
        out.append(f"  to fix: {_clean(fix, 400)}")
    return "\n".join(out) + "\n"
