"""Before and after: each record a pull request modifies or re-checks, its verdict and percent
at the base next to the PR's, and the inputs that moved them (`value 140 → 260`,
`memory_bandwidth_gbps 1008 → 3000`). A record the base does not have is `new`. Pure: it
compares two lists of results, checked by the caller at the two commits."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from roofbot.core.results import RecordResult
from roofbot.core.units import show_input

Kind = Literal["new", "worse", "better", "same"]

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

    @property
    def before_percent(self) -> float | None:
        return _percent(self.before) if self.before is not None else None

    @property
    def after_percent(self) -> float | None:
        return _percent(self.after)


@dataclass(frozen=True)
class Comparison:
    deltas: tuple[Delta, ...]
    _by_id: dict[str, Delta] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for d in self.deltas:  # one look-up a record (a catalogue edit has thousands)
            self._by_id.setdefault(d.id, d)

    def count(self, kind: Kind) -> int:
        return sum(1 for d in self.deltas if d.kind == kind)

    def of(self, record_id: str) -> Delta | None:
        return self._by_id.get(record_id)


def _percent(r: RecordResult) -> float | None:
    b = r.binding()
    return b.percent if b is not None and math.isfinite(b.percent) else None


def _shown(name: str, value: object) -> str:
    v = value.value if hasattr(value, "value") and not isinstance(value, int | float) else value
    if isinstance(v, float):
        return show_input(name, v) or f"{v:g}"
    return show_input(name, v) or str(v)


def kind_of(before: RecordResult | None, after: RecordResult) -> Kind:
    """`worse` or `better` when the verdict moved (the verdicts' severity order); `same`
    when it did not, whatever the percent did."""
    if before is None:
        return "new"
    if after.verdict.rank < before.verdict.rank:
        return "worse"
    if after.verdict.rank > before.verdict.rank:
        return "better"
    return "same"


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


def compare(base: Iterable[RecordResult], head: Iterable[RecordResult]) -> Comparison:
    """Each head record against the base record of the same id (else the same path)."""
    by_id: dict[str, RecordResult] = {}
    by_path: dict[str, RecordResult] = {}
    for r in base:
        by_id.setdefault(r.id, r)
        by_path.setdefault(r.path, r)
    deltas = []
    for r in head:
        before = by_id.get(r.id) or by_path.get(r.path)
        deltas.append(
            Delta(r.id, r.path, before, r, kind_of(before, r), moved(before, r) if before else ())
        )
    return Comparison(tuple(deltas))
