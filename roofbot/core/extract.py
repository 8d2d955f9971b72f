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
            for m in rule.pattern.finditer(text):
                hits.append(Hit(rule.read(m), rule.name, quote(name, text, m.start(), m.end())))
    return hits


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
