"""The pull-request comment and job summary: a Report rendered to GitHub Markdown through a
Jinja2 template (templates/comment.md.j2, or a repository's own).

Every string that can come from a record, a file name or `.roofbot.yml` is escaped before it
reaches the page: the template applies `md` (inline Markdown), `html` (inside HTML tags) or
`url`, and an environment-wide `finalize` escapes anything the template forgot to. The
template runs in Jinja's sandbox; record text is only ever data, never template source.
The rendered text is kept under `max_chars` by dropping detail, never by cutting mid-table."""

from __future__ import annotations

import functools
import html
import math
import re
import urllib.parse
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
import jinja2.sandbox
import markupsafe

from roofbot.core.changes import Changes
from roofbot.core.compare import Comparison, Delta
from roofbot.core.fix import fix_for
from roofbot.core.provenance import Input
from roofbot.core.results import Calibration, RecordResult, Report, RoofCheck, Verdict
from roofbot.core.units import show_input
from roofbot.render.confusables import reveal
from roofbot.render.text import message_label

MARKER = "<!-- roofbot:roofcheck -->"
DEFAULT_TEMPLATE = "comment.md.j2"
DEFAULT_TITLE = "roofcheck"
GITHUB_COMMENT_LIMIT = 65536
CHART_MAX = 30
MAX_FIELD_CHARS = 600  # one escaped string in a cell; the JSON report has the rest

EMOJI = {
    Verdict.ERROR: "❗",
    Verdict.VIOLATION: "🟥",
    Verdict.SUSPECT: "🟨",
    Verdict.UNCHECKED: "⬜",
    Verdict.PASS: "✅",
    Verdict.SKIPPED: "➖",
}


# ------------------------------------------------------------------------------ escaping


class Safe(str):
    """Text that is already escaped for the Markdown page."""

    __slots__ = ()


class Field(Safe):
    """A string of the template's context, escaped (`md`) before the template sees it, so that
    not even `| safe` can print it raw; `raw` keeps the text for the filters (`md` with another
    limit, `html`, `url`, `href`), which escape it for where it goes."""

    raw: str

    @classmethod
    def of(cls, text: str) -> Field:
        field = cls(md(text))
        field.raw = text
        return field


def _raw(value: object) -> object:
    return value.raw if isinstance(value, Field) else value


def escaped(value: Any, seen: dict[str, Field] | None = None) -> Any:
    """The context with every plain string in it turned into a :class:`Field` (`seen`: the
    strings already escaped, shared by the rendering levels of one report)."""
    if seen is None:
        seen = {}
    if type(value) is str:
        found = seen.get(value)
        if found is None:
            found = seen[value] = Field.of(value)
        return found
    if isinstance(value, dict):
        return {k: escaped(v, seen) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [escaped(v, seen) for v in value]
    if isinstance(value, str) and not isinstance(value, Safe):
        return Field.of(value)  # a str subclass (an enum's value): not shared
    return value


# control characters; every Unicode format (Cf) character (Unicode 14: soft hyphen, LRM/RLM/ALM,
# ZWSP/ZWNJ/ZWJ, word joiner, invisible operators, bidi embeddings and isolates, U+180E, tags,
# interlinear annotation...); and the invisible non-Cf ones: combining grapheme joiner, Hangul
# fillers. Stripped from every string rendered out of a record.
_INVISIBLE = re.compile(
    "[\u0000-\u0008\u000b-\u001f\u007f\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f"
    "\u0890-\u0891\u08e2\u115f\u1160\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064"
    "\u2066-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U00013438"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]"
)
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~$])")
_MENTION = re.compile(r"@(?=[A-Za-z0-9])")
# `#1`, `owner/repo#1` and `GH-1` all link an issue; `&#124;` is our own escaping, left whole
_REF = re.compile(r"((?<!&)#|GH-)(?=\d)", re.IGNORECASE)
# a bare URL is autolinked, and one to an issue or pull request cross-references it
_AUTOLINK = re.compile(r"://|\bwww\.", re.IGNORECASE)
_ZWSP = "\u200b"


def _plain(value: object, limit: int) -> str:
    text = "" if value is None else str(value)
    text = _INVISIBLE.sub("", text)
    text = re.sub(r"\s+", " ", text)  # collapse newlines and runs of blanks
    text = text.replace("<!--", "< !--").replace("-->", "-- >")
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


