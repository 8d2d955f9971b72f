"""Before and after: each record a pull request modifies or re-checks, its verdict and percent
at the base next to the PR's, and the inputs that moved them (`value 140 → 260`,
`memory_bandwidth_gbps 1008 → 3000`). A record the base does not have is `new`. Pure: it
compares two lists of results, checked by the caller at the two commits.

Each finding (a result that is not a pass or a skip) is also attributed: to the change
(`introduced`, `worsened`), to the base (`pre-existing`), or gone (`fixed`). The status fails
only on the change's findings, unless the repository asks for the strict behaviour."""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum
from typing import Literal

from roofbot.core.results import RecordResult, Verdict
from roofbot.core.units import show_input

Kind = Literal["new", "worse", "better", "same"]


class Attribution(Enum):
    """Whose a finding is: the change's, the base's, or nobody's any more."""

    INTRODUCED = "introduced"  # a new record's finding, or a catalogue file the change made invalid
    WORSENED = "worsened"  # the same record, a worse verdict or a higher percent of its roof
    PRE_EXISTING = "pre-existing"  # the same finding at the base
    FIXED = "fixed"  # a finding at the base, gone in the change

    @property
    def the_changes(self) -> bool:
        """Whether the finding is the change's own (the status fails on those only)."""
        return self in (Attribution.INTRODUCED, Attribution.WORSENED)


#: Verdicts that are findings: a pass or a skip is none.
FINDINGS = frozenset({Verdict.ERROR, Verdict.VIOLATION, Verdict.SUSPECT, Verdict.UNCHECKED})

#: A percent of the binding roof must rise by more than this (percentage points) to count as
#: worse: the last digit of a float sum never does.
PERCENT_EPSILON = 0.05

#: A catalogue input's source names its file and field: "data/accelerators/x.json: field".
_CATALOGUE_SOURCE = re.compile(r"^(?:pin -> )?(?P<path>[^\s:]+\.json): (?P<field>[A-Za-z_][\w]*)")


@dataclass(frozen=True)
class Moved:
    """One input that differs between base and PR."""

    name: str  # the record's field, or the catalogue field it came from
    before: str | None  # as the report shows it; None: the base had no such input
    after: str | None  # None: the PR has none
    path: str | None = None  # the catalogue file it came from; None: the record itself


@dataclass(frozen=True)
class Delta:
    """One record at the base and in the PR."""

    id: str
    path: str
    before: RecordResult | None  # None: the base has no such record
    after: RecordResult
    kind: Kind
    moved: tuple[Moved, ...] = ()
    attribution: Attribution | None = None  # None: a finding on neither side
    touched: bool = False  # a catalogue file the change edits: its finding is the change's

    @property
    def before_percent(self) -> float | None:
        return _percent(self.before) if self.before is not None else None

    @property
    def after_percent(self) -> float | None:
        return _percent(self.after)

    @property
    def the_changes(self) -> bool:
        """Whether the head's finding is the change's own: introduced, worsened, or on a
        catalogue file the change edits and leaves invalid."""
        if self.attribution is None or self.attribution is Attribution.FIXED:
            return False
        return self.attribution.the_changes or self.touched


@dataclass(frozen=True)
class Comparison:
    deltas: tuple[Delta, ...]
    #: base findings the head no longer reports at all (a catalogue file the change made valid)
    gone: tuple[RecordResult, ...] = ()
    catalogue: frozenset[str] = frozenset()  # the paths of catalogue files among the findings
    _by_id: dict[str, Delta] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for d in self.deltas:  # one look-up a record (a catalogue edit has thousands)
            self._by_id.setdefault(d.id, d)

    def count(self, kind: Kind) -> int:
        return sum(1 for d in self.deltas if d.kind == kind)

    def of(self, record_id: str) -> Delta | None:
        return self._by_id.get(record_id)

    def attributed(self, a: Attribution) -> tuple[RecordResult, ...]:
        """The findings of one attribution: the head's results (the base's, for `fixed`)."""
        fixed = [d.before for d in self.deltas if d.attribution is a and d.before is not None]
        if a is Attribution.FIXED:
            return (*fixed, *self.gone)
        return tuple(d.after for d in self.deltas if d.attribution is a)

    def already(self) -> frozenset[str]:
        """The head paths whose finding is the base's, not the change's: reported, never
        failing (unless the repository fails on existing findings)."""
        return frozenset(
            d.path for d in self.deltas if d.attribution is not None and not d.the_changes
        )


def _percent(r: RecordResult) -> float | None:
    b = r.binding()
    return b.percent if b is not None and math.isfinite(b.percent) else None


