"""The inline review, planned: which findings go on which diff line, which of roofbot's earlier
line comments still stand, which are gone. Pure: the diff comes in as patches, the files as a
`read` function, GitHub's current comments as data; roofbot/action/review_post.py does the I/O.

Each violation, error and suspect (of a current record: a deprecated one is reported apart)
goes on the line of the diff that holds its offending field: the record's `"value"` (or the field an error names) when the record's file is in the
diff, else the catalogue field that moved it (`"memory_bandwidth_gbps"` of the accelerator a
PR edited). Findings on one line share one comment. A line the diff does not show can't take
a comment: that finding stays in the sticky comment only. Every comment carries a hidden key
(its path, line and text): a rerun posts only the keys it does not find, and deletes
roofbot's comments whose key no finding has any more (and those GitHub shows as outdated,
whose finding is posted again on its line)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from roofbot.core.compare import Comparison
from roofbot.core.figures import percent, roof_name
from roofbot.core.results import RecordResult, Report, Verdict
from roofbot.render.findings import line_of, record_findings, record_fix
from roofbot.render.markdown.escape import fix_markdown, md
from roofbot.render.markdown.headline import finding

KEY = re.compile(r"<!-- roofbot:finding ([0-9a-f]{16}) -->")
MAX_INLINE = 20  # line comments in one review at most; the rest stay in the sticky comment
MAX_SECTIONS = 10  # records named in one line comment (a catalogue line can move thousands)
INLINE = (Verdict.VIOLATION, Verdict.ERROR, Verdict.SUSPECT)
EMOJI = {Verdict.VIOLATION: "🟥", Verdict.ERROR: "❗", Verdict.SUSPECT: "🟨"}


@dataclass(frozen=True)
class Existing:
    """One of the pull request's line comments as GitHub lists it."""

    id: int
    body: str
    author_login: str
    line: int | None  # None: outdated, its line gone from the diff (GitHub hides it)

    @property
    def key(self) -> str | None:
        m = KEY.search(self.body)
        return m[1] if m else None


@dataclass(frozen=True)
class LineComment:
    path: str
    line: int
    body: str
    key: str
    records: tuple[str, ...]

    def payload(self) -> dict[str, object]:
        """As `POST /pulls/{n}/reviews` takes it in `comments`."""
        return {"path": self.path, "line": self.line, "side": "RIGHT", "body": self.body}


@dataclass(frozen=True)
class Plan:
    post: tuple[LineComment, ...]  # new: not on the PR yet
    standing: tuple[LineComment, ...]  # already posted by an earlier run, still true
    delete: tuple[int, ...]  # roofbot's earlier comments no finding stands behind
    outside: tuple[str, ...]  # record ids whose finding no diff line can take

    @property
    def inline(self) -> int:
        return len(self.post) + len(self.standing)


def diff_lines(patch: str | None) -> frozenset[int]:
    """The head's line numbers a unified diff shows (added and context lines): the lines a
    review comment with `side: RIGHT` can take."""
    out: set[int] = set()
    if not patch:
        return frozenset()
    new = 0
    started = False
    for text in patch.split("\n"):
        m = re.match(r"@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@", text)
        if m:
            new, started = int(m[1]), True
            continue
        if started and text.startswith(("+", " ")):  # an added line, or a context line
            out.add(new)
            new += 1
    return frozenset(out)


def split_patches(diff: str) -> dict[str, str]:
    """`git diff` output cut into each file's patch (from its first hunk), by head path."""
    out: dict[str, str] = {}
    path: str | None = None
    lines: list[str] = []
    for text in diff.split("\n"):
        if text.startswith("diff --git "):
            if path is not None:
                out[path] = "\n".join(lines)
            path, lines = None, []
        elif text.startswith("+++ "):
            name = text[4:]
            path = name[2:] if name.startswith("b/") else None
        elif path is not None and (lines or text.startswith("@@")):
            lines.append(text)
    if path is not None:
        out[path] = "\n".join(lines)
    return out


def _key(path: str, line: int, text: str) -> str:
    return hashlib.sha256(f"{path}\0{line}\0{text}".encode()).hexdigest()[:16]


def _section(r: RecordResult, moved_by: str | None) -> str:
    b = r.binding()
    head = f"**{EMOJI.get(r.verdict, '')} roofcheck {r.verdict.value}** · `{_code(r.id)}`"
    if b is not None:
        head += f" · {percent(b.percent)} of its {roof_name(b.check.value)}"
    lines = [head]
    if moved_by:
        lines.append(moved_by)
    if b is not None and r.verdict in (Verdict.VIOLATION, Verdict.SUSPECT):
        lines.append(_plain(finding(r)))  # in the comment's words and figures
    elif r.messages:
        lines.append(_plain(r.messages[0].text))
    if b is not None:
        lines.append(f"Arithmetic: `{_code(b.formula)}`")
    if fix := record_fix(r):
        lines.append(f"**To fix:** {_fix_text(r, fix)}")
    return "\n\n".join(lines)