def _neutralise(text: str) -> str:
    text = _MENTION.sub("@" + _ZWSP, text)
    text = _AUTOLINK.sub(lambda m: m.group(0)[:-1] + _ZWSP + m.group(0)[-1], text)
    return _REF.sub(lambda m: m.group(1) + _ZWSP, text)


def md(value: object, limit: int = MAX_FIELD_CHARS) -> Safe:
    """Escape text for inline GitHub Markdown, table cells included: one line, no live markup,
    no HTML, no @mention, no #123 reference, no autolinked URL, no `<!--` that could forge the
    hidden marker."""
    if isinstance(value, Field):
        if limit == MAX_FIELD_CHARS:
            return value  # escaped with this limit already
        value = value.raw
    if isinstance(value, Safe):
        return value
    text = html.escape(_plain(value, limit), quote=False)
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return Safe(_neutralise(text))


def md_code(value: object, limit: int = MAX_FIELD_CHARS) -> Safe:
    """`md`, except that `code` spans stay code spans: their text is kept as it is (a code
    span shows it literally: no markup, no mention, no HTML), one line, with no backtick or
    `<!--` of its own. For roofbot's own sentences that name fields (`value`)."""
    text = _plain(value, limit)
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an odd backtick: no span is closed by it
        parts[-2:] = [parts[-2] + "'" + parts[-1]]
    out = [str(md(p, limit)) if i % 2 == 0 else f"`{p}`" if p.strip() else "" for i, p in
           enumerate(parts)]  # fmt: skip
    return Safe("".join(out))


def fix_markdown(r: RecordResult, fix: str) -> Safe:
    """A record's fix for the page: roofbot's own sentence about a roof keeps its `code`
    spans (`md_code`); an error's fix quotes the file (its name, a field), so it is escaped
    whole (`md`), a code span and all."""
    return md(fix, 1000) if r.verdict is Verdict.ERROR else md_code(fix, 1000)


def html_text(value: object, limit: int = MAX_FIELD_CHARS) -> Safe:
    """Escape text inside raw HTML (e.g. `<summary>`), where Markdown backslashes would show."""
    value = _raw(value)
    if isinstance(value, Safe):
        return value
    text = html.escape(_plain(value, limit), quote=True).replace("|", "&#124;")
    text = text.replace("`", "&#96;").replace("*", "&#42;").replace("_", "&#95;")
    return Safe(_neutralise(text))


def url(path: object) -> Safe:
    """A relative link target: percent-encoded, never a scheme (`javascript:`) or a `..`."""
    text = _plain(_raw(path), 2000)
    parts = [p for p in text.split("/") if p not in ("", ".", "..")]
    return Safe(urllib.parse.quote("/".join(parts), safe="/-._~"))


def href(value: object) -> Safe:
    """An absolute http(s) link we built (job summary); anything else becomes no link."""
    text = _plain(_raw(value), 2000)
    if not re.fullmatch(
        r"https?://[A-Za-z0-9.\-:]+(/[A-Za-z0-9._~/\-]*)?(#[A-Za-z0-9._\-]*)?", text
    ):
        return Safe("#")
    return Safe(text)


def chart_label(value: object, limit: int = 24) -> Safe:
    """A Mermaid x-axis label: letters, digits, dot, dash only (no quote can close it)."""
    text = re.sub(r"[^A-Za-z0-9.\-]+", "-", _plain(_raw(value), 200)).strip("-") or "record"
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


def num(value: object, places: int = 2) -> Safe:
    """A number for display: thousands separators, trailing zeros trimmed."""
    if value is None:
        return Safe("–")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return md(value)
    if isinstance(value, float) and not math.isfinite(value):
        return Safe("n/a")
    if isinstance(value, int):
        return Safe(f"{value:,}")
    text = f"{value:,.{places}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return Safe(text)


def pct(value: object) -> Safe:
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return Safe(f"{value:,.1f}%")
    return Safe("–")


def _finalize(value: object) -> object:
    """Applied to every `{{ }}` output: whatever the template did not escape is escaped here."""
    if value is None:
        return ""
    if isinstance(value, Safe | markupsafe.Markup | int | float) and not isinstance(value, bool):
        return value  # Markup: a macro's output, marked `| safe` in the template
    return md(value)


