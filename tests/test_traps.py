"""Every trap firing, and not firing, on records built from the fixtures' catalogue; and the
verdict rules: an assumed input makes a record suspect, never a violation."""

from __future__ import annotations

from typing import Any

import pytest

from roofbot.adapters.repo import Repository
from roofbot.core.check import check_record, sibling_of
from roofbot.core.config import Config, parse_config
from roofbot.core.results import RecordResult, Verdict
from roofbot.core.traps import Sibling


def record(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": "t", "type": "benchmark", "name": "test run", "status": "verified",
        "engine_id": "vllm", "accelerator_ids": ["nvidia-a100-40gb-sxm4"], "model": "Llama 3.1 8B",
        "format_id": None, "metric": "decode_tok_s", "value": 20.0, "unit": "tok/s",
        "methodology": "1x A100, batch size 1, FP16 weights", "notes": "",
    }  # fmt: skip
    base.update(over)
    return base


def run(
    fixtures_repo: Repository,
    rec: dict[str, Any],
    config: Config | None = None,
    siblings: dict[str, dict[str, Any]] | None = None,
) -> RecordResult:
    cfg = config or fixtures_repo.config
    return check_record(
        rec, "data/benchmarks/t.json", fixtures_repo.catalogue(), cfg, (siblings or {}).get
    )


def test_plain_batch1_record_passes_with_no_trap(fixtures_repo: Repository) -> None:
    r = run(fixtures_repo, record())
    assert r.verdict is Verdict.PASS and r.traps == ()


def test_batch_1_roof_on_aggregate(fixtures_repo: Repository) -> None:
    agg = record(metric="tps_aggregate", value=2000.0, methodology="1x A100, batch size 64, FP16")
    assert "batch-1-roof-on-aggregate" in run(fixtures_repo, agg).traps
    one = record(metric="tps_aggregate", value=50.0, methodology="1x A100, batch size 1, FP16")
    assert "batch-1-roof-on-aggregate" not in run(fixtures_repo, one).traps


def test_unknown_batch_is_not_batch_1(fixtures_repo: Repository) -> None:
    rec = record(
        metric="tps_aggregate",
        value=5000.0,
        methodology="Offline scenario, batch size not a fixed published number, FP16",
    )
    r = run(fixtures_repo, rec)
    assert "unknown-batch-is-not-batch-1" in r.traps
    assert [c.check.value for c in r.checks if c.applies] == ["compute-roof"]
    assert r.verdict is Verdict.PASS  # 5000 tok/s is far over 1 sequence's roof, and legal


def test_moe_total_vs_active(fixtures_repo: Repository) -> None:
    moe = run(fixtures_repo, record(model="Qwen3-30B-A3B", value=100.0))
    assert "moe-total-vs-active" in moe.traps
    assert "moe-total-vs-active" not in run(fixtures_repo, record()).traps


def test_bandwidth_derived_figure_by_text_and_by_proximity(fixtures_repo: Repository) -> None:
    text = record(notes="The 1555 GB/s bandwidth yields about 97 tok/s.")
    r = run(fixtures_repo, text)
    assert "bandwidth-derived-figure" in r.traps and r.verdict is Verdict.SUSPECT
    roof = 1555e9 / (8.03e9 * 2)
    near = run(fixtures_repo, record(value=round(roof * 0.995, 2)))
    assert "bandwidth-derived-figure" in near.traps and near.verdict is Verdict.SUSPECT
    assert "bandwidth-derived-figure" not in run(fixtures_repo, record(value=roof * 0.9)).traps


