"""The other plausible readings of a record's text, beside the one resolution takes.

Resolution takes one reading: the lenient value where statements of equal standing disagree,
a mention under a denial as denied, a named speculative decoding as this run's. Where the
reader was not sure, each other reading is a changed `Reading` (some mentions' stances
changed), resolved and checked like the first, so the verdict can hold under all of them:

- a rival value: each value the most specific field states for an input, taken alone;
- an unsure denial: the mentions a denial may not reach ("not under the usual stack or
  MTP"), read as affirmed;
- an unplaced speculation: speculative decoding named in the methodology only, with nothing
  that makes it this run's configuration (a flag, "with", "enabled", "using", a sentence that
  states this run's setup), read as another run's.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from roofbot.core.reader.reading import Mention, Reading
from roofbot.core.reader.rule import UNKNOWN, Kind, Stance
from roofbot.core.results import Deciding, Doubt
from roofbot.core.specificity import TIERS

RIVAL_KINDS: tuple[Kind, ...] = (
    Kind.COUNT, Kind.PARALLELISM, Kind.BATCH, Kind.BANDWIDTH, Kind.PRECISION, Kind.PARAMS,
    Kind.ACTIVE, Kind.WEIGHT_SIZE, Kind.BITS, Kind.TOKENS_PER_STEP,
)  # fmt: skip
"""The inputs whose rival values are each a reading of their own."""

_OWN_FIELDS = ("name", "model", "unit")
"""The fields that say what the figure is: speculative decoding named there is this run's."""

_PLACED = re.compile(
    r"--|[=_]|\b(?:with|using|uses|used|enabled|on|ran|runs|served|serving|config\w*)\b"
)
"""Words that make a speculative decoding named in a methodology clause this run's setting."""

Alternative = tuple[Deciding, Reading]


def _restance(reading: Reading, change: dict[int, Stance], why: str) -> Reading:
    """`reading` with the mentions at the positions `change` names given a new stance."""
    mentions = tuple(
        replace(m, stance=change[i], why=why) if i in change else m
        for i, m in enumerate(reading.mentions)
    )
    return replace(reading, mentions=mentions)


MAX_VALUES = 4
"""Of an input's rival values that are not numbers, the first few in the text are readings."""


def _ends(kind: Kind, values: list[Any]) -> list[Any]:
    """The values whose readings bound the verdict: of numbers, the least and the greatest
    (each ceiling moves one way with each input), and an unknown batch beside them; of names,
    the first MAX_VALUES. A text that states a thousand batches is read three ways, not a
    thousand."""
    numbers = [v for v in values if isinstance(v, int | float) and v != UNKNOWN]
    if len(numbers) != len([v for v in values if v != UNKNOWN]):
        return values[:MAX_VALUES]
    ends = list(dict.fromkeys((min(numbers), max(numbers)))) if numbers else []
    return ends + [UNKNOWN] * (UNKNOWN in values and kind is Kind.BATCH)


def _rivals(reading: Reading) -> list[Alternative]:
    out: list[Alternative] = []
    for kind in RIVAL_KINDS:
        for tier in TIERS:
            found = [
                i
                for i, m in enumerate(reading.mentions)
                if m.kind is kind and m.affirmed and m.field.name in tier
            ]
            if not found:
                continue
            strong = [i for i in found if not reading.mentions[i].weak] or found
            values = _ends(kind, list(dict.fromkeys(reading.mentions[i].value for i in strong)))
            if len(values) > 1:
                for v in values:
                    first = next(
                        reading.mentions[i] for i in strong if reading.mentions[i].value == v
                    )
                    drop = {i: Stance.SET_ASIDE for i in found if reading.mentions[i].value != v}
                    alt = _restance(reading, drop, f"a rival reading takes {v} alone")
                    said = "unknown" if kind is Kind.BATCH and v == UNKNOWN else str(v)
                    out.append((Deciding(Doubt.RIVAL, kind.value, said, first.source), alt))
            break
    return out


def _unsure(reading: Reading) -> list[Alternative]:
    out: list[Alternative] = []
    kinds = dict.fromkeys(m.kind for m in reading.mentions if m.stance is Stance.UNSURE)
    for kind in kinds:
        flip = {
            i: Stance.AFFIRMED
            for i, m in enumerate(reading.mentions)
            if m.kind is kind and m.stance is Stance.UNSURE
        }
        first = reading.mentions[min(flip)]
        alt = _restance(reading, flip, "")
        out.append((Deciding(Doubt.UNSURE_DENIAL, kind.value, str(first.value), first.source), alt))
    return out


def _placed(m: Mention, reading: Reading) -> bool:
    """Named in a field that says what the figure is, in a clause that sets it ("with MTP",
    "--speculative-config"), or in a sentence that states this run's setup ("1x A100, batch
    size 1, EAGLE-3 speculative decoding")."""
    if m.field.name in _OWN_FIELDS:
        return True
    clause, sentence = m.field.clause_at(m.span.start), m.field.sentence_at(m.span.start)
    if _PLACED.search(m.field.text[clause.start : clause.end].lower()):
        return True
    return any(
        o.affirmed and o.field is m.field and sentence.holds(o.span.start)
        and o.kind not in (Kind.SPECULATIVE, Kind.TOKENS_PER_STEP)
        for o in reading.mentions
    )  # fmt: skip


def _unplaced_speculation(reading: Reading) -> list[Alternative]:
    spec = [
        i
        for i, m in enumerate(reading.mentions)
        if m.kind is Kind.SPECULATIVE and m.affirmed and m.field.name != "notes"
    ]
    if not spec or any(_placed(reading.mentions[i], reading) for i in spec):
        return []
    first = reading.mentions[spec[0]]
    why = "speculative decoding named, but not placed as this run's"
    alt = _restance(reading, dict.fromkeys(spec, Stance.OTHER_RUN), why)
    return [
        (Deciding(Doubt.UNPLACED_SPECULATION, Kind.SPECULATIVE.value, "none", first.source), alt)
    ]


def alternatives(reading: Reading) -> tuple[Alternative, ...]:
    """Every other plausible reading of the record, each with what makes it differ."""
    return (*_rivals(reading), *_unsure(reading), *_unplaced_speculation(reading))