def _code(text: str) -> str:
    """Text for inside a code span: shown literally, so only kept to one line, without a
    backtick that would close the span or a `<!--` that would start a comment."""
    text = re.sub(r"\s+", " ", text).replace("`", "'").replace("<!--", "< !--")
    return text[:300]


def _fix_text(r: RecordResult, text: str) -> str:
    return str(fix_markdown(r, text))


def _plain(text: str) -> str:
    """A stranger's text inside a review comment: one line, no mention, no HTML."""

    return str(md(text, 600))


def plan(
    report: Report,
    comparison: Comparison | None,
    patches: Mapping[str, str | None],
    read: Callable[[str], bytes | None],
    existing: Iterable[Existing],
    bot_login: str,
) -> Plan:
    """Where each finding goes (see the module docstring)."""
    by_line: dict[tuple[str, int], list[tuple[RecordResult, str | None]]] = {}
    outside: list[str] = []
    lines_of = {path: diff_lines(p) for path, p in patches.items()}
    for r in report.records:
        if r.verdict not in INLINE or (r.deprecated and not report.deprecated_fail):
            continue  # a deprecated record is reported apart, in the sticky comment only
        if r.path in report.already:
            continue  # the base's own finding: in the sticky comment's collapsed section only
        spot = _spot(r, comparison, lines_of, read)
        if spot is None:
            outside.append(r.id)
            continue
        path, line, moved_by = spot
        by_line.setdefault((path, line), []).append((r, moved_by))
    comments = []
    for (path, line), items in by_line.items():
        sections = [_section(r, moved_by) for r, moved_by in items[:MAX_SECTIONS]]
        if len(items) > MAX_SECTIONS:
            more = len(items) - MAX_SECTIONS
            sections.append(f"…and {more} more record{'s' if more != 1 else ''} this line "
                            "moves: the sticky comment lists them all.")  # fmt: skip
        text = "\n\n---\n\n".join(sections)
        key = _key(path, line, text)
        body = f"<!-- roofbot:finding {key} -->\n{text}"
        comments.append(LineComment(path, line, body, key, tuple(r.id for r, _ in items)))
    kept = comments[:MAX_INLINE]
    outside += [rid for c in comments[MAX_INLINE:] for rid in c.records]
    mine = [e for e in existing if e.key and e.author_login.lower() == bot_login.lower()]
    # an outdated comment is hidden on the diff: its finding, if it stands, is posted again
    have = {e.key for e in mine if e.line is not None}
    wanted = {c.key for c in kept}
    return Plan(
        post=tuple(c for c in kept if c.key not in have),
        standing=tuple(c for c in kept if c.key in have),
        delete=tuple(e.id for e in mine if e.key not in wanted or e.line is None),
        outside=tuple(outside),
    )


def _spot(
    r: RecordResult,
    comparison: Comparison | None,
    lines_of: Mapping[str, frozenset[int]],
    read: Callable[[str], bytes | None],
) -> tuple[str, int, str | None] | None:
    """(path, line, what moved it) of the diff line that holds the finding's field."""
    if r.path in lines_of:
        raw = read(r.path)
        found = record_findings(r, raw, True)
        main = next((f for f in found if not f.trap), None)
        line = main.line if main is not None else line_of(_text(raw), "value") or 1
        if line in lines_of[r.path]:
            return r.path, line, None
    delta = comparison.of(r.id) if comparison is not None else None
    if delta is None:
        return None
    for m in delta.moved:
        if m.path and m.path in lines_of:
            line = line_of(_text(read(m.path)), m.name) or 1
            if line in lines_of[m.path]:
                before = delta.before
                was = f"{before.verdict.value}" if before is not None else "new"
                if before is not None and (b := before.binding()) is not None:
                    was += f" {percent(b.percent)}"
                now = r.verdict.value
                if (a := r.binding()) is not None:
                    now += f" {percent(a.percent)}"
                why = (
                    f"This change moves `{_code(r.id)}`: {was} → {now} "
                    f"(`{_code(m.name)}` {_plain(m.before or '–')} → {_plain(m.after or '–')})."
                )
                return m.path, line, why
    return None


def _text(raw: bytes | None) -> str:
    return raw.decode("utf-8", "replace") if raw is not None else ""