def test_per_user_vs_aggregate(fixtures_repo: Repository) -> None:
    per = record(
        id="p",
        metric="tok_s_per_user",
        value=12.5,
        methodology="1x A100, batch size 64, FP16; the aggregate is record mpt-like-b64-aggregate-run",
    )
    agg_ok = record(
        id="mpt-like-b64-aggregate-run",
        metric="tps_aggregate",
        value=800.0,
        methodology="1x A100, batch size 64, FP16; per-user is record mpt-like-b64-per-user-run",
    )
    agg_bad = dict(agg_ok, value=1000.0)
    ok = run(fixtures_repo, per, siblings={"mpt-like-b64-aggregate-run": agg_ok})
    bad = run(fixtures_repo, per, siblings={"mpt-like-b64-aggregate-run": agg_bad})
    assert "per-user-vs-aggregate" not in ok.traps
    assert "per-user-vs-aggregate" in bad.traps
    # A sibling named at the end of a sentence is still found (the full stop is not the id's).
    last = dict(per, methodology=per["methodology"] + ".")
    assert "per-user-vs-aggregate" in run(fixtures_repo, last, siblings={"mpt-like-b64-aggregate-run": agg_bad}).traps  # fmt: skip


def test_a_sibling_is_resolved_once_a_run_and_still_looked_up_by_each_check(
    fixtures_repo: Repository,
) -> None:
    """`read` keeps what the traps read of a sibling: the next check that names it takes
    that (shown by changing it in between) where it resolved the sibling again; `lookup` is
    still asked each time."""
    sid = "mpt-like-b64-aggregate-run"
    per = record(id="p", metric="tok_s_per_user", value=12.5,
                 methodology=f"1x A100, batch size 64, FP16; the aggregate is record {sid}")  # fmt: skip
    agg = record(id=sid, metric="tps_aggregate", value=1000.0, methodology="1x A100, batch 64")
    cat, cfg = fixtures_repo.catalogue(), fixtures_repo.config
    asked: list[str] = []

    def lookup(rid: str) -> dict[str, Any] | None:
        asked.append(rid)
        return agg if rid == sid else None

    read: dict[str, Sibling | None] = {}
    first = check_record(per, "data/benchmarks/p.json", cat, cfg, lookup, read)
    assert "per-user-vs-aggregate" in first.traps and read == {sid: sibling_of(agg, cat, cfg)}
    read[sid] = sibling_of(dict(agg, value=800.0), cat, cfg)
    second = check_record(per, "data/benchmarks/p.json", cat, cfg, lookup, read)
    assert "per-user-vs-aggregate" not in second.traps
    assert asked == [sid, sid]


def test_a_copy_of_the_repository_with_another_config_reads_its_siblings_afresh() -> None:
    """The readings kept by a `Repository` are its config's: a copy made with another
    config (`dataclasses.replace`) starts without them, and a check against another
    catalogue keeps none."""
    import dataclasses

    from conftest import FIXTURES

    repo = Repository.open(FIXTURES)
    cat = repo.catalogue()
    kept = repo.siblings_read(cat)
    assert kept is not None
    kept["mpt7b-a100-bs64-aggregate-output-tps"] = None
    other = dataclasses.replace(repo, config=parse_config({"pins": {}}))
    assert other.siblings_read(cat) == {}
    assert repo.siblings_read(dataclasses.replace(cat)) is None


def test_hardware_part_variant_shows_both_bandwidths(fixtures_repo: Repository) -> None:
    rec = record(
        accelerator_ids=["apple-m4-max"],
        model="Llama 3.1 8B",
        format_id="gguf-q4-k-m",
        value=60.0,
        methodology="M4 Pro, 48 GB unified LPDDR5X, 273 GB/s memory bandwidth, "
        "single user, no batching",
    )
    r = run(fixtures_repo, rec)
    assert "hardware-part-variant" in r.traps
    mem = next(c for c in r.checks if c.check.value == "memory-roof")
    assert "546 GB/s" in mem.formula  # the larger is used unless pinned
    assert [label for label, _ in mem.alternatives] == ["273 GB/s"]
    pinned = parse_config({"pins": {"t": {"bandwidth_gbps": 273}}})
    r2 = run(fixtures_repo, rec, pinned)
    mem2 = next(c for c in r2.checks if c.check.value == "memory-roof")
    assert "273 GB/s" in mem2.formula and mem2.percent > mem.percent


