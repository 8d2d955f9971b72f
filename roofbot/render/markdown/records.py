"""One record as the comment's template reads it: its table row, its details (the checks and
the inputs they came from, the traps, the messages) and what to fix in it, likeliest cause
first. Links are absolute and point at the files, and the lines, as the pull request's head
has them."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from roofbot.core.figures import roof_name
from roofbot.core.provenance import Input
from roofbot.core.results import CheckId, RecordResult, RoofCheck, Verdict
from roofbot.core.units import show_input
from roofbot.render.confusables import reveal
from roofbot.render.findings import Read, line_of, record_causes, record_findings
from roofbot.render.markdown.escape import Safe, fix_markdown, md, md_code, num, url
from roofbot.render.text import message_label

EMOJI = {
    Verdict.ERROR: "❗",
    Verdict.VIOLATION: "🟥",
    Verdict.SUSPECT: "🟨",
    Verdict.UNCHECKED: "⬜",
    Verdict.PASS: "✅",
    Verdict.SKIPPED: "➖",
}
_FIXED = (Verdict.ERROR, Verdict.VIOLATION, Verdict.SUSPECT, Verdict.UNCHECKED)
_CATALOGUE_PATH = re.compile(r"^([a-z_]+ -> )?([A-Za-z0-9_./\-]+\.json)(?=:|$)")


@dataclass(frozen=True)
class Move:
    """A record the instrument review checked under the base branch's instrument too."""

    verdict: str  # its verdict there
    percent: float | None  # its percent of its binding roof there
    held: bool  # passes only under the PR's instrument, and not yet approved


@dataclass(frozen=True)
class Links:
    """Where the comment's links point: `blob` is `<server>/<owner>/<repo>/blob/<sha>` (every
    link absolute, so it works in the job summary and in notification e-mails too), None
    where the repository is not known (then files are named, not linked); `read` gives a
    file's bytes at the head, for the line each link points at."""

    blob: str | None = None
    read: Read | None = None

    @classmethod
    def of(cls, repo_url: str | None, head_sha: str | None, read: Read | None = None) -> Links:
        ok = (
            repo_url
            and head_sha
            and re.fullmatch(r"[0-9a-f]{7,64}", head_sha)
            and re.fullmatch(
                r"https?://[A-Za-z0-9.\-:]+/[A-Za-z0-9._\-]+/[A-Za-z0-9._\-]+", repo_url
            )
        )
        return cls(f"{repo_url}/blob/{head_sha}" if ok else None, read)

    def text(self, path: str) -> str:
        raw = self.read(path) if self.read is not None else None
        return raw.decode("utf-8", "replace") if raw is not None else ""


def link(path: str | None, links: Links, line: int | None = None) -> str | None:
    """An absolute link to a repository file at the head commit (`#L<line>` where given), or
    None where the repository is not known."""
    if not path or links.blob is None:
        return None
    anchor = f"#L{line}" if line and line > 1 else ""
    return Safe(f"{links.blob}/{url(path)}{anchor}")


def finding_line(r: RecordResult, links: Links) -> int | None:
    """The line of the record's main finding (the annotation's and the line comment's), else
    of its `value`."""
    if links.read is None:
        return None
    raw = links.read(r.path)
    main = next((f for f in record_findings(r, raw, True) if not f.trap), None)
    if main is not None:
        return main.line
    return line_of(raw.decode("utf-8", "replace") if raw is not None else "", "value")


def _field_line(rest: str, path: str, links: Links) -> int | None:
    """The line of the field a catalogue source names after its path (`: params_b`)."""
    field = re.match(r":\s*([A-Za-z_][A-Za-z0-9_]*)", rest)
    return line_of(links.text(path), field[1]) if field and links.read else None


def _input_view(name: str, i: Input[Any], links: Links) -> dict[str, Any]:
    v = i.value
    if hasattr(v, "value") and not isinstance(v, int | float | str):
        v = v.value
    shown = show_input(name, v) or (
        num(v) if isinstance(v, int | float) and not isinstance(v, bool) else md(v)
    )
    source: object = i.source
    m = _CATALOGUE_PATH.match(i.source)
    if m and (target := link(m[2], links, _field_line(i.source[m.end() :], m[2], links))):
        # a catalogue record's id links to its file at the head, at the field's line
        rest = md(i.source[m.end() :])
        source = Safe(f"{md(m[1] or '')}[{md(m[2])}]({target}){rest}")
    basis = i.basis.value  # said once: a source that ends "(assumed)" already says it
    said = i.source.rstrip().endswith(f"({basis})")
    return {"name": name, "value": shown, "from": source, "basis": None if said else basis}


def _check_view(c: RoofCheck, binding: RoofCheck | None) -> dict[str, Any]:
    return {
        "check": roof_name(c.check.value),
        "binding": c is binding,
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


_COMPUTE_ONLY = frozenset({"compute_precision", "peak_tflops", "active_params_b"})
"""Inputs only the compute roof reads: listed where it binds (its line says its figures)."""


def _inputs_view(r: RecordResult, links: Links) -> list[dict[str, Any]]:
    """The inputs' rows (those of the binding roof); a catalogue file is linked from its
    first row only."""
    b = r.binding()
    skip = _COMPUTE_ONLY if b is not None and b.check is not CheckId.COMPUTE else frozenset()
    seen: set[str] = set()
    out = []
    for name, i in r.inputs:
        if name in skip:
            continue
        m = _CATALOGUE_PATH.match(i.source)
        first = m is None or m[2] not in seen
        if m is not None:
            seen.add(m[2])
        out.append(_input_view(name, i, links if first else Links()))
    return out


def record_view(
    r: RecordResult, traps: Mapping[str, str | None], links: Links, keep: bool
) -> dict[str, Any]:
    """The record's row; with `keep`, its details too (`traps`: each trap's documentation)."""
    binding = r.binding()
    notes = dict(r.trap_notes)
    causes = record_causes(r)
    return {
        "fix": fix_markdown(r, causes[0]) if causes else None,
        "other_causes": [fix_markdown(r, c) for c in causes[1:]],
        "id": r.id,
        "code_id": md_code(f"`{r.id}`"),
        "path": r.path,
        "link": link(r.path, links, finding_line(r, links)),
        "verdict": r.verdict.value,
        "emoji": EMOJI[r.verdict],
        "failing": r.verdict in _FIXED,
        "status": r.status,
        "metric": r.metric,
        "value": r.value,
        "unit": r.unit,
        "binding": roof_name(binding.check.value) if binding else None,
        "ceiling": binding.ceiling if binding else None,
        "percent": binding.percent if binding else None,
        "pinned": r.pinned,
        "details": keep,
        # the arithmetic is only built for the records that show it (3000 records' inputs
        # would otherwise be escaped at every rendering level)
        "checks": [_check_view(c, binding) for c in r.checks] if keep else [],
        # a pass shows its roofs' arithmetic; the inputs behind it are `roofbot explain`'s
        "inputs": _inputs_view(r, links) if keep and r.verdict in _FIXED else [],
        "traps": [
            {"id": t, "why": notes.get(t), "link": link(traps.get(t), links)} for t in r.traps
        ],
        # the message that states the verdict is the row itself: only the others are listed
        "messages": [
            {"level": m.level, "text": reveal(m.text)}
            for m in r.messages
            if message_label(r, m) == m.level
            and not (r.verdict is Verdict.ERROR and m is r.messages[0])
        ],
        "lacks": list(r.lacks),
    }
