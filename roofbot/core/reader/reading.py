"""Reading a record: every mention of every input in its text fields, each with its stance.

A mention is affirmed unless an aside claims its number (a link width is not a count), a
denial covers it ("not FP8", "MTP was NOT enabled", "OMITTED BY SOURCE: ... TP size"), or a
cue puts it in a sentence about another run ("the same model's bf16 row")."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any

from roofbot.core.reader.asides import ASIDES
from roofbot.core.reader.clauses import MAX_FIELD, Field, Span, quote, split_field
from roofbot.core.reader.cues import CUES
from roofbot.core.reader.denials import SETTING, STOPS
from roofbot.core.reader.rule import Aside, Cue, Kind, Rule, Scope, Stance
from roofbot.core.reader.vocab import RULES

TEXT_FIELDS = ("name", "model", "unit", "methodology", "notes")
"""The free-text fields of a benchmark record that the reader reads."""

PART_FIELDS = frozenset({"name", "model", "methodology"})
"""The fields a part's name is matched in, on their text about this run."""

_ALL = frozenset({"name", "model", "unit", "methodology", "notes"})
_RUN = frozenset({"name", "model", "unit", "methodology"})
READ_IN: Mapping[Kind, frozenset[str]] = {
    Kind.COUNT: _RUN, Kind.PER_DEVICE: frozenset({"unit"}), Kind.DEVICE_MEMORY: _RUN,
    Kind.PARALLELISM: _RUN, Kind.BATCH: _RUN, Kind.AGGREGATE: _RUN, Kind.PER_SEQUENCE: _RUN,
    Kind.NO_FIGURE: frozenset({"unit", "model"}), Kind.BANDWIDTH: _ALL, Kind.PRECISION: _RUN,
    Kind.GGUF_TYPE: _RUN, Kind.BITS: _RUN, Kind.PARAMS: frozenset({"model", "unit"}),
    Kind.ACTIVE: frozenset({"model"}), Kind.MOE: _RUN, Kind.WEIGHT_SIZE: _ALL,
    Kind.WEIGHT_BOUND: _RUN, Kind.SPECULATIVE: _RUN, Kind.TOKENS_PER_STEP: _ALL,
    Kind.DERIVED: _ALL, Kind.TENSOR_DEGREE: _RUN, Kind.PIPELINE_DEGREE: _RUN,
    Kind.DATA_DEGREE: _RUN, Kind.EXPERT_DEGREE: _RUN,
}  # fmt: skip
"""The fields each input is read from. The notes are context, full of other runs: only a
bandwidth (where no part resolves), a stated weight size, tokens per step and a derivation
are ever taken from them, so only those rules run there."""


_RULES_IN = {f: tuple(r for r in RULES if f in READ_IN[r.kind]) for f in TEXT_FIELDS}
"""Each field's rules: those of the inputs read from it."""


@dataclass(frozen=True)
class Mention:
    """One rule's match in one field: what it says (`kind`, `value`), where, and whether the
    text affirms it for this run (`stance`, with `why` when it does not)."""

    kind: Kind
    value: Any
    rule: str
    weak: bool
    field: Field
    span: Span
    stance: Stance
    why: str = ""

    @property
    def affirmed(self) -> bool:
        return self.stance is Stance.AFFIRMED

    @property
    def source(self) -> str:
        return quote(self.field, self.span.start, self.span.end)


@dataclass(frozen=True)
class _Cover:
    """Where a cue or aside applies in a field, and what it does there. A denial is certain
    over `sure` (the words next to it) and unsure over the rest of its reach."""

    reach: Span
    words: Span
    stance: Stance
    why: str
    shields: frozenset[Kind] | None = None
    sure: Span | None = None


_STOPS = re.compile(STOPS)
_SETTING = re.compile(SETTING)
_WORD = re.compile(r"\S+")


def _key_of(field: Field, clause: Span, at: int) -> Span:
    """For a denial that opens its clause right after a colon ("speculative decoding:
    disabled"), the clause the colon ends; else `clause`."""
    if field.text[clause.start : at].strip():
        return clause
    i = bisect.bisect_left(field.clauses, clause.start, key=lambda c: c.start)
    if i == 0 or i >= len(field.clauses) or field.clauses[i] != clause:
        return clause
    before = field.clauses[i - 1]
    gap = field.text[before.end : clause.start]
    return before if ":" in gap or "：" in gap else clause


