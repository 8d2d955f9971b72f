"""How every figure roofbot shows is written: the comment, the job summary, the annotations,
the line comments and the terminal all use these, so one value reads the same everywhere.

A value keeps four significant figures (152 tok/s, 136.8 tok/s, 3,655 tok/s, 4.913 GB), a
percent three (111%, 87.7%, 4.2%); thousands are separated by commas; trailing zeros go; a
percent past 1000 is "> 1000%" (the exact figure says nothing more than "far over"); a pass
just under its roof never reads as 100%. A roof's id reads as words ("memory roof"). Pure."""

from __future__ import annotations

import math

PERCENT_CAP = 1000.0
"""Past this a percent is written "> 1000%"."""

ROOF_NAMES = {
    "memory-roof": "memory roof",
    "batched-memory-roof": "batched roof",
    "compute-roof": "compute roof",
}


def _significant(x: float, digits: int) -> str:
    """`x` to `digits` significant figures, comma-separated, without trailing zeros; at or
    past 10**digits, a whole number (rounded to `digits` figures: 19,427.15 -> 19,430)."""
    if x == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(x)))
    places = digits - 1 - magnitude
    rounded = round(x, places)
    if rounded != 0 and math.floor(math.log10(abs(rounded))) > magnitude:
        places -= 1  # 99.996 rounds to 100.0: four figures of 100 have one decimal
        rounded = round(x, places)
    if places <= 0:
        return f"{round(rounded):,}"
    text = f"{rounded:,.{places}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def figure(value: float | int | None, unit: str | None = None) -> str:
    """A measured or computed value: four significant figures, and its unit where given."""
    if value is None or isinstance(value, bool):
        return "–"
    if isinstance(value, float) and not math.isfinite(value):
        return "n/a"
    text = f"{value:,}" if isinstance(value, int) else _significant(float(value), 4)
    return f"{text} {unit}" if unit else text


def percent(value: float | None) -> str:
    """A percent of a roof: three significant figures, "> 1000%" past that; a figure under
    100 never rounds up to 100 (a pass at 99.96% reads 99.9%, not 100%)."""
    if value is None or isinstance(value, bool) or not math.isfinite(value):
        return "–"
    if value > PERCENT_CAP:
        return f"> {PERCENT_CAP:.0f}%"
    text = _significant(value, 3)
    if value < 100.0 and float(text.replace(",", "")) >= 100.0:
        text = "99.9"
    return f"{text}%"


def roof_name(check: str | None) -> str:
    """A roof's id as words: "memory-roof" -> "memory roof"."""
    if not check:
        return "roof"
    return ROOF_NAMES.get(check, check.replace("-", " "))