def test_sparse_peak(fixtures_repo: Repository) -> None:
    rec = record(
        accelerator_ids=["nvidia-rtx-pro-6000-blackwell"],
        format_id="nvfp4",
        model="Llama 3.3 70B",
        methodology="batch size 1",
    )
    r = run(fixtures_repo, rec)
    assert "sparse-peak" in r.traps
    # the sparse fp4 row is never used as a dense one, and the part's fp32 CUDA-core row never
    # stands in for tensor math: no compute roof, and the record says why
    assert not any(c.check.value == "compute-roof" for c in r.checks)
    assert any("no dense fp4 row" in m.text for m in r.messages)


def test_speculative_decoding_withholds_the_memory_roof(fixtures_repo: Repository) -> None:
    r = run(
        fixtures_repo,
        record(
            value=300.0, methodology="1x A100, batch size 1, FP16, EAGLE-3 speculative decoding"
        ),
    )
    assert "speculative-decoding" in r.traps
    mem = next(c for c in r.checks if c.check.value == "memory-roof")
    assert not mem.applies and r.verdict is Verdict.PASS
    stated = run(
        fixtures_repo,
        record(
            value=300.0,
            methodology="1x A100, batch size 1, FP16, EAGLE-3 "
            "speculative decoding, 3.1 accepted tokens per step",
        ),
    )
    mem2 = next(c for c in stated.checks if c.check.value == "memory-roof")
    assert mem2.applies and mem2.ceiling == pytest.approx(mem.ceiling * 3.1)


def test_not_a_token_rate(fixtures_repo: Repository) -> None:
    r = run(fixtures_repo, record(metric="tps_aggregate", unit="TFLOPS BF16", value=918.0))
    assert r.verdict is Verdict.SKIPPED and r.traps == ("not-a-token-rate",)


def test_stated_inputs_make_a_violation(fixtures_repo: Repository) -> None:
    r = run(fixtures_repo, record(value=500.0))
    assert r.verdict is Verdict.VIOLATION


def test_an_assumed_count_makes_it_suspect_never_a_violation(fixtures_repo: Repository) -> None:
    r = run(fixtures_repo, record(value=500.0, methodology="A100, batch size 1, FP16"))
    assert r.verdict is Verdict.SUSPECT
    assert "count" in next(c for c in r.checks if c.percent > 100).assumed


def test_an_assumed_per_sequence_reading_makes_it_suspect(fixtures_repo: Repository) -> None:
    r = run(fixtures_repo, record(value=500.0, methodology="1x A100, FP16"))
    assert r.verdict is Verdict.SUSPECT


def test_a_pin_wins_and_says_so(fixtures_repo: Repository) -> None:
    cfg = parse_config({"pins": {"t": {"weight_bytes": "4 GB"}}})
    r = run(fixtures_repo, record(), cfg)
    src = dict(r.inputs)["weight_bytes"]
    assert src.value == 4e9 and "pin" in src.source


def test_unchecked_says_what_it_lacks(fixtures_repo: Repository) -> None:
    r = run(fixtures_repo, record(accelerator_ids=[], methodology="batch size 1", model="Mystery"))
    assert r.verdict is Verdict.UNCHECKED
    assert any("accelerator" in lack for lack in r.lacks)
    assert any("model size" in lack for lack in r.lacks)


def test_calibration_miss_names_record_roof_expected_and_got(fixtures_repo: Repository) -> None:
    from roofbot.core.calibration import calibrate

    cfg = parse_config(
        {"calibration": {"records": [{"id": "t", "check": "memory-roof", "percent": 40.0}]}}
    )
    r = run(fixtures_repo, record(), cfg)
    cal = calibrate(cfg, {"t": r})
    assert not cal.ok
    why = cal.entries[0].why or ""
    assert "expected 40%" in why and "got 20.66%" in why and "bandwidth_gbps" in why
