"""A value and where it came from: every roofline input carries both."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Generic, TypeVar

T = TypeVar("T", covariant=True)


class Basis(Enum):
    """How an input was obtained, from strongest to weakest."""

    PIN = "pin"  # .roofbot.yml says so
    FIELD = "field"  # a structured field of the record
    CATALOGUE = "catalogue"  # a catalogue record the benchmark references or names
    TEXT = "text"  # read from the record's own free text
    DERIVED = "derived"  # arithmetic on other inputs
    ASSUMED = "assumed"  # nothing says so; a default was taken


@dataclass(frozen=True)
class Input(Generic[T]):
    """One resolved input: its value, a human-readable source, and how it was obtained."""

    value: T
    source: str
    basis: Basis

    @property
    def assumed(self) -> bool:
        return self.basis is Basis.ASSUMED


def clip(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, an ellipsis last where it was cut: how a
    stranger's text (an id, a key, a value, a message) is shown where space is bounded."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def quote(field: str, text: str, start: int, end: int, pad: int = 24) -> str:
    """`field: "…the matched words…"`, trimmed to the match and a little context."""
    a = max(0, start - pad)
    b = min(len(text), end + pad)
    snippet = " ".join(text[a:b].split())
    return f'{field}: "{"…" if a else ""}{snippet}{"…" if b < len(text) else ""}"'