def _shown(name: str, value: object) -> str:
    v = value.value if hasattr(value, "value") and not isinstance(value, int | float) else value
    if isinstance(v, float):
        return show_input(name, v) or f"{v:g}"
    return show_input(name, v) or str(v)


def kind_of(before: RecordResult | None, after: RecordResult) -> Kind:
    """`worse` or `better` when the verdict moved (the verdicts' severity order), or when a
    finding's percent of its binding roof rose (`worse`); else `same`."""
    if before is None:
        return "new"
    if after.verdict.rank < before.verdict.rank:
        return "worse"
    if after.verdict.rank > before.verdict.rank:
        return "better"
    if after.verdict in FINDINGS and _higher(before, after):
        return "worse"
    return "same"


def _higher(before: RecordResult, after: RecordResult) -> bool:
    b, a = _percent(before), _percent(after)
    return b is not None and a is not None and a > b + PERCENT_EPSILON


def attribute(before: RecordResult | None, after: RecordResult) -> Attribution | None:
    """Whose the head's finding is (None: a finding on neither side). A verdict that improved
    but is still a finding stays the base's."""
    if after.verdict not in FINDINGS:
        return Attribution.FIXED if before is not None and before.verdict in FINDINGS else None
    if before is None:
        return Attribution.INTRODUCED
    if before.verdict not in FINDINGS:  # a pass (or a skip) became a finding
        return Attribution.WORSENED
    if after.verdict.rank < before.verdict.rank or (
        after.verdict is before.verdict and _higher(before, after)
    ):
        return Attribution.WORSENED
    if after.verdict is Verdict.ERROR and _errors(after) != _errors(before):
        return Attribution.WORSENED  # another error: a finding the base does not have
    return Attribution.PRE_EXISTING


def _errors(r: RecordResult) -> frozenset[str]:
    return frozenset(m.text for m in r.messages if m.level == "error")


def moved(before: RecordResult, after: RecordResult) -> tuple[Moved, ...]:
    """The record's `value` and each input whose shown value differs, named as the record or
    its catalogue file names it."""
    out: list[Moved] = []
    if before.value != after.value:
        out.append(Moved("value", _num(before.value), _num(after.value)))
    b, a = dict(before.inputs), dict(after.inputs)
    for name in dict.fromkeys([*b, *a]):
        bi, ai = b.get(name), a.get(name)
        bv = _shown(name, bi.value) if bi is not None else None
        av = _shown(name, ai.value) if ai is not None else None
        if bv == av:
            continue
        source = (ai or bi).source if (ai or bi) is not None else ""  # type: ignore[union-attr]
        m = _CATALOGUE_SOURCE.match(source)
        if m:
            out.append(Moved(m["field"], bv, av, m["path"]))
        else:
            out.append(Moved(name, bv, av))
    return tuple(out)


def _num(x: float | None) -> str | None:
    return None if x is None else f"{x:g}"


def compare(
    base: Iterable[RecordResult],
    head: Iterable[RecordResult],
    touched: frozenset[str] = frozenset(),
    catalogue: frozenset[str] = frozenset(),
) -> Comparison:
    """Each head record against the base record of the same id (else the same path).
    `catalogue`: the paths of the catalogue files whose rows both sides report (a catalogue
    row matches by path only); `touched`: those the change edits (their finding is the
    change's, whatever the base had). A catalogue row of the base the head no longer has is
    `gone` (fixed)."""
    by_id: dict[str, RecordResult] = {}
    by_path: dict[str, RecordResult] = {}
    base_rows: dict[str, RecordResult] = {}
    for r in base:
        if r.path in catalogue:
            base_rows.setdefault(r.path, r)
            continue
        by_id.setdefault(r.id, r)
        by_path.setdefault(r.path, r)
    deltas = []
    head_rows: set[str] = set()
    for r in head:
        if r.path in catalogue:
            head_rows.add(r.path)
            before = base_rows.get(r.path)
        else:
            before = by_id.get(r.id) or by_path.get(r.path)
        d = Delta(r.id, r.path, before, r, kind_of(before, r), moved(before, r) if before else (),
                  attribute(before, r), r.path in touched and r.path in catalogue)  # fmt: skip
        if d.kind == "same" and d.the_changes:  # an edited catalogue file left invalid
            d = dataclasses.replace(d, kind="worse")
        deltas.append(d)
    gone = tuple(r for p, r in sorted(base_rows.items()) if p not in head_rows)
    return Comparison(tuple(deltas), gone, catalogue)
