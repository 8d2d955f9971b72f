"""A report as a flat list of findings, each at a file and line, each saying what to change in
the record. SARIF, GitHub annotations and the text format's `path:line` all read this list,
and every file/line location roofbot shows is found here (`line_of`). A finding's rule is one
of roofbot.render.finding_rules. Pure: the file text comes in through `read`."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from roofbot.core.figures import percent
from roofbot.core.fix import causes_for, fix_for
from roofbot.core.results import RecordResult, Report, Verdict
from roofbot.core.traps import BY_ID

Level = Literal["error", "warning", "note"]
Read = Callable[[str], bytes | None]


#: Which record field an unchecked record's lack is about, for its line.
_LACK_FIELDS = (
    ("accelerator", "accelerator_ids"),
    ("peak FLOPS", "accelerator_ids"),
    ("bandwidth", "accelerator_ids"),
    ("model size", "model"),
    ("active parameters", "model"),
    ("weight bytes", "format_id"),
    ("batch", "methodology"),
    ("tokens per step", "methodology"),
)


@dataclass(frozen=True)
class Finding:
    """One thing to change in one file, at its line (1 where no line is known)."""

    rule: str
    level: Level
    record: str
    path: str
    message: str
    advice: str | None
    line: int
    column: int | None = None
    fails: bool = False  # counts against the run (fail_on, not a deprecated record)
    trap: bool = False  # a trap note on the record, not its verdict


# ------------------------------------------------------------------ lines


def line_of(text: str, field: str | None, nth: int = 1) -> int | None:
    """The 1-based line of the nth `"field":` key in a record's text, or None when it has no
    such key: the line of every finding, annotation and line comment about a field."""
    if not field:
        return None
    for m in re.finditer(r'"' + re.escape(field) + r'"\s*:', text):
        nth -= 1
        if nth == 0:
            return _line_at(text, m.start())
    return None


def _line_at(text: str, offset: int) -> int:
    """The 1-based line `offset` is on."""
    return text.count("\n", 0, offset) + 1


def _line_of_token(text: str, token: str) -> int:
    """The line of `token` written as a value (after a colon), else anywhere, else 1."""
    m = re.search(r":\s*" + re.escape(token), text)
    at = m.start() if m else text.find(token)
    return _line_at(text, at) if at >= 0 else 1


def error_position(raw: bytes | None, message: str) -> tuple[int, int | None, str | None]:
    """(line, column, field) of the defect an `error` message names, read from the file."""
    text = raw.decode("utf-8", "replace") if raw is not None else ""
    if m := re.search(r"at line (\d+) column (\d+)", message):
        return int(m[1]), int(m[2]), None
    if (m := re.search(r"bad byte at offset (\d+)", message)) and raw is not None:
        offset = int(m[1])
        line_start = raw.rfind(b"\n", 0, offset) + 1
        return raw.count(b"\n", 0, offset) + 1, offset - line_start + 1, None
    if m := re.match(r"(-?Infinity|NaN|\S+) (is not a JSON number|overflows a double)", message):
        return _line_of_token(text, m[1]), None, "value"
    if m := re.match(r"an integer of (\d+) digits", message):
        n = int(m[1])
        digits = re.search(rf"\d{{{min(n, 30)}}}", text)
        return (_line_at(text, digits.start()) if digits else 1), None, None
    field, nth = _error_field(message)
    return line_of(text, field, nth) or 1, None, field


def _error_field(message: str) -> tuple[str | None, int]:
    """The field an `error` message is about, and which of its keys (a duplicate's second)."""
    if m := re.match(r"key '(.+?)' appears twice", message):
        return m[1], 2
    if m := re.search(r"schema\.json at ([^:]+):", message):
        top = m[1].split("/")[0]
        return (top if top != "(top level)" else None), 1
    if message.startswith("id ") and "differs from the file name" in message:
        return "id", 1
    if message.startswith("value "):
        return "value", 1
    return None, 1


# ------------------------------------------------------------------ what to change


def _where(path: str) -> str:
    """A schema path as the record's terms say it: `flops/6` -> "row 7 of `flops`"."""
    parts = path.split("/")
    if len(parts) >= 2 and parts[1].isdigit():
        rest = "/".join(parts[2:])
        row = f"row {int(parts[1]) + 1} of `{parts[0]}`"
        return f"`{rest}` in {row}" if rest else row
    return f"`{path}`"


def error_advice(message: str, path: str) -> str | None:
    """What to change for an `error`, where the message alone does not say it: the row of a
    schema error and the values it allows, the line of a JSON syntax error."""
    at = re.search(r"schema\.json at ([^:]+):", message)
    where = at[1] if at and at[1] != "(top level)" else None
    if m := re.search(r"'([^']+)' is a required property", message):
        into = f" to {_where(where)}" if where else ""
        return f"add `{m[1]}`{into}: the repository's schema requires it"
    if m := re.search(r"at (\S+): (?:null|None) is not of type", message):
        return (
            f"{_where(m[1])} is null: write the measured figure, or keep the record out of "
            "data/benchmarks/ until there is one"
        )
    if m := re.search(r"at (\S+): '([^']*)' is not of type 'number'", message):
        return f"write {_where(m[1])} as a JSON number without quotes: {m[2]}"
    if m := re.search(r"\('([^']+)' was unexpected\)", message):
        return f"remove `{m[1]}`: the schema allows no other field (put the fact in `notes`)"
    if m := re.search(r"at ([^:]+): (.+?) is not one of \[(.*)", message):
        listed = m[3].split("]")[0]
        values = [v.strip().strip("'\"") for v in listed.split(",") if v.strip()]
        whole = "]" in m[3]  # a long message is cut: its list then ends in "…"
        values = [v for v in values if v and "…" not in v]
        allowed = ", ".join(f"`{v}`" for v in values) + ("" if whole else ", …")
        return f"{_where(m[1])} is {m[2]}: use one of {allowed}"
    if "is not one of" in message:
        return "use one of the values the repository's schema lists"
    if m := re.match(r"id '(.+?)' differs from the file name '(.+?)'", message):
        return f"rename the file to `{m[1]}.json`, or change `id` to `{m[2]}`"
    if m := re.match(r"invalid JSON at line (\d+) column \d+: a trailing comma", message):
        return f"remove the comma at the end of line {m[1]}"
    if re.match(r"invalid JSON at line \d+ column \d+: the file ends before", message):
        return "the file is cut short: restore its end (every `{` and `[` closed)"
    if m := re.match(r"invalid JSON at line (\d+) column \d+: a comma is missing", message):
        return f"add a comma at the end of line {m[1]}"
    if m := re.match(r"invalid JSON at line (\d+) column (\d+): (.+)", message):
        return f"fix the JSON at line {m[1]}, column {m[2]}: {m[3]}"
    if message.startswith("invalid JSON"):
        return "fix the JSON syntax"
    if "no such file" in message:
        return f"check the path {path}"
    return None


def record_causes(r: RecordResult) -> list[str]:
    """What to change in the record, likeliest cause first (`record_fix` joins them)."""
    if r.verdict is Verdict.ERROR:
        advice = error_advice(r.messages[0].text, r.path) if r.messages else None
        return [advice] if advice else []
    return causes_for(r)


def record_fix(r: RecordResult) -> str | None:
    """What to change in the record, the one text every format shows: the inverse of the
    binding roof (core/fix.py) for a record over or without a roof, the file's defect for an
    error, None for a pass or a skipped record."""
    if r.verdict is Verdict.ERROR:
        return error_advice(r.messages[0].text, r.path) if r.messages else None
    return fix_for(r)


def _first_field(r: RecordResult) -> str | None:
    return next((m.field for m in r.messages if m.field), None)


def _record_finding(r: RecordResult, raw: bytes | None, fails: bool) -> Finding | None:
    text = raw.decode("utf-8", "replace") if raw is not None else ""
    msg = r.messages[0].text if r.messages else r.verdict.value
    level: Level = "error" if fails else "warning"
    if r.verdict is Verdict.ERROR:
        line, col, _ = error_position(raw, msg)
        return Finding(
            "record-error", level, r.id, r.path, msg, error_advice(msg, r.path), line, col, fails
        )
    value_line = line_of(text, "value") or 1
    if r.verdict is Verdict.VIOLATION and r.binding() is not None:
        over = max((c for c in r.checks if c.applies and not c.assumed), key=lambda c: c.percent)
        rule = over.check.value
        return Finding(rule, level, r.id, r.path, msg, fix_for(r), value_line, None, fails)
    if r.verdict is Verdict.SUSPECT:
        above = [c for c in r.checks if c.applies and c.percent > 100.0]
        rule = (
            max(above, key=lambda c: c.percent).check.value if above else "bandwidth-derived-figure"
        )
        return Finding(rule, level, r.id, r.path, msg, fix_for(r), value_line, None, fails)
    if r.verdict is Verdict.UNCHECKED:
        field = next(
            (f for word, f in _LACK_FIELDS if r.lacks and r.lacks[0].startswith(word)), None
        )
        lacks = "; ".join(r.lacks) or msg
        line = line_of(text, field or _first_field(r) or "value") or 1
        return Finding("unchecked", "note", r.id, r.path, lacks, fix_for(r), line, None, False)
    return None


def has_findings(r: RecordResult) -> bool:
    """Whether the record has findings at all (the others' files need not be read)."""
    return r.verdict not in (Verdict.PASS, Verdict.SKIPPED) or bool(r.traps)


def record_findings(r: RecordResult, raw: bytes | None, fails: bool) -> list[Finding]:
    """One record's findings: its verdict's, then a note for each trap. `raw`: the file's
    bytes, for the lines; `fails`: the record counts against the run."""
    if not has_findings(r):
        return []
    out: list[Finding] = []
    f = _record_finding(r, raw, fails)
    if f is not None:
        out.append(f)
    text = raw.decode("utf-8", "replace") if raw is not None else ""
    for trap, why in r.trap_notes:
        field = BY_ID[trap].field if trap in BY_ID else "value"
        line = line_of(text, field) or 1
        out.append(Finding(trap, "note", r.id, r.path, why, None, line, trap=True))
    return out


def findings(report: Report, read: Read, config_text: str | None = None) -> list[Finding]:
    """Every finding of the report, records in report order, then calibration misses."""
    failing = {id(r) for r in report.failing()}
    out: list[Finding] = []
    cache: dict[str, bytes | None] = {}

    def raw_of(path: str) -> bytes | None:
        if path not in cache:
            cache[path] = read(path)
        return cache[path]

    for r in report.records:
        if has_findings(r):
            out += record_findings(r, raw_of(r.path), id(r) in failing)
    for e in report.calibration.entries:
        if e.ok:
            continue
        got = "no result" if e.percent is None else percent(e.percent)
        line = _line_of_token(config_text, e.id) if config_text else 1
        out.append(
            Finding(
                "calibration",
                "error",
                e.id,
                ".roofbot.yml",
                f"calibration miss: {e.id} {e.check} expected {percent(e.expected_percent)}, got {got}"
                + (f" ({e.why})" if e.why else ""),
                "find what moved the figure (catalogue, units, extraction, arithmetic); change "
                "the expected percent only if the hand arithmetic was wrong",
                line,
                None,
                True,
            )
        )
    return out


def by_record(items: Iterable[Finding]) -> dict[str, list[Finding]]:
    out: dict[str, list[Finding]] = {}
    for f in items:
        out.setdefault(f.record, []).append(f)
    return out
