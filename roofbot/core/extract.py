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


def find(rules: Iterable[Rule[T]], fields: Mapping[str, str], names: Iterable[str]) -> list[Hit[T]]:
    """Every match of every rule in the named fields, in field order then text order."""
    hits: list[Hit[T]] = []
    rules = tuple(rules)
    for name in names:
        text = fields.get(name) or ""
        text = text[:MAX_TEXT]
        for rule in rules:
            for m in rule.pattern.finditer(text):
                hits.append(Hit(rule.read(m), rule.name, quote(name, text, m.start(), m.end())))
    return hits


def first(rule: Rule[T], fields: Mapping[str, str], names: Iterable[str]) -> Hit[T] | None:
    hits = find((rule,), fields, names)
    return hits[0] if hits else None


def text_fields(record: Mapping[str, object]) -> dict[str, str]:
    """The record's free-text fields, as strings (anything else becomes empty)."""
    out = {}
    for name in ("name", "model", "unit", "methodology", "notes", "format_id", "engine_id"):
        v = record.get(name)
        out[name] = v if isinstance(v, str) else ""
    return out
