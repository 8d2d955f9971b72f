"""The reader's three kinds of rule, as data: each is a pattern with the real phrases (from the
users' records) that it must read and the ones it must leave alone. tests/test_reader_rules.py
reads every phrase through the whole reader, so a rule and its evidence can't drift apart."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Generic, TypeVar

T = TypeVar("T")


class Kind(Enum):
    """What a number or word in the text is a mention of."""

    COUNT = "accelerator count"
    PER_DEVICE = "a per-device figure"
    DEVICE_MEMORY = "one device's memory"
    PARALLELISM = "multi-device split"
    TENSOR_DEGREE = "tensor-parallel degree"
    PIPELINE_DEGREE = "pipeline-parallel degree"
    DATA_DEGREE = "data-parallel degree"
    EXPERT_DEGREE = "expert-parallel degree"
    BATCH = "decode batch"
    AGGREGATE = "an aggregate rate"
    PER_SEQUENCE = "a per-sequence rate"
    NO_FIGURE = "no published figure"
    BANDWIDTH = "device bandwidth"
    PRECISION = "compute precision"
    GGUF_TYPE = "GGUF quantization type"
    BITS = "bits per weight"
    PARAMS = "parameter count"
    ACTIVE = "active parameters"
    MOE = "a mixture of experts"
    WEIGHT_SIZE = "weight bytes"
    WEIGHT_BOUND = "a memory footprint"
    SPECULATIVE = "speculative decoding"
    TOKENS_PER_STEP = "accepted tokens per step"
    DERIVED = "a figure derived from bandwidth"


NUMBER_WORDS: dict[str, int] = {
    "one": 1, "single": 1, "two": 2, "dual": 2, "twin": 2, "three": 3, "four": 4, "quad": 4,
    "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "twelve": 12,
    "sixteen": 16, "thirty-two": 32, "sixty-four": 64,
}  # fmt: skip
"""Counts written as words ("eight H100s", "a dual RTX 3090 rig", "two p5.48xlarge")."""

UNKNOWN = -1
"""A batch rule's value for text that says the batch is not one fixed number."""


@dataclass(frozen=True)
class Rule(Generic[T]):
    """An input rule: every match of `pattern` is a mention of `kind`, valued by `read`.
    `reads` pairs real phrases with the value the reader must take from them; `leaves` are
    real phrases from which it must take no affirmed value of this rule. A `weak` rule names
    the kind only indirectly (a rack's name, a tensor-parallel degree): in a field where a
    strong rule also names it, the weak mention gives way."""

    name: str
    kind: Kind
    pattern: re.Pattern[str]
    read: Callable[[re.Match[str]], T]
    reads: tuple[tuple[str, T], ...]
    leaves: tuple[str, ...] = ()
    weak: bool = False
    cased: bool = False


@dataclass(frozen=True)
class Aside:
    """A stretch of text that is not what a number in it looks like: a mention of one of
    `shields` whose number lies inside it is set aside, with `reason`. `reads` are real
    phrases it must claim, `leaves` real phrases it must not."""

    name: str
    shields: frozenset[Kind]
    pattern: re.Pattern[str]
    reason: str
    reads: tuple[str, ...]
    leaves: tuple[str, ...] = ()
    cased: bool = False


class Scope(Enum):
    """How far a cue reaches from where it stands."""

    AHEAD = "the rest of its clause"
    BEHIND = "its clause up to the cue"
    SENTENCE_AHEAD = "the rest of its sentence"
    SENTENCE = "its whole sentence"
    CLAUSE = "its whole clause"


class Stance(Enum):
    """What the text does with a mention."""

    AFFIRMED = "affirmed for this run"
    DENIED = "denied or left unstated"
    UNSURE = "perhaps denied: a denial stands in its clause, but not next to it"
    OTHER_RUN = "about another run"
    SET_ASIDE = "not a mention of this input"


@dataclass(frozen=True)
class Cue:
    """Words that deny a statement (`stance` DENIED: "not", "NOT stated", "OMITTED BY
    SOURCE:") or move it to another run (OTHER_RUN: "vs", "the same model's bf16 row"), over
    `scope`. `reads` pairs a real phrase with a word in it the cue must cover; `leaves` pairs
    a real phrase with a word it must not."""

    name: str
    stance: Stance
    pattern: re.Pattern[str]
    scope: Scope
    reads: tuple[tuple[str, str], ...]
    leaves: tuple[tuple[str, str], ...] = ()
    fields: frozenset[str] | None = None
    """The fields the cue is read in; None: every field."""
    cased: bool = False
    window: int | None = None
    """A denial's certain reach, in words between it and what it denies; further off in its
    reach a mention is UNSURE, and the reach ends at a word that starts another statement.
    None: the whole scope, certain."""


def rx(pattern: str, flags: int = 0) -> re.Pattern[str]:
    r"""A rule's pattern. Patterns are written in lower case and read each field lower-cased;
    a rule, cue or aside that needs the text's own case says `cased` and reads the field as
    written. A pattern opens with the letters it looks for (the engine skips to them), and a
    word that needs no letter before it says so after the word: `tp(?<![\w-]tp)`."""
    return re.compile(pattern, flags)


def integer(group: int = 1) -> Callable[[re.Match[str]], int]:
    return lambda m: int(m[group])


def const(value: T) -> Callable[[re.Match[str]], T]:
    return lambda m: value