@dataclass(frozen=True)
class _Stops:
    """Where a denial's reach ends in a field, found once: at a word that starts another
    statement ("but", "with"), and at a word that sets a term in its setting ("on", "at",
    "for": "w/o MTP on 1x H100" denies MTP, not the count)."""

    starts: list[int]
    ends: list[int]

    @classmethod
    def of(cls, low: str, terms: Sequence[tuple[int, int]]) -> _Stops:
        ends = sorted(e for _, e in terms)
        found = [(m.start(), m.end()) for m in _STOPS.finditer(low)]
        for m in _SETTING.finditer(low):
            i = bisect.bisect_right(ends, m.start()) - 1
            if i >= 0 and len(low[ends[i] : m.start()].split()) <= 2:
                found.append((m.start(), m.end()))
        found.sort()
        return cls([a for a, _ in found], [b for _, b in found])

    def first_after(self, at: int, end: int) -> int:
        i = bisect.bisect_left(self.starts, at)
        return self.starts[i] if i < len(self.starts) and self.starts[i] < end else end

    def last_before(self, start: int, at: int) -> int:
        i = bisect.bisect_right(self.ends, at) - 1
        return self.ends[i] if i >= 0 and self.ends[i] > start else start


_LOOK = 400
"""Characters a denial's certain window is looked for in: a few words, in any real text."""


def _reach(
    field: Field, low: str, stops: _Stops, cue: Cue, m: re.Match[str]
) -> tuple[Span, Span | None]:
    """How far the cue reaches and, for a windowed denial, the stretch it is sure of."""
    clause, sentence = field.clause_at(m.start()), field.sentence_at(m.start())
    if cue.window is None:
        return {
            Scope.AHEAD: Span(m.end(), clause.end),
            Scope.BEHIND: Span(clause.start, m.start()),
            Scope.SENTENCE_AHEAD: Span(m.end(), sentence.end),
            Scope.SENTENCE: sentence,
            Scope.CLAUSE: clause,
        }[cue.scope], None
    if cue.scope is Scope.AHEAD:
        reach = Span(m.end(), stops.first_after(m.end(), clause.end))
        look = min(reach.end, reach.start + _LOOK)
        words = list(islice(_WORD.finditer(low, reach.start, look), cue.window + 1))
        sure_end = words[cue.window].end() if len(words) > cue.window else look
        return reach, Span(reach.start, sure_end)
    key = _key_of(field, clause, m.start())
    end = m.start() if key is clause else key.end
    reach = Span(stops.last_before(key.start, end), end)
    look = max(reach.start, reach.end - _LOOK)
    words = list(_WORD.finditer(low, look, reach.end))
    sure_start = words[-1 - cue.window].start() if len(words) > cue.window else look
    return reach, Span(sure_start, reach.end)


def lowered(text: str) -> str:
    """`text` in lower case, letter for letter (a letter whose lower case is longer, as "İ" is,
    stays as it is), so that every offset into it is an offset into `text`."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


def _covers(
    field: Field,
    low: str,
    cues: Iterable[Cue],
    asides: Iterable[Aside],
    terms: Sequence[tuple[int, int]] = (),
) -> list[_Cover]:
    out = []
    stops = _Stops.of(low, terms)
    for a in asides:
        for m in a.pattern.finditer(field.text if a.cased else low):
            span = Span(m.start(), m.end())
            why = f'"{" ".join(m[0].split())}": {a.reason}'
            out.append(_Cover(span, span, Stance.SET_ASIDE, why, a.shields))
    for c in cues:
        if c.fields is not None and field.name not in c.fields:
            continue
        for m in c.pattern.finditer(field.text if c.cased else low):
            words = Span(m.start(), m.end())
            why = f'{c.stance.value}: "{" ".join(m[0].split())}" ({c.name})'
            reach, sure = _reach(field, low, stops, c, m)
            out.append(_Cover(reach, words, c.stance, why, sure=sure))
    order = {Stance.SET_ASIDE: 0, Stance.DENIED: 1, Stance.OTHER_RUN: 2, Stance.UNSURE: 3}
    return sorted(out, key=lambda c: order[c.stance])


def _number_at(m: re.Match[str]) -> int:
    """Where the mention's own number (its first group) starts; else the match's start."""
    for i in range(1, (m.re.groups or 0) + 1):
        if m.start(i) >= 0:
            return m.start(i)
    return m.start()


def _stance(rule: Rule[Any], m: re.Match[str], covers: list[_Cover]) -> tuple[Stance, str]:
    at, start, end = _number_at(m), m.start(), m.end()
    unsure: tuple[Stance, str] | None = None
    for c in covers:
        if c.shields is not None:
            if rule.kind in c.shields and c.words.start <= at < c.words.end:
                return c.stance, c.why
            continue
        overlaps = c.words.start < end and start < c.words.end
        if overlaps or not c.reach.start <= start < max(c.reach.end, c.reach.start + 1):
            continue
        if c.sure is None or (c.sure.start < end and start < c.sure.end):
            return c.stance, c.why
        unsure = unsure or (Stance.UNSURE, f"unsure, {c.why}")
    return unsure or (Stance.AFFIRMED, "")


def _this_run(field: Field, covers: list[_Cover]) -> str:
    """The field's text with what it denies or says of another run blanked out."""
    edges = [0] * (len(field.text) + 1)  # +1 where a blanked stretch opens, -1 where it ends
    for c in covers:
        if c.stance is not Stance.SET_ASIDE and c.reach.end > c.reach.start:
            edges[c.reach.start] += 1
            edges[c.reach.end] -= 1
    out, depth = [], 0
    for ch, edge in zip(field.text, edges, strict=False):
        depth += edge
        out.append(" " if depth else ch)
    return "".join(out)


