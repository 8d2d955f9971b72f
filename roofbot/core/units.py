"""Byte sizes as people write them. GB is 1e9 bytes, GiB is 2**30; a unit-less size is never
guessed."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

GB = 1e9
GiB = float(2**30)

_UNIT_FACTORS: dict[str, float] = {
    "tb": 1e12,
    "tib": float(2**40),
    "gb": GB,
    "gib": GiB,
    "mb": 1e6,
    "mib": float(2**20),
}

_SIZE = re.compile(r"^\s*(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>[TtGgMm]i?[Bb])\s*$")


@dataclass(frozen=True)
class Size:
    """A byte count and the text it was written as ("3.53 GiB")."""

    bytes: float
    text: str

    @property
    def gb(self) -> float:
        return self.bytes / GB


def unit_factor(unit: str) -> float:
    """Bytes per unit for GB, GiB, TB, TiB, MB, MiB (case-insensitive)."""
    return _UNIT_FACTORS[unit.lower()]


def parse_size(text: str) -> Size | None:
    """Parse "14 GB", "59.02 GiB"; None for anything else, a bare number included."""
    m = _SIZE.match(text)
    if not m:
        return None
    value = float(m["num"])
    if not math.isfinite(value) or value <= 0:
        return None
    return Size(value * unit_factor(m["unit"]), f"{m['num']} {_canonical_unit(m['unit'])}")


def _canonical_unit(unit: str) -> str:
    u = unit.lower()
    return {"tb": "TB", "tib": "TiB", "gb": "GB", "gib": "GiB", "mb": "MB", "mib": "MiB"}[u]


def fmt_bytes(n: float) -> str:
    """Decimal gigabytes, as the repository writes bandwidths and sizes: 14e9 -> "14 GB"."""
    return f"{n / GB:.4g} GB"


def show_input(name: str, value: object) -> str | None:
    """How a report shows an input whose unit its name carries (byte counts as GB), or None
    to show the value as it is."""
    if name.endswith("_bytes") and isinstance(value, int | float) and not isinstance(value, bool):
        return fmt_bytes(float(value))
    return None
