"""Results as data: verdicts, roof checks, per-record results, the calibration outcome and
the whole report. Nothing here formats or prints."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol

from roofbot.core.provenance import Input


class Verdict(Enum):
    ERROR = "error"
    VIOLATION = "violation"
    SUSPECT = "suspect"
    UNCHECKED = "unchecked"
    PASS = "pass"
    SKIPPED = "skipped"

    @property
    def rank(self) -> int:
        """Severity order, worst first (for sorting reports)."""
        return _RANKS[self]


_RANKS = {v: i for i, v in enumerate(Verdict)}


class CheckId(Enum):
    MEMORY = "memory-roof"
    BATCHED = "batched-memory-roof"
    COMPUTE = "compute-roof"


class RateKind(Enum):
    PER_SEQUENCE = "per-sequence"
    AGGREGATE = "aggregate"
    PREFILL = "prefill"


@dataclass(frozen=True)
class RoofCheck:
    """One ceiling computed for one record."""

    check: CheckId
    applies: bool
    ceiling: float
    value: float
    formula: str  # the arithmetic with the numbers substituted
    why: str | None = None  # why it does not apply, when it does not
    assumed: tuple[str, ...] = ()  # assumed inputs this ceiling rests on
    alternatives: tuple[tuple[str, float], ...] = ()  # (label, ceiling) under other readings

    @property
    def percent(self) -> float:
        return 100.0 * self.value / self.ceiling


class Doubt(Enum):
    """Why the reader held a second reading of a record plausible."""

    RIVAL = "rival"  # two statements of equal standing disagree
    UNSURE_DENIAL = "unsure-denial"  # a denial stands in the clause, not next to the words
    UNPLACED_SPECULATION = "unplaced-speculation"  # named, not placed as this run's
    ASSUMED = "assumed"  # nothing states the input: a default was taken (a count of 1)


@dataclass(frozen=True)
class Deciding:
    """The reading a `suspect` verdict turns on: under it the record's verdict differs from
    the one the main reading gives. Which input, read as which value, from which words."""

    doubt: Doubt
    input: str
    value: str
    source: str


@dataclass(frozen=True)
class Message:
    level: str  # "error", "warning", "info"
    text: str
    field: str | None = None  # the record field it is about, for a line number


@dataclass(frozen=True)
class RecordResult:
    id: str
    path: str
    verdict: Verdict
    status: str | None = None
    metric: str | None = None
    value: float | None = None
    unit: str | None = None
    inputs: tuple[tuple[str, Input[object]], ...] = ()
    checks: tuple[RoofCheck, ...] = ()
    traps: tuple[str, ...] = ()
    trap_notes: tuple[tuple[str, str], ...] = ()  # (trap id, why it applies to this record)
    messages: tuple[Message, ...] = ()
    lacks: tuple[str, ...] = ()  # for `unchecked`: the inputs no roof could be computed without
    pinned: bool = False
    set_aside: tuple[tuple[str, str], ...] = ()  # (input, "quote: why") readings not taken
    deciding: Deciding | None = None  # for `suspect`: the reading the verdict turns on

    @property
    def deprecated(self) -> bool:
        return self.status == "deprecated"

    @property
    def token_rate(self) -> bool:
        return verdict_is_token_rate(self.verdict)

    @property
    def checked(self) -> bool:
        return any(c.applies for c in self.checks)

    def binding(self) -> RoofCheck | None:
        """The applied check with the highest percent: the ceiling that binds."""
        applied = [c for c in self.checks if c.applies]
        return max(applied, key=lambda c: c.percent) if applied else None


def verdict_is_token_rate(verdict: Verdict) -> bool:
    """Counted in coverage: a token-rate metric with a token-rate unit, readable (a record
    of any other verdict is skipped or an error)."""
    return verdict not in (Verdict.SKIPPED, Verdict.ERROR)


@dataclass(frozen=True)
class CalibrationEntry:
    id: str
    check: str
    expected_percent: float
    percent: float | None
    ok: bool
    why: str | None = None  # on a miss: what in the instrument could have moved it


@dataclass(frozen=True)
class Calibration:
    ran: bool
    tolerance_pp: float
    entries: tuple[CalibrationEntry, ...] = ()

    @property
    def ok(self) -> bool:
        return all(e.ok for e in self.entries)


class Verdicted(Protocol):
    """Anything with a verdict and a status (a record's result)."""

    @property
    def verdict(self) -> Verdict: ...

    @property
    def deprecated(self) -> bool: ...


def fails(r: Verdicted, fail_on: frozenset[Verdict], deprecated_fail: bool) -> bool:
    """Whether this result fails the run: its verdict is in `fail_on`, and a deprecated record
    counts only with `deprecated_fail`."""
    return r.verdict in fail_on and (deprecated_fail or not r.deprecated)


@dataclass(frozen=True)
class Report:
    records: tuple[RecordResult, ...]
    calibration: Calibration
    fail_on: frozenset[Verdict] = frozenset({Verdict.VIOLATION, Verdict.ERROR})
    deprecated_fail: bool = False
    messages: tuple[Message, ...] = field(default=())
    #: the paths whose finding is already at the base, not the change's (core.compare): they
    #: are reported and never fail the run (empty: every finding counts, as in a sweep)
    already: frozenset[str] = frozenset()

    def failing(self) -> tuple[RecordResult, ...]:
        """The results that fail the run: in `fail_on`, and the change's own."""
        return tuple(
            r
            for r in self.records
            if fails(r, self.fail_on, self.deprecated_fail) and r.path not in self.already
        )

    def existing(self) -> tuple[RecordResult, ...]:
        """The findings already at the base, which the run reports and does not fail on."""
        return tuple(r for r in self.records if r.path in self.already)

    @property
    def ok(self) -> bool:
        return not self.failing() and self.calibration.ok

    @property
    def token_rate_records(self) -> int:
        return sum(1 for r in self.records if r.token_rate)

    @property
    def checked(self) -> int:
        return sum(1 for r in self.records if r.token_rate and r.checked)

    def count(self, verdict: Verdict) -> int:
        return sum(1 for r in self.records if r.verdict is verdict)
