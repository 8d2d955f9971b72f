"""Whose a finding is (roofbot/core/compare.py): each head result set beside the base's, and
attributed to the change (introduced, worsened), to the base (pre-existing) or gone (fixed).
Pure: results in, attribution out; the end-to-end cases are in tests/test_attribution.py."""

from __future__ import annotations

from roofbot.core.compare import Attribution, compare
from roofbot.core.results import Calibration as Cal
from roofbot.core.results import CheckId, Message, RecordResult, Report, RoofCheck, Verdict

R = "data/benchmarks/r.json"
CAT = "data/accelerators/a.json"


def result(verdict: Verdict, percent: float | None = None, path: str = R) -> RecordResult:
    checks: tuple[RoofCheck, ...] = ()
    if percent is not None:
        checks = (RoofCheck(CheckId.MEMORY, True, 100.0, percent, "x"),)
    rid = path.rsplit("/", 1)[1].removesuffix(".json")
    return RecordResult(rid, path, verdict, value=percent, checks=checks)


def attribution(before: RecordResult | None, after: RecordResult) -> Attribution | None:
    d = compare([before] if before else [], [after]).deltas[0]
    return d.attribution


def test_a_new_records_finding_is_introduced() -> None:
    assert attribution(None, result(Verdict.VIOLATION, 120)) is Attribution.INTRODUCED
    assert attribution(None, result(Verdict.PASS, 50)) is None


def test_the_same_finding_at_the_same_or_a_lower_percent_is_pre_existing() -> None:
    assert attribution(result(Verdict.VIOLATION, 120), result(Verdict.VIOLATION, 120)) is (
        Attribution.PRE_EXISTING
    )
    assert attribution(result(Verdict.VIOLATION, 130), result(Verdict.VIOLATION, 120)) is (
        Attribution.PRE_EXISTING
    )


def test_a_worse_verdict_or_a_higher_percent_is_worsened() -> None:
    assert attribution(result(Verdict.PASS, 90), result(Verdict.VIOLATION, 110)) is (
        Attribution.WORSENED
    )
    d = compare([result(Verdict.VIOLATION, 120)], [result(Verdict.VIOLATION, 121)]).deltas[0]
    assert d.attribution is Attribution.WORSENED and d.kind == "worse" and d.the_changes
    # the last digit of a float sum is not a change
    assert attribution(result(Verdict.VIOLATION, 120), result(Verdict.VIOLATION, 120.01)) is (
        Attribution.PRE_EXISTING
    )


def test_a_finding_gone_is_fixed() -> None:
    assert attribution(result(Verdict.VIOLATION, 120), result(Verdict.PASS, 90)) is (
        Attribution.FIXED
    )
    bad = RecordResult("a", CAT, Verdict.ERROR)
    c = compare([bad], [], catalogue=frozenset({CAT}), touched=frozenset({CAT}))
    assert c.attributed(Attribution.FIXED) == (bad,)


def test_a_catalogue_file_matches_by_path_and_is_the_changes_only_when_edited() -> None:
    base = RecordResult("a", CAT, Verdict.ERROR)
    head = RecordResult("a", CAT, Verdict.ERROR)
    left = compare([base], [head], catalogue=frozenset({CAT})).deltas[0]
    assert left.attribution is Attribution.PRE_EXISTING and not left.the_changes
    edited = compare([base], [head], catalogue=frozenset({CAT}), touched=frozenset({CAT}))
    assert edited.deltas[0].the_changes and edited.deltas[0].kind == "worse"
    assert edited.already() == frozenset()
    assert left.path in compare([base], [head], catalogue=frozenset({CAT})).already()


def test_the_report_fails_only_on_the_changes_findings() -> None:
    records = (result(Verdict.VIOLATION, 120), result(Verdict.ERROR, path=CAT))
    report = Report(records, Cal(ran=False, tolerance_pp=0.1))
    assert not report.ok
    judged = Report(records, Cal(ran=False, tolerance_pp=0.1), already=frozenset({R, CAT}))
    assert judged.ok and judged.failing() == () and judged.existing() == records


def test_another_error_is_a_finding_the_base_does_not_have() -> None:
    def broken(why: str) -> RecordResult:
        return RecordResult("r", R, Verdict.ERROR, messages=(Message("error", why),))

    assert attribution(broken("value: null"), broken("value: null")) is Attribution.PRE_EXISTING
    assert attribution(broken("value: null"), broken("unit: missing")) is Attribution.WORSENED
