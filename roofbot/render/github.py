"""GitHub workflow-command annotations (`--format github`, the default when GITHUB_ACTIONS is
set), in yamllint's style: one `::group::` per file, `::error file=…,line=…,col=…::[rule]
message`, then a plain summary line. Every value is escaped, so record text can't forge a
command."""

from __future__ import annotations

from collections.abc import Sequence

from roofbot.adapters.actions import escape_data, escape_property
from roofbot.core.results import Report, Verdict
from roofbot.render.findings import Finding

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