# ------------------------------------------------------------------------------ view model


@dataclass(frozen=True)
class Options:
    """What a rendering level keeps."""

    details: str = "all"  # "all", "failing" (no details for pass/skipped), "none"
    max_rows: int | None = None  # table rows per section; None: all
    max_list: int | None = None  # changed files, instrument changes, calibration, notes
    # (the lists `build_context` caps; `_caps_a_list` names the same four)


_CATALOGUE_PATH = re.compile(r"^([a-z_]+ -> )?([A-Za-z0-9_./\-]+\.json)(?=:|$)")


def _input_view(name: str, i: Input[Any], head_sha: str | None = None) -> dict[str, Any]:
    v = i.value
    if hasattr(v, "value") and not isinstance(v, int | float | str):
        v = v.value
    shown = show_input(name, v) or (
        num(v, 4) if isinstance(v, int | float) and not isinstance(v, bool) else md(v)
    )
    source: object = i.source
    m = _CATALOGUE_PATH.match(i.source)
    if m and (target := _link(m[2], head_sha)):
        # a catalogue record's id links to its file at the head
        rest = md(i.source[m.end() :])
        source = Safe(f"{md(m[1] or '')}[{md(m[2])}]({target}){rest}")
    basis = i.basis.value  # said once: a source that ends "(assumed)" already says it
    said = i.source.rstrip().endswith(f"({basis})")
    return {"name": name, "value": shown, "from": source, "basis": None if said else basis}


def _check_view(c: RoofCheck) -> dict[str, Any]:
    return {
        "check": c.check.value,
        "applies": c.applies,
        "ceiling": c.ceiling,
        "percent": c.percent if c.ceiling else None,
        "formula": c.formula,
        "why": c.why,
        "assumed": list(c.assumed),
        "alternatives": [
            {"reading": label, "ceiling": x, "percent": 100 * c.value / x if x else None}
            for label, x in c.alternatives
        ],
    }


def _link(path: str | None, head_sha: str | None) -> str | None:
    if not path:
        return None
    if head_sha and re.fullmatch(r"[0-9a-f]{7,64}", head_sha):
        return Safe(f"../blob/{head_sha}/{url(path)}")
    return url(path)


def _record_view(
    r: RecordResult, links: Mapping[str, str | None], head_sha: str | None, keep: bool
) -> dict[str, Any]:
    binding = r.binding()
    notes = dict(r.trap_notes)
    fix = fix_for(r)
    return {
        "fix": fix_markdown(r, fix) if fix else None,
        "id": r.id,
        "path": r.path,
        "link": _link(r.path, head_sha),
        "record_chart": record_chart(r) if keep and r.verdict in _CHARTED else None,
        "verdict": r.verdict.value,
        "emoji": EMOJI[r.verdict],
        "status": r.status,
        "metric": r.metric,
        "value": r.value,
        "unit": r.unit,
        "binding": binding.check.value if binding else None,
        "percent": binding.percent if binding else None,
        "pinned": r.pinned,
        "details": keep,
        # the arithmetic is only built for the records that show it (3000 records' inputs
        # would otherwise be escaped at every rendering level)
        "checks": [_check_view(c) for c in r.checks] if keep else [],
        "inputs": [_input_view(n, i, head_sha) for n, i in r.inputs] if keep else [],
        "traps": [
            {"id": t, "why": notes.get(t), "link": _link(links.get(t), head_sha)} for t in r.traps
        ],
        "messages": [{"level": message_label(r, m), "text": reveal(m.text)} for m in r.messages],
        "lacks": list(r.lacks),
    }


_CHARTED = (Verdict.VIOLATION, Verdict.SUSPECT)
RECORD_CHART_MAX_B = 256  # the per-record chart's batch axis stops here


