"""Running the extraction rules over a record's text fields: every hit keeps the field and
the quoted words it came from."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from roofbot.core.provenance import quote
from roofbot.core.rules import Rule

T = TypeVar("T")

MAX_TEXT = 20_000
"""Characters of one field that extraction reads: records are short, hostile ones are not."""


@dataclass(frozen=True)
class Hit(Generic[T]):
    value: T
    rule: str
    source: str  # field: "quoted words"


class TextFields(dict[str, str]):
    """A record's text fields, each also kept case-folded for the rules' needle test."""

    def __init__(self) -> None:
        super().__init__()
        self._folded: dict[str, str] = {}

    def folded(self, name: str) -> str:
        if name not in self._folded:
            self._folded[name] = (self.get(name) or "")[:MAX_TEXT].casefold()
        return self._folded[name]


def find(rules: Iterable[Rule[T]], fields: Mapping[str, str], names: Iterable[str]) -> list[Hit[T]]:
    """Every match of every rule in the named fields, in field order then text order."""
    hits: list[Hit[T]] = []
    rules = tuple(rules)
    folded = fields.folded if isinstance(fields, TextFields) else None
    for name in names:
        text = (fields.get(name) or "")[:MAX_TEXT]
        if not text:
            continue
        low = folded(name) if folded else text.casefold()
        for rule in rules:
            if not rule.may_match(low):
                continue
            for a, b in _windows(rule, text, low):
                for m in rule.pattern.finditer(text, a, b):
                    hits.append(Hit(rule.read(m), rule.name, quote(name, text, m.start(), m.end())))
    return hits


WINDOW = 120
"""Characters either side of a needle that a match can reach: every rule's matches are short
phrases, far shorter than this (a test runs each rule windowed and whole on the real texts)."""


def _windows(rule: Rule[T], text: str, low: str) -> list[tuple[int, int]]:
    """The parts of a long text a rule must scan: around each needle, merged. Short texts,
    rules without needles and texts whose case-folding changed their length are scanned whole."""
    n = len(text)
    if not rule.needles or n <= 3 * WINDOW or len(low) != n:
        return [(0, n)]
    spans: list[tuple[int, int]] = []
    for needle in rule.needles:
        at = low.find(needle)
        while at >= 0:
            spans.append((max(0, at - WINDOW), min(n, at + len(needle) + WINDOW)))
            if len(spans) > 64:
                return [(0, n)]
            at = low.find(needle, at + 1)
    spans.sort()
    merged: list[tuple[int, int]] = []
    for a, b in spans:
        while b < n and not text[b].isspace():  # never end a window inside a word
            b += 1
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def first(rule: Rule[T], fields: Mapping[str, str], names: Iterable[str]) -> Hit[T] | None:
    hits = find((rule,), fields, names)
    return hits[0] if hits else None


def text_fields(record: Mapping[str, object]) -> TextFields:
    """The record's free-text fields, as strings (anything else becomes empty)."""
    out = TextFields()
    for name in ("name", "model", "unit", "methodology", "notes", "format_id", "engine_id"):
        v = record.get(name)
        out[name] = v if isinstance(v, str) else ""
    return out
