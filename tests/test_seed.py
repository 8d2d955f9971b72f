"""The seed's own numbers (and the contract's erratum) as acceptance figures, from the
fixtures repository and from the users' real corpus."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from roofbot.core.results import Verdict
from tests.conftest import FIXTURES, by_id, check

BS1 = "mpt7b-a100-bs1-per-user-decode-tps"
AGG = "mpt7b-a100-bs64-aggregate-output-tps"
PER = "mpt7b-a100-bs64-per-user-decode-tps"


def test_mpt7b_batch1_roof_is_111_1_and_the_record_sits_at_51_9(fixtures_report) -> None:  # type: ignore[no-untyped-def]
    mem = check(by_id(fixtures_report, BS1), "memory-roof")
    assert round(mem.ceiling, 1) == 111.1
    assert round(mem.percent, 1) == 51.9
    assert mem.applies


def test_800_is_720_percent_of_the_batch1_roof_yet_legal(fixtures_report) -> None:  # type: ignore[no-untyped-def]
    r = by_id(fixtures_report, AGG)
    mem = check(r, "memory-roof")
    assert round(mem.percent) == 720 and not mem.applies
    assert "batch 64" in (mem.why or "")
    assert r.verdict is Verdict.PASS
    assert "batch-1-roof-on-aggregate" in r.traps
    batched = check(r, "batched-memory-roof")
    assert (
        batched.applies
        and round(batched.ceiling, 2) == 7108.57
        and round(batched.percent, 1) == 11.3
    )
    compute = check(r, "compute-roof")  # the contract's example: 6.7B pinned
    assert round(compute.ceiling, 2) == 23283.58 and round(compute.percent, 2) == 3.44


def test_per_user_sibling_is_11_3_percent(fixtures_report) -> None:  # type: ignore[no-untyped-def]
    r = by_id(fixtures_report, PER)
    assert round(check(r, "memory-roof").percent, 1) == 11.3
    assert r.verdict is Verdict.PASS
    assert "per-user-vs-aggregate" not in r.traps  # 12.5 x 64 == 800: the trio agrees


def test_aggregate_rises_13_9x_while_per_user_falls_4_6x(fixtures_report) -> None:  # type: ignore[no-untyped-def]
    bs1, agg, per = (by_id(fixtures_report, i).value for i in (BS1, AGG, PER))
    assert round(agg / bs1, 1) == 13.9
    assert round(bs1 / per, 1) == 4.6


def test_rtx_pro_6000_70b_q8_is_230_1_percent(fixtures_report) -> None:  # type: ignore[no-untyped-def]
    r = by_id(fixtures_report, "local-rtx-pro-6000-70b-q8-decode")
    assert round(check(r, "memory-roof").percent, 1) == 230.1
    assert r.verdict is Verdict.VIOLATION and r.deprecated


def test_erratum_gib_is_not_gb_36_5_not_34_0(fixtures_report) -> None:  # type: ignore[no-untyped-def]
    r = by_id(fixtures_report, "llamacpp-radeon-r9700-gfx1201-q1-0-decode-tok-s")
    mem = check(r, "memory-roof")
    assert round(mem.ceiling, 2) == 168.85
    assert round(mem.percent, 1) == 36.5
    assert round(mem.percent, 1) != 34.0


def test_rx7900xtx_two_cards_tensor_split_43_0(fixtures_report) -> None:  # type: ignore[no-untyped-def]
    mem = check(
        by_id(fixtures_report, "llamacpp-rx7900xtx-gfx1100-qwen3-27b-q4-batch1-decode-tok-s"),
        "memory-roof",
    )
    assert round(mem.percent, 1) == 43.0
    assert "2 x 960" in mem.formula


def test_moe_needs_its_active_divisor(fixtures_report) -> None:  # type: ignore[no-untyped-def]
    r = by_id(fixtures_report, "mlx-m4-max-qwen3-30b-a3b-4bit-decode-tok-s")
    assert "moe-total-vs-active" in r.traps
    mem = check(r, "memory-roof")
    total_roof_percent = mem.percent * 30.5 / 3.3  # what a total-weight divisor would claim
    assert mem.percent < 100 < total_roof_percent


def test_calibration_runs_and_passes(fixtures_report) -> None:  # type: ignore[no-untyped-def]
    cal = fixtures_report.calibration
    assert cal.ran and cal.ok and len(cal.entries) == 6


def test_seed_figures_come_out_of_the_cli_json() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "roofbot", "check", "--repo", str(FIXTURES), "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    recs = {r["id"]: r for r in report["records"]}
    mem = {c["check"]: c for c in recs[AGG]["checks"]}
    assert mem["memory-roof"]["percent"] == 720.26 and mem["memory-roof"]["applies"] is False
    assert mem["memory-roof"]["ceiling"] == 111.07
    assert report["calibration"]["ok"] is True
    assert set(report) >= {"version", "ok", "coverage", "records", "calibration"}
    assert set(recs[AGG]) >= {
        "id",
        "path",
        "status",
        "verdict",
        "inputs",
        "checks",
        "traps",
        "messages",
    }
    assert recs[AGG]["inputs"]["batch"] == {
        "value": 64,
        "from": recs[AGG]["inputs"]["batch"]["from"],
        "basis": "text",
    }


# --------------------------------------------------------------------- the real corpus
def test_real_corpus_seed_figures(real_report) -> None:  # type: ignore[no-untyped-def]
    bs1 = by_id(real_report, BS1)
    assert round(check(bs1, "memory-roof").ceiling, 1) == 111.1
    assert round(check(bs1, "memory-roof").percent, 1) == 51.9
    assert round(check(by_id(real_report, AGG), "memory-roof").percent) == 720
    assert round(check(by_id(real_report, PER), "memory-roof").percent, 1) == 11.3
    rtx = by_id(real_report, "local-rtx-pro-6000-70b-q8-decode")
    assert round(check(rtx, "memory-roof").percent, 1) == 230.1
    r9700 = by_id(real_report, "llamacpp-radeon-r9700-gfx1201-q1-0-decode-tok-s")
    assert round(check(r9700, "memory-roof").percent, 1) == 36.5
    xtx = by_id(real_report, "llamacpp-rx7900xtx-gfx1100-qwen3-27b-q4-batch1-decode-tok-s")
    assert round(check(xtx, "memory-roof").percent, 1) == 43.0


@pytest.mark.parametrize("prefix", ["bench-mlperf-v6-1", "mi355x-mlperf-v6-0"])
def test_real_mlperf_aggregates_pass_the_compute_roof(real_report, prefix: str) -> None:  # type: ignore[no-untyped-def]
    rows = [r for r in real_report.records if r.id.startswith(prefix)]
    assert rows
    for r in rows:
        compute = check(r, "compute-roof")
        assert compute.applies and compute.percent < 100, r.id
        assert not check(r, "memory-roof").applies  # unknown batch is not batch 1


def test_real_corpus_compute_roof_finds_zero_violations(real_report) -> None:  # type: ignore[no-untyped-def]
    aggregates = [r for r in real_report.records if r.metric == "tps_aggregate" and r.checks]
    assert len(aggregates) >= 30
    for r in aggregates:
        c = next((c for c in r.checks if c.check.value == "compute-roof"), None)
        if c is not None and not c.assumed:
            assert c.percent <= 100, r.id