@dataclass(frozen=True)
class _Near:
    """The covers that reach into each clause, so that a mention is weighed against those of
    the clauses it stands in, not against every cover of the field."""

    covers: list[_Cover]
    starts: list[int]
    by_clause: dict[int, list[int]]

    @classmethod
    def of(cls, field: Field, covers: list[_Cover]) -> _Near:
        starts = [c.start for c in field.clauses]
        out: dict[int, list[int]] = {}
        for n, c in enumerate(covers):
            a, b = (
                (c.words.start, c.words.end)
                if c.shields is not None
                else (c.reach.start, c.reach.end)
            )
            for i in range(bisect.bisect_right(starts, a) - 1, cls._at(starts, max(a, b - 1)) + 1):
                out.setdefault(i, []).append(n)
        return cls(covers, starts, out)

    @staticmethod
    def _at(starts: list[int], pos: int) -> int:
        return bisect.bisect_right(starts, pos) - 1

    def around(self, start: int, end: int) -> list[_Cover]:
        """The covers reaching into the clauses from `start` to `end`, in precedence order."""
        first, last = self._at(self.starts, start), self._at(self.starts, end)
        found = {n for i in range(first, last + 1) for n in self.by_clause.get(i, ())}
        return [self.covers[n] for n in sorted(found)]


def read_field(
    name: str,
    text: str,
    rules: Iterable[Rule[Any]] = RULES,
    cues: Iterable[Cue] = CUES,
    asides: Iterable[Aside] = ASIDES,
    this_run: bool = True,
) -> tuple[list[Mention], str]:
    """Every mention the rules find in one field, in text order, each with its stance; and,
    where `this_run` is asked for, the field's text about this run alone (for matching part
    names). A field no rule matches needs no clauses, cues or asides."""
    text = text[:MAX_FIELD]
    low = lowered(text)
    matches = [
        (rule, m) for rule in rules for m in rule.pattern.finditer(text if rule.cased else low)
    ]
    if not matches and not this_run:
        return [], text
    field = split_field(name, text)
    kinds = {rule.kind for rule, _ in matches}
    terms = [(m.start(), m.end()) for _, m in matches]
    covers = _covers(field, low, cues, [a for a in asides if a.shields & kinds], terms)
    near = _Near.of(field, covers)
    found, said = [], set()
    for rule, m in sorted(matches, key=lambda rm: rm[1].start()):
        value = rule.read(m)
        statement = (rule.kind, _number_at(m), value)
        if statement in said:
            continue  # two phrasings around one number state it once
        said.add(statement)
        stance, why = _stance(rule, m, near.around(m.start(), max(m.start(), m.end() - 1)))
        span = Span(m.start(), m.end())
        found.append(Mention(rule.kind, value, rule.name, rule.weak, field, span, stance, why))
    return found, _this_run(field, covers)


@dataclass(frozen=True)
class Reading:
    """A record's text as the reader understood it: every mention, affirmed or not."""

    mentions: tuple[Mention, ...]
    texts: Mapping[str, str]
    this_run: Mapping[str, str]
    """Each field's text with its denials and its sentences about other runs blanked out."""

    def stated(self, kind: Kind, fields: Iterable[str]) -> list[Mention]:
        """The affirmed mentions of `kind` in `fields`, in the order the fields are named."""
        return [
            m
            for f in fields
            for m in self.mentions
            if m.kind is kind and m.field.name == f and m.stance is Stance.AFFIRMED
        ]

    def set_aside(self, kind: Kind) -> list[Mention]:
        """The mentions of `kind` the reader did not take, each with its reason."""
        return [m for m in self.mentions if m.kind is kind and not m.affirmed]

    def text(self, name: str) -> str:
        return self.texts.get(name, "")


def record_texts(record: Mapping[str, object]) -> dict[str, str]:
    """The record's free-text fields (and its format and engine ids), as strings, each cut
    to MAX_FIELD characters: a stranger's 2 MB `unit` is read as far as a record's would be."""
    out = {}
    for name in (*TEXT_FIELDS, "format_id", "engine_id"):
        v = record.get(name)
        out[name] = v[:MAX_FIELD] if isinstance(v, str) else ""
    return out


def read_record(record: Mapping[str, object]) -> Reading:
    """Read every text field of a benchmark record."""
    texts = record_texts(record)
    mentions: list[Mention] = []
    this_run = {}
    for name in TEXT_FIELDS:
        rules = _RULES_IN[name]
        blank = name in PART_FIELDS
        found, this_run[name] = read_field(name, texts[name], rules, this_run=blank)
        mentions += found
    return Reading(tuple(mentions), texts, this_run)
