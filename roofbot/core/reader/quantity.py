"""Quantities by one grammar: a number as contributors write it ("4,000", "1.2k", "3.35-3.9",
"123.45 ± 0.50") with its unit (GB/s, TB/s, GiB, GB, tok/s, t/s, tok/sec, TFLOPS, W, J/token,
ms, bpw) is one typed quantity. What it is a quantity of (this device's peak bandwidth, an
achieved one, a node's total, the weights' size) comes from the words around it: the input
rules build their patterns from `AMOUNT` and read their numbers with `amount`."""

from __future__ import annotations

import re
from dataclasses import dataclass

from roofbot.core.units import GB, GiB

NUMBER = r"(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?:\s?[km](?![a-z]))?"
"""A number: thousands may be separated ("4,000"), a k or M suffix may scale it ("1.2k")."""

AMOUNT = rf"({NUMBER}(?:\s*(?:-|–|to)\s*{NUMBER})?)(?:\s*(?:±|\+/-|\+-)\s*{NUMBER})?"
"""A number or a range, with an uncertainty after it ("123.45 ± 0.50"): one group, the
number or range (the uncertainty is read past, never taken for the figure)."""

_ONE = re.compile(r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?:\s?([km]))?", re.IGNORECASE)
_SCALE = {"": 1.0, "k": 1e3, "m": 1e6}


def amount(text: str) -> tuple[float, float]:
    """The (low, high) of a number or range as written: "4,000" -> (4000, 4000), "3.35-3.9"
    -> (3.35, 3.9), "1.2k" -> (1200, 1200); an uncertainty after it is not part of it."""
    text = re.split(r"±|\+/-|\+-", text)[0]
    found = [
        float(m[1].replace(",", "")) * _SCALE[(m[2] or "").lower()] for m in _ONE.finditer(text)
    ]
    found = found[:2]
    return (min(found), max(found))


@dataclass(frozen=True)
class Unit:
    """A unit as written (`pattern`, lower case), its canonical name, and the factor from the
    written unit to the canonical one (TB/s to GB/s is 1000)."""

    pattern: str
    name: str
    factor: float = 1.0


UNITS: tuple[Unit, ...] = (
    Unit(r"tok(?:en)?s?/s(?:ec)?/w", "tok/s/W"),
    Unit(r"tb/s|tbps", "GB/s", 1000.0),
    Unit(r"gb/s|gbps", "GB/s"),
    Unit(r"tib", "GB", 2.0**40 / GB),
    Unit(r"tb", "GB", 1000.0),
    Unit(r"gib", "GB", GiB / GB),
    Unit(r"gb", "GB"),
    Unit(r"mib", "GB", 2.0**20 / GB),
    Unit(r"mb", "GB", 1e-3),
    Unit(r"tok(?:en)?s?/s(?:ec)?|t/s|tps", "tok/s"),
    Unit(r"pflops", "TFLOPS", 1000.0),
    Unit(r"tflops", "TFLOPS"),
    Unit(r"j/tok(?:en)?", "J/token"),
    Unit(r"ms", "ms"),
    Unit(r"bpw|bits per weight", "bpw"),
    Unit(r"w|watts?", "W"),
)
"""Longer units first: "tok/s/W" is a rate per watt, never a token rate."""

_QUANTITY = re.compile(
    rf"(?<![\w.]){AMOUNT}\s?(" + "|".join(u.pattern for u in UNITS) + r")(?![\w/])"
)


@dataclass(frozen=True)
class Quantity:
    """A number with its unit, in the unit's canonical name; `low` and `high` where it is a
    range (else both are `value`), and where it stands in the text."""

    value: float
    low: float
    high: float
    unit: str
    start: int
    end: int


def quantities(text: str) -> list[Quantity]:
    """Every quantity in `text`, in order."""
    out = []
    for m in _QUANTITY.finditer(text.lower()):
        unit = next(u for u in UNITS if re.fullmatch(u.pattern, m[2]))
        low, high = amount(m[1])
        out.append(
            Quantity(high * unit.factor, low * unit.factor, high * unit.factor, unit.name,
                     m.start(), m.end())
        )  # fmt: skip
    return out
