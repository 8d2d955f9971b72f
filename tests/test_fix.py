"""What to fix: the inverse of the roof that binds a record, in the record's own terms, one
text in every format (the comment, `explain`, the JSON report's `fix`, the findings)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from roofbot.core.fix import causes_for, fix_for
from roofbot.core.provenance import Basis, Input
from roofbot.core.results import (
    Calibration,
    CheckId,
    RateKind,
    RecordResult,
    Report,
    RoofCheck,
    Verdict,
)
from roofbot.render.findings import findings, record_fix
from roofbot.render.json_report import dumps
from roofbot.render.text import explain_record

ROOT = Path(__file__).resolve().parents[1]
GB = 1e9


def stated(value: object) -> Input[object]:
    return Input(value, "the record", Basis.FIELD)


def assumed(value: object) -> Input[object]:
    return Input(value, "nothing says so", Basis.ASSUMED)


def record(
    verdict: Verdict,
    value: float,
    checks: tuple[RoofCheck, ...],
    traps: tuple[str, ...] = (),
    lacks: tuple[str, ...] = (),
    **inputs: Input[object],
) -> RecordResult:
    return RecordResult(
        "r", "data/benchmarks/r.json", verdict, value=value, checks=checks,
        inputs=tuple(inputs.items()), traps=traps, lacks=lacks,
    )  # fmt: skip


def memory(ceiling: float, value: float, assumed: tuple[str, ...] = ()) -> RoofCheck:
    return RoofCheck(CheckId.MEMORY, True, ceiling, value, "bw / bytes", assumed=assumed)


def test_a_batch_1_violation_checks_the_value_first_and_never_contradicts_the_stated_batch() -> (
    None
):
    # 1555 GB/s / 14 GB = 111.07 tok/s; 150 tok/s is 135%; the record states batch 1
    r = record(
        Verdict.VIOLATION, 150.0, (memory(111.07, 150.0),),
        rate=stated(RateKind.PER_SEQUENCE), count=stated(1), active_bytes=stated(14 * GB),
        batch=stated(1), bandwidth_gbps=stated(1555.0),
    )  # fmt: skip
    causes = causes_for(r)
    assert causes[0] == (
        "check `value`: 150 tok/s is 135% of its memory roof (bw / bytes); with the inputs it "
        "states, at most 111 tok/s is possible"
    )
    assert causes[1] == (
        "if the run read fewer weights per token, name its format: legal at ≤ 10.36 GB of "
        "weights per token (it reads 14 GB)"
    )
    assert causes[-1].startswith("the part's bandwidth changes only with a cited datasheet")
    assert not any("aggregate" in c for c in causes)  # batch 1 is stated: never "a batch of 2"
    assert fix_for(r) == "; or ".join(causes)


def test_a_per_user_figure_at_a_stated_batch_is_first_asked_whether_it_is_the_aggregate() -> None:
    # per-user 150 tok/s at a stated batch of 8, over the 111 tok/s batch-1 roof: the likely
    # slip is the batch's total filed as per-user (then 150 / (8 x 111.07) = 16.9%)
    r = record(
        Verdict.VIOLATION, 150.0, (memory(111.07, 150.0),),
        rate=stated(RateKind.PER_SEQUENCE), count=stated(1), active_bytes=stated(14 * GB),
        batch=Input(8, 'methodology: "batch size 8"', Basis.TEXT),
    )  # fmt: skip
    first = causes_for(r)[0]
    assert first == (
        'if 150 tok/s is the total of the batch of 8 (methodology: "batch size 8"), it was '
        "filed as per-user: file it as the aggregate (then it is 16.9% of its batched roof)"
    )


def test_a_value_past_its_roof_never_starts_with_the_datasheet() -> None:
    r = record(
        Verdict.VIOLATION, 57.6, (memory(35.714, 57.6),),
        rate=stated(RateKind.PER_SEQUENCE), count=stated(1), active_bytes=stated(14 * GB),
        bandwidth_gbps=stated(500.0), batch=stated(1),
    )  # fmt: skip
    causes = causes_for(r)
    assert "datasheet" not in causes[0] and "datasheet" in causes[-1]


def test_a_batched_violation_names_the_batch_that_makes_it_legal() -> None:
    # an aggregate at batch 2 reading 260 tok/s under a 100 tok/s batch-1 roof: needs batch 3
    mem = RoofCheck(CheckId.MEMORY, False, 100.0, 260.0, "bw / bytes", "aggregate")
    batched = RoofCheck(CheckId.BATCHED, True, 200.0, 260.0, "2 x 100 tok/s")
    r = record(
        Verdict.VIOLATION, 260.0, (batched, mem),
        rate=stated(RateKind.AGGREGATE), batch=stated(2), count=stated(1),
        active_bytes=stated(4 * GB),
    )  # fmt: skip
    fix = fix_for(r)
    assert fix is not None
    assert fix.startswith("check `value`: 260 tok/s is 130% of its batched roof")
    assert (
        "if the batch was larger, correct `batch`: legal if the batch is at least 3 (it states 2)"
        in fix
    )
    assert "legal at ≤ 3.076 GB of weights per token" in fix  # 4 GB x 200 / 260 = 3.0769


def test_the_bound_is_rounded_so_that_the_figure_it_names_is_legal() -> None:
    r = record(
        Verdict.VIOLATION, 18.0, (memory(15.4799, 18.0),),
        rate=stated(RateKind.PER_SEQUENCE), count=stated(1), active_bytes=stated(35.27 * GB),
    )  # fmt: skip
    assert "at most 15.47 tok/s" in (fix_for(r) or "")  # 15.48 would be over 15.4799


def test_a_compute_violation_names_the_cards_and_the_active_parameters() -> None:
    comp = RoofCheck(CheckId.COMPUTE, True, 1000.0, 1500.0, "1 x peak / (2 x 10B)")
    r = record(
        Verdict.VIOLATION, 1500.0, (comp,), count=stated(1), active_params_b=stated(10.0),
        rate=stated(RateKind.AGGREGATE),
    )  # fmt: skip
    assert causes_for(r) == [
        "check `value`: 1,500 tok/s is 150% of its compute roof (1 x peak / (2 x 10B)); with "
        "the inputs it states, at most 1,000 tok/s is possible",
        "if the run used more accelerators, state them: at 2 cards this is 75%",
        "if fewer parameters are active per token, state them: legal at ≤ 6.666B active parameters",
    ]


def test_an_assumed_count_says_what_the_stated_count_would_make_it() -> None:
    # one card assumed: 122% of the roof; at 2 cards it is 61%
    r = record(
        Verdict.SUSPECT, 122.0, (memory(100.0, 122.0, assumed=("count",)),),
        rate=stated(RateKind.PER_SEQUENCE), count=assumed(1), active_bytes=stated(8 * GB),
    )  # fmt: skip
    assert fix_for(r) == "state the accelerator count: at 2 cards this is 61%"


def test_a_moe_asks_for_its_active_parameters() -> None:
    r = record(
        Verdict.SUSPECT, 90.0, (memory(30.0, 90.0, assumed=("active_bytes",)),),
        traps=("moe-total-vs-active",), rate=stated(RateKind.PER_SEQUENCE), count=stated(1),
        active_bytes=assumed(60 * GB),
    )  # fmt: skip
    assert fix_for(r) == (
        "state the active parameters of this MoE (legal at ≤ 20 GB of weights per token "
        "(it reads 60 GB))"
    )


def test_an_unchecked_record_is_told_what_to_state_flops_last() -> None:
    r = record(
        Verdict.UNCHECKED, 5.0, (),
        lacks=("peak FLOPS: no part", "batch: an aggregate needs a stated batch"),
    )  # fmt: skip
    assert fix_for(r) == "state the batch; add dense `flops` rows to the part's catalogue record"


def test_a_pass_needs_no_fix_and_an_error_gets_the_file_s_defect() -> None:
    ok = record(Verdict.PASS, 50.0, (memory(100.0, 50.0),))
    assert fix_for(ok) is None and record_fix(ok) is None
    from roofbot.core.results import Message

    bad = RecordResult(
        "x", "data/benchmarks/x.json", Verdict.ERROR,
        messages=(Message("error", "invalid JSON at line 3 column 2: Expecting value"),),
    )  # fmt: skip
    assert record_fix(bad) == "fix the JSON at line 3, column 2: Expecting value"


def test_one_text_in_the_findings_the_json_report_and_explain() -> None:
    r = record(
        Verdict.VIOLATION, 150.0, (memory(111.07, 150.0),),
        rate=stated(RateKind.PER_SEQUENCE), count=stated(1), active_bytes=stated(14 * GB),
    )  # fmt: skip
    fix = fix_for(r)
    report = Report((r,), Calibration(False, 0.1))
    found = findings(report, lambda _p: b'{\n  "value": 150\n}\n')
    assert found[0].advice == fix and found[0].line == 2
    assert json.loads(dumps(report))["records"][0]["fix"] == fix
    assert f"  to fix: {fix}" in explain_record(r)


def test_explain_on_the_command_line_prints_the_fix() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "roofbot", "explain", "--repo", str(ROOT / "fixtures"),
         "local-rtx-pro-6000-70b-q8-decode"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "  to fix: check `value`: 55 tok/s is 230% of its memory roof" in out.stdout


def test_a_memory_violation_names_the_bandwidth_that_makes_it_legal() -> None:
    # a catalogue edit to 500 GB/s: 57.6 tok/s over 500 / 14 = 35.71 tok/s needs 806.4 GB/s
    r = record(
        Verdict.VIOLATION, 57.6, (memory(35.714, 57.6),),
        rate=stated(RateKind.PER_SEQUENCE), count=stated(1), active_bytes=stated(14 * GB),
        bandwidth_gbps=stated(500.0),
    )  # fmt: skip
    assert "legal at ≥ 806.5 GB/s per part (it has 500)" in (fix_for(r) or "")


def test_a_check_with_a_non_finite_figure_gives_no_fix_and_no_crash() -> None:
    """Found by the JSON property test: a ceiling of NaN (a stranger's record can make a
    figure non-finite) reached math.ceil."""
    import math

    from roofbot.core.fix import fix_for
    from roofbot.core.results import CheckId, RecordResult, RoofCheck, Verdict

    for bad in (math.nan, math.inf):
        for applies in (True, False):
            memory = RoofCheck(CheckId.MEMORY, applies, bad, 0.0, "", None, (), ())
            batched = RoofCheck(CheckId.BATCHED, True, 10.0, 50.0, "", None, (), ())
            for checks in ((memory,), (memory, batched)):
                r = RecordResult("x", "x.json", Verdict.VIOLATION, checks=checks)
                got = fix_for(r)
                assert got is None or "nan" not in got.lower(), got