def record_chart(r: RecordResult) -> dict[str, Any] | None:
    """The record against its ceilings across batch sizes, for a Mermaid xychart in its
    details: the comment's counterpart of `roofbot plot --record` (the same `plot.sweep`).
    Aggregate tok/s at B = 1, 2, 4, ...: the record as a bar at its batch (a bar at every B
    when its batch is unknown), the batched memory roof (B x the batch-1 roof) and the compute
    roof as lines; a roof far above the record is named in the caption, not drawn."""
    from roofbot.plot import sweep

    s = sweep(r)
    if s.memory is None and s.compute is None:
        return None
    at = int(s.point[0]) if s.point else 1
    top_b = 8
    while top_b < 2 * at and top_b < RECORD_CHART_MAX_B:
        top_b *= 2
    batches = [2**i for i in range(int(math.log2(top_b)) + 1)]
    level = s.point[1] if s.point else (s.line or 0.0)
    near = [level]
    if s.memory is not None:
        near.append(s.memory * min(at, top_b))
    ymax = max(near) * 1.5 or 1.0
    step = 10 ** math.floor(math.log10(ymax))
    ymax = math.ceil(ymax / step) * step
    bars = [(level if (s.point is None or b == int(s.point[0])) else 0.0) for b in batches]
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
    return {
        "title": Safe(chart_label(r.id, 60)),
        "batches": [Safe(str(b)) for b in batches],
        "bars": [Safe(f"{x:.4g}") for x in bars],
        "lines": lines,
        "ymax": Safe(f"{ymax:g}"),
        "caption": md(caption + "."),
    }


def _order(records: Iterable[RecordResult]) -> list[RecordResult]:
    return sorted(records, key=lambda r: (r.verdict.rank, r.id))


def _keeps_details(r: RecordResult, opts: Options) -> bool:
    if opts.details == "none":
        return False
    if opts.details == "failing":
        return r.verdict not in (Verdict.PASS, Verdict.SKIPPED)
    return True


def _section(
    records: list[RecordResult], links: Mapping[str, str | None], sha: str | None, opts: Options
) -> dict[str, Any]:
    shown = records if opts.max_rows is None else records[: opts.max_rows]
    return {
        "rows": [_record_view(r, links, sha, _keeps_details(r, opts)) for r in shown],
        "hidden": len(records) - len(shown),
        "total": len(records),
    }


def _chart(records: list[RecordResult]) -> dict[str, Any] | None:
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


COMPARE_MAX = 20  # before/after rows on the first screen; the rest are counted
FIX_MAX = 10  # what-to-fix entries on the first screen
MOVED_MAX = 4  # inputs named per before/after row
_KIND_ORDER = {"worse": 0, "new": 1, "better": 2, "same": 3}


def _state(r: RecordResult | None) -> Safe:
    if r is None:
        return Safe("new")
    b = r.binding()
    where = f" {pct(b.percent)}" if b is not None else ""
    return Safe(f"{EMOJI[r.verdict]} {r.verdict.value}{where}")


def _moved_text(d: Delta, head_sha: str | None) -> Safe:
    parts = []
    for m in d.moved[:MOVED_MAX]:
        text = f"{md(m.name)} {md(m.before if m.before is not None else '–')} → "
        text += str(md(m.after if m.after is not None else "–"))
        if m.path and (target := _link(m.path, head_sha)):
            name = m.path.rsplit("/", 1)[-1].removesuffix(".json")
            text += f" ([{md(name)}]({target}))"
        parts.append(text)
    if len(d.moved) > MOVED_MAX:
        parts.append(f"and {len(d.moved) - MOVED_MAX} more")
    return Safe("; ".join(parts) if parts else ("–" if d.kind != "new" else "added"))


def _compare_view(
    comparison: Comparison | None, head_sha: str | None, opts: Options
) -> dict[str, Any] | None:
    if comparison is None or not comparison.deltas:
        return None
    ordered = sorted(comparison.deltas, key=lambda d: (_KIND_ORDER[d.kind], d.id))
    limit = COMPARE_MAX if opts.max_rows is None else min(COMPARE_MAX, opts.max_rows)
    shown, hidden = _cap(ordered, limit)
    return {
        "counts": {k: comparison.count(k) for k in ("worse", "better", "same", "new")},
        "rows": [
            {
                "id": d.id,
                "link": _link(d.path, head_sha),
                "kind": d.kind,
                "before": _state(d.before),
                "after": _state(d.after),
                "moved": _moved_text(d, head_sha),
            }
            for d in shown
        ],
        "hidden": hidden,
    }


