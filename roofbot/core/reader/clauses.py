"""A text field split into sentences and clauses, by offsets into the field's text.

A sentence ends at a full stop, question or exclamation mark followed by a space, at a
semicolon, or at a line break (or at their full-width forms, "。" and "；"). A clause is a part
of a sentence between commas, colons, dashes used as separators, slashes between spaces and
the full-width "，" and "：": the unit a negation or a number's noun belongs to. Brackets do not break a clause: "(MTP) was NOT enabled" denies what it glosses.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

MAX_FIELD = 20_000
"""Characters of one field that the reader reads: records are short, hostile ones are not."""

_SENTENCE_END = re.compile(
    r"[.!?](?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bvs\.)(?<!\bapprox\.)(?<!\bcf\.)(?<!\b[Nn]o\.)"
    r"(?=\s+(?![a-z]))\s+|;\s*|\n+|[。；！？]\s*"
)
_CLAUSE_BREAK = re.compile(r",\s+|:\s+|\s[-–—]{1,2}\s|\s/\s|[，：]\s*")


@dataclass(frozen=True)
class Span:
    """A stretch of one field's text: [start, end)."""

    start: int
    end: int

    def holds(self, at: int) -> bool:
        return self.start <= at < self.end


@dataclass(frozen=True)
class Field:
    """One text field of a record, with its sentences and clauses."""

    name: str
    text: str
    sentences: tuple[Span, ...]
    clauses: tuple[Span, ...]

    def sentence_at(self, at: int) -> Span:
        return _span_at(self.sentences, at) or Span(0, len(self.text))

    def clause_at(self, at: int) -> Span:
        return _span_at(self.clauses, at) or self.sentence_at(at)


def _span_at(spans: tuple[Span, ...], at: int) -> Span | None:
    """The span of `spans` (in text order, none overlapping) that holds `at`, if one does."""
    i = bisect.bisect_right(spans, at, key=lambda s: s.start) - 1
    return spans[i] if i >= 0 and spans[i].holds(at) else None


def _split(text: str, start: int, end: int, breaks: re.Pattern[str]) -> list[Span]:
    spans, at = [], start
    for m in breaks.finditer(text, start, end):
        if m.start() > at:
            spans.append(Span(at, m.start()))
        at = m.end()
    if at < end:
        spans.append(Span(at, end))
    return spans


def split_field(name: str, text: str) -> Field:
    """The field `name`, its text cut to MAX_FIELD characters, split."""
    text = text[:MAX_FIELD]
    sentences = _split(text, 0, len(text), _SENTENCE_END) or [Span(0, len(text))]
    clauses = [c for s in sentences for c in _split(text, s.start, s.end, _CLAUSE_BREAK)]
    return Field(name, text, tuple(sentences), tuple(clauses))


def quote(field: Field, start: int, end: int, pad: int = 24) -> str:
    """`field: "…the words…"`: the matched words with a little context, on one line."""
    a, b = max(0, start - pad), min(len(field.text), end + pad)
    snippet = " ".join(field.text[a:b].split())
    return f'{field.name}: "{"…" if a else ""}{snippet}{"…" if b < len(field.text) else ""}"'
