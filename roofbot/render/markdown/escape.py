"""Escaping for the comment: every string that can come from a record, a file name or
`.roofbot.yml` goes through one of these before it reaches the page. `md` for inline Markdown
(table cells included), `md_code` for roofbot's own sentences with `code` spans, `html_text`
inside HTML tags, `url` and `href` for link targets, `num` and `pct` for figures.

`Safe` is text already escaped; `Field` is a context string escaped before the template sees
it, keeping its raw text for the filters that escape it for somewhere else."""

from __future__ import annotations

import html
import math
import re
import urllib.parse
from typing import Any

from roofbot.core.figures import figure, percent
from roofbot.core.results import RecordResult

MAX_FIELD_CHARS = 600  # one escaped string in a cell; the JSON report has the rest


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


def raw(value: object) -> object:
    """The raw text of a :class:`Field`; any other value as it is."""
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


def plain(value: object, limit: int) -> str:
    """`value` as one line of at most `limit` characters: no invisible character, no run of
    blanks, no `<!--` or `-->`. Not escaped yet: every escaper starts from this."""
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
    text = html.escape(plain(value, limit), quote=False)
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return Safe(_neutralise(text))


def md_code(value: object, limit: int = MAX_FIELD_CHARS) -> Safe:
    """`md`, except that `code` spans stay code spans: their text is kept as it is (a code
    span shows it literally: no markup, no mention, no HTML), one line, with no backtick or
    `<!--` of its own. For roofbot's own sentences that name fields (`value`)."""
    text = plain(value, limit)
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an odd backtick: no span is closed by it
        parts[-2:] = [parts[-2] + "'" + parts[-1]]
    out = [str(md(p, limit)) if i % 2 != 1 else _span(p, limit) for i, p in
           enumerate(parts)]  # fmt: skip
    return Safe("".join(out))


def _span(text: str, limit: int) -> str:
    """A code span, where its text is plain; text with HTML's characters, a mention, a
    reference or an address (a stranger's id or key) is escaped as prose instead, so none
    reaches the page, even inert."""
    if not text.strip():
        return ""
    risky = re.search(r"[<>&@#]|://|www\.|GH-\d", text, re.IGNORECASE)
    return f"`{text}`" if not risky else str(md(text, limit))


def fix_markdown(r: RecordResult, fix: str) -> Safe:
    """A record's fix for the page: roofbot's own sentence, its `code` spans kept as code
    (`md_code`: a span shows what it quotes from the file literally, inert)."""
    return md_code(fix, 1000)


def html_text(value: object, limit: int = MAX_FIELD_CHARS) -> Safe:
    """Escape text inside raw HTML (e.g. `<summary>`), where Markdown backslashes would show."""
    value = raw(value)
    if isinstance(value, Safe):
        return value
    text = html.escape(plain(value, limit), quote=True).replace("|", "&#124;")
    text = text.replace("`", "&#96;").replace("*", "&#42;").replace("_", "&#95;")
    return Safe(_neutralise(text))


def url(path: object) -> Safe:
    """A relative link target: percent-encoded, never a scheme (`javascript:`) or a `..`."""
    text = plain(raw(path), 2000)
    parts = [p for p in text.split("/") if p not in ("", ".", "..")]
    return Safe(urllib.parse.quote("/".join(parts), safe="/-._~"))


def href(value: object) -> Safe:
    """An absolute http(s) link we built (job summary); anything else becomes no link."""
    text = plain(raw(value), 2000)
    if not re.fullmatch(
        r"https?://[A-Za-z0-9.\-:]+(/[A-Za-z0-9._~/\-]*)?(#[A-Za-z0-9._\-]*)?", text
    ):
        return Safe("#")
    return Safe(text)


def num(value: object, unit: str | None = None) -> Safe:
    """A figure for display (roofbot.core.figures: four significant figures, thousands
    separated), with its unit where given; a dash for none."""
    if value is None:
        return Safe("–")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return md(value)
    return md(figure(value, str(raw(unit)) if unit else None))


def pct(value: object) -> Safe:
    """A percent of a roof for display (three significant figures, "> 1000%" past that); a
    dash for anything that is not a finite number."""
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return md(percent(value))
    return Safe("–")