def _fixes_view(
    records: list[RecordResult], head_sha: str | None, opts: Options
) -> dict[str, Any] | None:
    from roofbot.render.findings import record_fix

    todo = [(r, f) for r in records if r.verdict in _FIXED and (f := record_fix(r))]
    if not todo:
        return None
    limit = FIX_MAX if opts.max_rows is None else min(FIX_MAX, opts.max_rows)
    shown, hidden = _cap(todo, limit)
    return {
        "rows": [
            {
                "id": r.id,
                "link": _link(r.path, head_sha),
                "emoji": EMOJI[r.verdict],
                "verdict": r.verdict.value,
                "fix": fix_markdown(r, f),
            }
            for r, f in shown
        ],
        "hidden": hidden,
    }


_FIXED = (Verdict.ERROR, Verdict.VIOLATION, Verdict.SUSPECT, Verdict.UNCHECKED)


def _cap(items: list[Any], limit: int | None) -> tuple[list[Any], int]:
    """The first `limit` items and how many were left out."""
    if limit is None or len(items) <= limit:
        return items, 0
    return items[:limit], len(items) - limit


def _calibration_view(c: Calibration, opts: Options) -> dict[str, Any]:
    ordered = sorted(c.entries, key=lambda e: e.ok)  # misses first: they are never cut
    shown, hidden = _cap(ordered, opts.max_list)
    return {
        "ran": c.ran,
        "ok": c.ok,
        "tolerance_pp": c.tolerance_pp,
        "total": len(c.entries),
        "hidden": hidden,
        "entries": [
            {
                "id": e.id,
                "check": e.check,
                "expected": e.expected_percent,
                "percent": e.percent,
                "ok": e.ok,
                "why": e.why,
            }
            for e in shown
        ],
    }


def _changes_view(
    changes: Changes | None, opts: Options, reported: set[str]
) -> dict[str, Any] | None:
    if changes is None:
        return None
    files, files_hidden = _cap(list(changes.files), opts.max_list)
    # pins and calibration entries of the records in this report first: a pin that moves a
    # verdict is never the one a shortened comment leaves out
    instrument = sorted(changes.instrument, key=lambda c: c.key.split(": ")[0] not in reported)
    instrument, instrument_hidden = _cap(instrument, opts.max_list)
    return {
        "source": changes.source,
        "files": [
            {"status": f.status, "path": f.path, "old_path": f.old_path, "symlink": f.symlink}
            for f in files
        ],
        "files_total": len(changes.files),
        "files_hidden": files_hidden,
        "dependents": list(changes.dependents),
        "instrument": [
            {"kind": c.kind, "key": c.key, "before": c.before, "after": c.after} for c in instrument
        ],
        "instrument_total": len(changes.instrument),
        "instrument_hidden": instrument_hidden,
    }


