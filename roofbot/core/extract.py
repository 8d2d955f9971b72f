"""Running the extraction rules over a record's text fields: every hit keeps the field and
the quoted words it came from."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Generic, TypeVar

from roofbot.core.provenance import quote
from roofbot.core.rules import Rule

T = TypeVar("T")

MAX_TEXT = 20_000
"""Characters of one field that extraction reads: records are short, hostile ones are not."""


class Hit(Generic[T]):
    """A rule's value and where it came from. `source` is `field: "quoted words"`; a hit a
    rule found quotes its words only when asked, since most hits lose to another and are
    never shown (a hit built from elsewhere, as a format record, gives its source)."""

    __slots__ = ("_at", "_source", "rule", "value")

    def __init__(
        self, value: T, rule: str, source: str = "", at: tuple[str, str, int, int] | None = None
    ) -> None:
        self.value = value
        self.rule = rule
        self._source = source
        self._at = at  # (field, text, start, end) of the match

    @property
    def source(self) -> str:
        return quote(*self._at) if self._at is not None else self._source

    def __repr__(self) -> str:
        return f"Hit({self.value!r}, {self.rule!r}, {self.source!r})"


class TextFields(dict[str, str]):
    """A record's text fields, each also kept case-folded for the rules' needle test, with
    whether it is plain (see `plain`)."""

    def __init__(self) -> None:
        super().__init__()
        self._folded: dict[str, tuple[str, bool]] = {}

    def folded(self, name: str) -> tuple[str, bool]:
        if name not in self._folded:
            text = (self.get(name) or "")[:MAX_TEXT]
            self._folded[name] = (text.casefold(), plain(text))
        return self._folded[name]


def plain(text: str) -> bool:
    """ASCII without the four separators (U+001C-U+001F) that `str.isspace`, and so a
    Unicode pattern's `\\s`, counts as space and an ASCII pattern's does not: on such a text a
    rule's ASCII pattern reads exactly what its Unicode one does (tests/test_rules.py), and
    the engine steps along it up to three times faster (no Unicode tables for `\\b`, `\\w`
    and case)."""
    return text.isascii() and not (
        "\x1c" in text or "\x1d" in text or "\x1e" in text or "\x1f" in text
    )


def find(rules: Iterable[Rule[T]], fields: Mapping[str, str], names: Iterable[str]) -> list[Hit[T]]:
    """Every match of every rule in the named fields, in field order then text order."""
    hits: list[Hit[T]] = []
    rules = tuple(rules)
    tf = fields if isinstance(fields, TextFields) else None
    known = tf._folded if tf is not None else {}  # read inline: a call a field cost 2% more
    for name in names:
        text = (fields.get(name) or "")[:MAX_TEXT]
        if not text:
            continue
        got = known.get(name)
        if got is None:
            got = tf.folded(name) if tf is not None else (text.casefold(), plain(text))
        low, is_plain = got
        for rule in rules:
            # Rule.may_match, written out with the needles as words and families: this loop
            # runs some seventy times a record, and a call costs more than the tests
            if rule.needles:
                for needle in rule.words:
                    if needle in low:
                        break
                else:
                    for search, _ in rule.families:
                        if search(low, 0) is not None:
                            break
                    else:
                        continue
            if rule.also:
                for needle in rule.also:
                    if needle in low:
                        break
                else:
                    continue
            read, label = rule.read, rule.name
            pattern = (rule.ascii or rule.ascii_pattern()) if is_plain else rule.pattern
            for a, b in _windows(rule, text, low):
                for m in pattern.finditer(text, a, b):
                    hits.append(Hit(read(m), label, at=(name, text, m.start(), m.end())))
    return hits


WINDOW = 48
"""Characters either side of a needle that a match can reach. On the real records and every
rule's examples no match reaches further than 23 characters from a needle it holds
(tests/test_rules.py holds this at half the window); a window of 120 scanned 14% slower on
the real corpus, since most of a text's cost is the regex engine stepping along it."""


_word_end = re.compile(r"\S*").match  # where the word at a position ends (\S: not isspace)


def _windows(rule: Rule[T], text: str, low: str) -> list[tuple[int, int]]:
    """The parts of a long text a rule must scan: around each needle, merged. Short texts,
    rules without needles and texts whose case-folding changed their length are scanned whole."""
    n = len(text)
    if not rule.needles or n <= 3 * WINDOW or len(low) != n:
        return [(0, n)]
    spans: list[tuple[int, int]] = []
    for needle in rule.words:
        at = low.find(needle)
        while at >= 0:
            spans.append((max(0, at - WINDOW), min(n, at + len(needle) + WINDOW)))
            if len(spans) > 64:
                return [(0, n)]
            at = low.find(needle, at + 1)
    for search, back in rule.families:  # every needle's start; the longest needle at each
        m = search(low, 0)
        while m is not None:
            at = m.start()
            spans.append((max(0, at - back - WINDOW), min(n, m.end() + WINDOW)))
            if len(spans) > 64:
                return [(0, n)]
            m = search(low, at + 1)
    spans.sort()
    merged: list[tuple[int, int]] = []
    for a, b in spans:
        word = _word_end(text, b)  # never end a window inside a word (\S* always matches)
        b = word.end() if word else b
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def text_fields(record: Mapping[str, object]) -> TextFields:
    """The record's free-text fields, as strings (anything else becomes empty)."""
    out = TextFields()
    for name in ("name", "model", "unit", "methodology", "notes", "format_id", "engine_id"):
        v = record.get(name)
        out[name] = v if isinstance(v, str) else ""
    return out
