"""GitHub workflow-command annotations (`--format github`, the default when GITHUB_ACTIONS is
set), in yamllint's style: one `::group::` per file, `::error file=…,line=…,col=…::[rule]
message`, then a plain summary line. Every value is escaped, so record text can't forge a
command."""

from __future__ import annotations

from collections.abc import Sequence

from roofbot.adapters.actions import Annotation, escape_data, escape_property
from roofbot.adapters.jsonfile import MAX_BYTES
from roofbot.adapters.tree import Tree, read_or_none
from roofbot.core.figures import percent, roof_name
from roofbot.core.results import Report, Verdict
from roofbot.render.findings import Finding, line_of, record_findings

_LEVEL = {"error": "error", "warning": "warning", "note": "notice"}


def annotation(f: Finding) -> str:
    props = [f"file={escape_property(f.path)}", f"line={max(1, f.line)}"]
    if f.column:
        props.append(f"col={f.column}")
    props.append(f"title={escape_property(f'roofbot {f.rule}: {f.record}')}")
    text = f"[{f.rule}] {f.message}"
    if f.advice:
        text += f". To fix: {f.advice}"
    return f"::{_LEVEL[f.level]} {','.join(props)}::{escape_data(text)}"


def render_github(
    report: Report, items: Sequence[Finding], quiet: bool = False, verbose: bool = False
) -> str:
    chosen = [f for f in items if (f.fails if quiet else verbose or not f.trap)]
    out: list[str] = []
    current: str | None = None
    for f in sorted(chosen, key=lambda f: f.path):
        if f.path != current:
            if current is not None:
                out.append("::endgroup::")
            out.append(f"::group::{escape_data(f.path)}")
            current = f.path
        out.append(annotation(f))
    if current is not None:
        out.append("::endgroup::")
    counts = ", ".join(f"{report.count(v)} {v.value}" for v in Verdict if report.count(v))
    state = "ok" if report.ok else "NOT OK"
    cal = report.calibration
    n = len(report.records)
    out.append(
        f"roofbot: {n} record{'' if n == 1 else 's'} ({counts or 'none'}); coverage "
        f"{report.checked}/{report.token_rate_records}; calibration "
        f"{'not run' if not cal.ran else 'ok' if cal.ok else 'FAILED'}; {state}"
    )
    return "\n".join(out) + "\n"


def annotations_for(report: Report, tree: Tree) -> list[Annotation]:
    """The annotations of `roofbot pr`: one per failing or suspect record, at the line of its
    finding (as `check` and the line comment place it), and one per calibration miss."""
    out: list[Annotation] = []
    failing = {r.id for r in report.failing()}
    for r in report.records:
        if r.id not in failing and r.verdict is not Verdict.SUSPECT:
            continue
        raw = read_or_none(tree, r.path, MAX_BYTES)
        text = raw.decode("utf-8", "replace") if raw is not None else ""
        # the line of the record's finding: the one `check`, the line comment and the
        # comment's link point at (a JSON error's own line, not `value`'s)
        main = next((f for f in record_findings(r, raw, True) if not f.trap), None)
        b = r.binding()
        what = f" at {percent(b.percent)} of its {roof_name(b.check.value)}" if b else ""
        msg = f": {r.messages[0].text}" if r.messages else ""
        message = f"{r.verdict.value}: {r.id}{what}{msg}"
        field = next((m.field for m in r.messages if m.field), None) or "value"
        line = main.line if main is not None else line_of(text, field) or line_of(text, "value")
        out.append(
            Annotation(
                "error" if r.id in failing else "warning",
                message[:1000],
                file=r.path,
                line=line,
                title=f"roofcheck {r.verdict.value}",
            )
        )
    for e in report.calibration.entries:
        if not e.ok:
            got = "no result" if e.percent is None else percent(e.percent)
            expected = percent(e.expected_percent)
            out.append(
                Annotation(
                    "error",
                    f"calibration miss: {e.id} {e.check} expected {expected}, got {got}",
                    title="roofcheck calibration",
                )
            )
    return out