def build_context(
    report: Report,
    links: Mapping[str, str | None],
    *,
    title: str,
    summary_url: str | None,
    changes: Changes | None,
    head_sha: str | None,
    opts: Options,
    omitted: list[str],
    chart_url: str | None = None,
    comparison: Comparison | None = None,
    review: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    current = _order(r for r in report.records if not r.deprecated)
    deprecated = _order(r for r in report.records if r.deprecated)
    counts = [
        {"verdict": v.value, "emoji": EMOJI[v], "count": report.count(v)}
        for v in Verdict
        if report.count(v)
    ]
    failing = {r.id for r in report.failing()}
    notes, notes_hidden = _cap([m.text for m in report.messages], opts.max_list)
    return {
        "marker": Safe(MARKER),
        "title": title,
        "ok": report.ok,
        "counts": counts,
        "total": len(report.records),
        "failing": len(failing),
        "fail_on": sorted(v.value for v in report.fail_on),
        "deprecated_fail": report.deprecated_fail,
        "coverage": {"token_rate": report.token_rate_records, "checked": report.checked},
        "records": _section(current, links, head_sha, opts),
        "deprecated": _section(deprecated, links, head_sha, opts),
        "chart": _chart(current),
        "calibration": _calibration_view(report.calibration, opts),
        "messages": notes,
        "messages_hidden": notes_hidden,
        "changes": _changes_view(changes, opts, {r.id for r in report.records}),
        "summary_url": summary_url,
        "chart_url": chart_url,
        "omitted": omitted,
        "compare": _compare_view(comparison, head_sha, opts),
        "fixes": _fixes_view(current, head_sha, opts),
        "review": review,
    }


# ------------------------------------------------------------------------------ templates


def template_dirs() -> list[Path]:
    """Where the built-in templates are: inside the installed package (the wheel carries
    templates/ as roofbot/templates), else the repository's top-level templates/ (editable)."""
    dirs: list[Path] = []
    packaged = resources.files("roofbot").joinpath("templates")
    if packaged.is_dir():
        dirs.append(Path(str(packaged)))
    checkout = Path(__file__).resolve().parents[2] / "templates"
    if checkout.is_dir():
        dirs.append(checkout)
    return dirs


@functools.lru_cache(maxsize=8)
def environment(extra_dir: Path | None = None) -> jinja2.Environment:
    """The sandboxed environment (one per template folder: a template compiles once)."""
    search = ([extra_dir] if extra_dir else []) + template_dirs()
    env = jinja2.sandbox.SandboxedEnvironment(
        loader=ContainedLoader([str(d) for d in search]),
        autoescape=False,
        undefined=jinja2.StrictUndefined,
        finalize=_finalize,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    filters: dict[str, Callable[..., Any]] = {
        "md": md,
        "mdc": md_code,
        "html": html_text,
        "url": url,
        "href": href,
        "num": num,
        "pct": pct,
        "label": chart_label,
        "join": _join,
    }
    env.filters.update(filters)
    return env


@jinja2.pass_eval_context
def _join(eval_ctx: Any, value: Iterable[Any], d: str = "", attribute: Any = None) -> Any:
    """Jinja's `join`, except that Fields joined stay one escaped Field (whose `raw` is the
    raw texts joined), so `| md(4000)` cuts the whole list as it did the plain one."""
    items = list(value)
    if attribute is not None:
        getter = jinja2.filters.make_attrgetter(eval_ctx.environment, attribute)
        items = [getter(i) for i in items]
    if items and all(isinstance(i, Safe) for i in items) and not isinstance(d, Field):
        field = Field(str(d).join(items))
        field.raw = str(d).join(str(_raw(i)) for i in items)
        return field
    return jinja2.filters.do_join(eval_ctx, items, d)


class ContainedLoader(jinja2.FileSystemLoader):
    """A FileSystemLoader that refuses a template whose real path (links followed) is outside
    its search folders: a repository's template can't include a file from elsewhere."""

    def get_source(
        self, environment: jinja2.Environment, template: str
    ) -> tuple[str, str, Callable[[], bool]]:
        source, filename, uptodate = super().get_source(environment, template)
        real = Path(filename).resolve()
        roots = [Path(p).resolve() for p in self.searchpath]
        if not any(real.is_relative_to(r) for r in roots):
            raise jinja2.TemplateNotFound(f"{template} (outside the template folders)")
        return source, filename, uptodate


def load_template(template: str | Path | None = None) -> jinja2.Template:
    """The built-in comment template, or a repository's own (a path to a `.j2` file)."""
    if template is None:
        return environment().get_template(DEFAULT_TEMPLATE)
    path = Path(template)
    if not path.is_file():
        raise FileNotFoundError(f"template {template} not found")
    return environment(path.resolve().parent).get_template(path.name)


# ------------------------------------------------------------------------------ rendering

DETAILED: tuple[tuple[Options, list[str]], ...] = (
    (Options("all"), []),
    (Options("failing"), ["the arithmetic of passing and skipped records"]),
)
TABLES = (Options("none"), ["the arithmetic of every record"])
CAPPED = (
    Options("none", max_list=100),
    ["the arithmetic of every record", "list entries past the first 100"],
)
SHORT_LIST = 20  # list entries kept once table rows have to go too
MIN_ROW_CHARS = 26
"""No row of the built-in template's tables is shorter: `| ✅ pass |  | 0 | – | – |` and its
newline (tests/test_markdown.py renders one of every verdict). A report with more rows than
fit at that length skips, unrendered, the levels that keep every row."""
MIN_DETAILS_CHARS = 400  # no record's <details> block is shorter: a level that can't fit is skipped


TEMPLATE_FAILED = (
    "> [!WARNING]\n> This repository's comment template ({name}) could not be rendered "
    "({error}); roofbot used its built-in template instead.\n\n"
)


def render_report(
    report: Report,
    links: Mapping[str, str | None],
    *,
    template: str | Path | None = None,
    **kwargs: Any,
) -> str:
    """The comment (`_render_report`); a repository's template that fails to render (a syntax
    error, an include outside its folder, a sandbox SecurityError, an undefined name) falls
    back to the built-in template, and the comment says so right under its marker."""
    if template is None:
        return _render_report(report, links, **kwargs)
    try:
        return _render_report(report, links, template=template, **kwargs)
    except (jinja2.TemplateError, OSError, RecursionError, UnicodeError) as e:
        text = _render_report(report, links, **kwargs)
        why = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
        note = TEMPLATE_FAILED.format(name=md(Path(template).name, 120), error=md(why, 300))
        first, _, rest = text.partition("\n")
        return f"{first}\n{note}{rest}"


def _render_report(
    report: Report,
    links: Mapping[str, str | None],
    *,
    title: str = DEFAULT_TITLE,
    max_chars: int = 60000,
    summary_url: str | None = None,
    changes: Changes | None = None,
    head_sha: str | None = None,
    template: str | Path | None = None,
    chart_url: str | None = None,
    comparison: Comparison | None = None,
    review: Mapping[str, Any] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> str:
    """The comment: the full report if it fits in `max_chars`, else with less detail, saying
    what was left out and pointing at the job summary (`summary_url`). `chart_url` links the
    roofline chart the workflow uploaded as an artifact; `extra` adds names to the template's
    context (`instrument`: the instrument review)."""
    tpl = load_template(template)
    seen: dict[str, Field] = {}  # the strings escaped so far, shared by the levels

    def render(opts: Options, omitted: list[str]) -> str:
        ctx = build_context(
            report,
            links,
            title=title,
            summary_url=summary_url,
            changes=changes,
            head_sha=head_sha,
            opts=opts,
            omitted=omitted,
            chart_url=chart_url,
            comparison=comparison,
            review=review,
        )
        ctx.update(extra or {})  # sections other modules add (roofbot.action.instrument's review)
        text = tpl.render(escaped(ctx, seen))
        return text if text.startswith(MARKER) else f"{MARKER}\n{text}"

    def rows_only(rows: int) -> str:
        omitted = [
            "the arithmetic of every record",
            f"table rows past the first {rows}",
            f"list entries past the first {SHORT_LIST}",
        ]
        return render(Options("none", rows, SHORT_LIST), omitted)

    total = max(len(report.records), 1)
    if template is None and total * MIN_ROW_CHARS > max_chars:
        # every row can't fit (a /roofcheck all, a catalogue change with thousands of
        # dependents): what fits is estimated from as many rows as could, rendered once
        shown = max(1, max_chars // MIN_ROW_CHARS)
        text = rows_only(shown)
    else:
        # the tables alone first (cheap): the levels with arithmetic only add to them
        tables = render(*TABLES)
        if len(tables) <= max_chars:
            for opts, omitted in DETAILED:
                detailed = sum(1 for r in report.records if _keeps_details(r, opts))
                if len(tables) + detailed * MIN_DETAILS_CHARS > max_chars:
                    continue  # can't fit: not worth rendering
                text = render(opts, omitted)
                if len(text) <= max_chars:
                    return text
            return tables
        # CAPPED differs from TABLES only in the lists it caps: where none is that long, its
        # text is the tables' (a summary of 12,000 rows rendered them twice, 0.5 s each)
        capped = _caps_a_list(report, changes, CAPPED[0])
        shown, text = total, render(*CAPPED) if capped else tables
    if len(text) <= max_chars:
        return text
    # still too long: fewer table rows, from an estimate of what fits, then halving
    rows = min(shown - 1, max(1, int(shown * 0.9 * max_chars / len(text))))
    while True:
        text = rows_only(rows)
        if len(text) <= max_chars or rows <= 1:
            break
        rows //= 2
    return fit(text, max_chars, summary_url)


def _caps_a_list(report: Report, changes: Changes | None, opts: Options) -> bool:
    """Whether `opts.max_list` cuts any list `build_context` caps: the changed files, the
    instrument changes, the calibration entries, the run's messages."""
    limit = opts.max_list
    if limit is None:
        return False
    lists = [report.calibration.entries, report.messages]
    if changes is not None:
        lists += [changes.files, changes.instrument]
    return any(len(items) > limit for items in lists)


# ------------------------------------------------------------------------------ cutting

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
