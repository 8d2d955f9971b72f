"""Choosing one value for an input from the reader's affirmed mentions: the most specific field
that states it wins, and where two statements of equal standing disagree, both are kept, the
lenient one is taken, and the input is marked assumed."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from roofbot.core.config import Pin
from roofbot.core.provenance import Basis, Input
from roofbot.core.reader.reading import Mention, Reading
from roofbot.core.reader.rule import Kind

TIERS: tuple[tuple[str, ...], ...] = (("unit",), ("model", "name"), ("methodology",), ("notes",))
"""The record's text fields, most specific first: the unit says what the figure is; the model
and name say what ran; the methodology how; the notes are context."""


@dataclass(frozen=True)
class Choice:
    """The value taken for an input, the mention that states it, and the mentions of equal
    standing that state something else."""

    value: Any
    mention: Mention
    rivals: tuple[Mention, ...] = ()

    def to_input(self, what: str) -> Input[Any]:
        if not self.rivals:
            return Input(self.value, self.mention.source, Basis.TEXT)
        others = "; ".join(f"{m.value} ({m.source})" for m in self.rivals[:2])
        return Input(
            self.value,
            f"{self.mention.source}; the text also states {what} {others}: "
            "the lenient reading is taken (assumed)",
            Basis.ASSUMED,
        )


def choose(
    reading: Reading,
    kind: Kind,
    tiers: Iterable[tuple[str, ...]] = TIERS[:3],
    lenient: Callable[[Any], Any] = lambda v: v,
    same: Callable[[Any], Any] = lambda v: v,
) -> Choice | None:
    """The value stated by the most specific tier that states `kind`; within a tier a weak
    mention gives way to a strong one, and of several values (told apart by `same`: "FP8"
    and "E4M3" are one precision) the most `lenient` is taken."""
    for tier in tiers:
        found = reading.stated(kind, tier)
        if not found:
            continue
        strong = [m for m in found if not m.weak] or found
        best = max(strong, key=lambda m: lenient(m.value))
        rivals: list[Mention] = []
        for m in strong:
            if same(m.value) != same(best.value) and all(
                same(r.value) != same(m.value) for r in rivals
            ):
                rivals.append(m)
        return Choice(best.value, best, tuple(rivals))
    return None


def pinned(pins: Mapping[str, Pin], key: str) -> Input[Any] | None:
    """A `.roofbot.yml` pin for this input, which wins over everything."""
    p = pins.get(key)
    return Input(p.value, f"pin: {key} = {p.text} (.roofbot.yml)", Basis.PIN) if p else None


def asides_of(reading: Reading, kinds: Mapping[str, Kind]) -> tuple[tuple[str, str], ...]:
    """For `explain`: each input's mentions that were not taken, quoted, with the reason."""
    out = []
    for name, kind in kinds.items():
        for m in reading.set_aside(kind):
            out.append((name, f"{m.source}: {m.why}"))
    return tuple(out)
