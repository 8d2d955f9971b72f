"""A verdict holds under every plausible reading: a record passes only if no reading the reader
held plausible puts it over a roof; it is a violation only if every reading does, on stated
inputs; otherwise it is `suspect`, and the result names the reading that decides (which input,
which value, from which words). Where the reading is certain, nothing changes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from roofbot.adapters.repo import Repository
from roofbot.core.check import check_record
from roofbot.core.config import Config
from roofbot.core.fix import fix_for
from roofbot.core.inputs import Inputs
from roofbot.core.provenance import Basis, Input
from roofbot.core.results import CheckId, Deciding, Doubt, RateKind, RoofCheck, Verdict
from roofbot.core.verdict import robust
from tests.conftest import FIXTURES

# One A100 40GB (1555 GB/s) streaming Llama 3.1 8B in FP16 (16.06 GB): a memory roof of
# 96.82 tok/s. 110 tok/s is 113.6% of it; 90 tok/s is under it.
OVER, UNDER = 110.0, 90.0
SETUP = "1x A100, batch size 1, FP16 weights"


def record(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": "t", "type": "benchmark", "name": "test run", "status": "verified",
        "engine_id": "vllm", "accelerator_ids": ["nvidia-a100-40gb-sxm4"], "model": "Llama 3.1 8B",
        "format_id": None, "metric": "decode_tok_s", "value": OVER, "unit": "tok/s",
        "methodology": SETUP, "notes": "",
    }  # fmt: skip
    base.update(over)
    return base


def run(fixtures_repo: Repository, **over: Any) -> Any:
    rec = record(**over)
    return check_record(rec, "data/benchmarks/t.json", fixtures_repo.catalogue(), Config())


def test_a_certain_reading_keeps_its_verdict(fixtures_repo: Repository) -> None:
    assert run(fixtures_repo, value=UNDER).verdict is Verdict.PASS
    over = run(fixtures_repo)
    assert over.verdict is Verdict.VIOLATION and over.deciding is None


def test_a_certain_denial_of_speculation_keeps_the_memory_roof(fixtures_repo: Repository) -> None:
    r = run(fixtures_repo, methodology=f"{SETUP}, MTP off")
    assert r.verdict is Verdict.VIOLATION
    assert next(c for c in r.checks if c.check is CheckId.MEMORY).applies


def test_speculation_set_for_this_run_withholds_the_roof(fixtures_repo: Repository) -> None:
    r = run(fixtures_repo, methodology=f"{SETUP}, with MTP")
    assert r.verdict is Verdict.PASS and r.deciding is None


def test_a_rival_value_passing_one_way_and_failing_the_other_is_suspect(
    fixtures_repo: Repository,
) -> None:
    """An aggregate at batch 1 or 8, as the unit says: the lenient batch 8 passes, batch 1
    is 154.9% of the memory roof."""
    r = run(
        fixtures_repo,
        metric="tps_aggregate",
        value=150.0,
        methodology="1x A100, FP16 weights",
        unit="tok/s, batch size 1 or batch size 8",
    )
    assert r.verdict is Verdict.SUSPECT
    assert r.deciding == Deciding(
        Doubt.RIVAL, "decode batch", "1", 'unit: "tok/s, batch size 1 or batch size 8"'
    )
    assert "154.9% of its memory-roof" in r.messages[0].text
    assert "decode batch read as 1 alone" in r.messages[0].text
    assert (
        fix_for(r)
        == "say which decode batch this figure was measured at: the text states more than one"
    )


def test_an_unsure_denial_failing_as_read_and_passing_the_other_way_is_suspect(
    fixtures_repo: Repository,
) -> None:
    """The "not" stands in MTP's clause, five words off: as read, MTP is denied and the record
    is 113.6% of its memory roof; read as stated, the roof is withheld and it passes."""
    r = run(fixtures_repo, methodology=f"{SETUP}, not under the usual serving stack or MTP")
    assert r.verdict is Verdict.SUSPECT
    d = r.deciding
    assert d is not None and d.doubt is Doubt.UNSURE_DENIAL
    assert (d.input, d.value) == ("speculative decoding", "mtp")
    assert "MTP" in d.source and "113.6% of its memory-roof as read" in r.messages[0].text


def test_an_unplaced_speculation_passing_one_way_and_failing_the_other_is_suspect(
    fixtures_repo: Repository,
) -> None:
    """MTP named in a sentence of its own, not placed as this run's: taken as this run's it
    withholds the memory roof (a pass); as another's, the record is 113.6% of it."""
    r = run(fixtures_repo, methodology=f"{SETUP}. An MTP draft head reaches more.")
    assert r.verdict is Verdict.SUSPECT
    d = r.deciding
    assert d is not None and d.doubt is Doubt.UNPLACED_SPECULATION
    assert (d.input, d.value) == ("speculative decoding", "none") and "MTP" in d.source
    assert "passes as read, but is 113.6% of its memory-roof" in r.messages[0].text
    assert "say whether this run used speculative decoding" in (fix_for(r) or "")


def test_a_count_assumed_1_failing_only_through_it_is_suspect(fixtures_repo: Repository) -> None:
    """No count stated: at 1 the record is over its roof, at 2 it would not be."""
    r = run(fixtures_repo, methodology="A100, batch size 1, FP16 weights")
    assert r.verdict is Verdict.SUSPECT
    assert r.deciding is not None
    assert (r.deciding.doubt, r.deciding.input, r.deciding.value) == (Doubt.ASSUMED, "count", "1")


def _check(percent: float, assumed: tuple[str, ...] = ()) -> RoofCheck:
    return RoofCheck(CheckId.MEMORY, True, 100.0, percent, "f", None, assumed)


def test_robust_weighs_every_reading() -> None:
    """The judgement alone, on roof checks: the main reading's and another's."""
    inp = Inputs(Input(RateKind.PER_SEQUENCE, "m", Basis.FIELD), Input(1, "1x", Basis.TEXT))
    other = Deciding(Doubt.RIVAL, "decode batch", "1", 'unit: "batch 1 or 8"')
    passing, failing = (_check(90.0),), (_check(120.0),)
    assert robust(inp, passing, (), ((other, passing),))[0] is Verdict.PASS
    assert robust(inp, failing, (), ((other, failing),))[0] is Verdict.VIOLATION
    v, _, d = robust(inp, passing, (), ((other, failing),))
    assert (v, d) == (Verdict.SUSPECT, other)
    v, _, d = robust(inp, failing, (), ((other, passing),))
    assert (v, d) == (Verdict.SUSPECT, other)
    unchecked = (RoofCheck(CheckId.MEMORY, False, 100.0, 120.0, "f", "why"),)
    v, _, d = robust(inp, unchecked, (), ((other, failing),))
    assert (v, d) == (Verdict.SUSPECT, other)


L40S_RECORD = {
    "id": "l40s-llama-3-1-8b-fp16-mtp-off-decode",
    "type": "benchmark",
    "name": "Llama 3.1 8B FP16 on one L40S, single stream",
    "engine_id": "vllm",
    "accelerator_ids": ["nvidia-l40s"],
    "interconnect_ids": [],
    "model": "Llama 3.1 8B (FP16)",
    "format_id": None,
    "metric": "decode_tok_s",
    "value": 59.7,
    "unit": "tok/s",
    "methodology": "vLLM, 1x L40S, MTP off, batch size 1, FP16 weights.",
    "measured_by": "third_party",
    "reproducible": True,
    "notes": "",
    "status": "verified",
    "confidence": 0.8,
    "updated": "2026-10-03",
    "sources": [],
}


def _l40s_repo(tmp: Path, methodology: str) -> Path:
    """The fixtures' repository with an L40S (864 GB/s, 362.05 dense FP16/BF16 TFLOPS) and one
    record at 59.7 tok/s: 111% of its memory roof (864 / 16.06 GB = 53.80 tok/s)."""
    repo = tmp / "repo"
    shutil.copytree(FIXTURES, repo, ignore=shutil.ignore_patterns("broken"))
    acc = json.loads((repo / "data/accelerators/nvidia-rtx-4090.json").read_text())
    acc.update(id="nvidia-l40s", name="NVIDIA L40S", vram_gb=48, memory_type="gddr6")
    acc.update(memory_bandwidth_gbps=864, memory_bandwidth_basis="18 Gbps GDDR6, 384-bit")
    acc["flops"] = [
        {**row, "tflops": 362.05}
        for row in acc["flops"]
        if row["dense"] and row["precision"] in ("fp16", "bf16")
    ]
    (repo / "data/accelerators/nvidia-l40s.json").write_text(json.dumps(acc, indent=1))
    rec = {**L40S_RECORD, "methodology": methodology}
    (repo / f"data/benchmarks/{rec['id']}.json").write_text(json.dumps(rec, indent=1))
    return repo


def _check_cli(repo: Path) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-m", "roofbot", "check", "--repo", str(repo), "--format", "json",
         str(L40S_RECORD["id"])],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    report: dict[str, Any] = json.loads(out.stdout)
    (r,) = [r for r in report["records"] if r["id"] == L40S_RECORD["id"]]
    r["exit"] = out.returncode
    return r


def test_one_l40s_with_mtp_off_at_111_percent_of_its_memory_roof_is_a_violation(
    tmp_path: Path,
) -> None:
    r = _check_cli(_l40s_repo(tmp_path, str(L40S_RECORD["methodology"])))
    assert r["verdict"] == "violation" and r["exit"] == 1
    mem = next(c for c in r["checks"] if c["check"] == "memory-roof")
    assert mem["applies"] and 110.5 < mem["percent"] < 111.5
    assert "speculative" not in r["inputs"]


def test_one_l40s_with_an_unplaced_mtp_is_suspect_not_a_pass(tmp_path: Path) -> None:
    repo = _l40s_repo(tmp_path, "vLLM, 1x L40S, batch size 1, FP16 weights. MTP heads exist.")
    r = _check_cli(repo)
    assert r["verdict"] == "suspect"
    assert r["deciding"]["doubt"] == "unplaced-speculation" and "MTP" in r["deciding"]["source"]


def test_a_thousand_rival_values_are_read_at_their_two_ends(fixtures_repo: Repository) -> None:
    """Each ceiling moves one way with a number, so the least and the greatest value bound the
    verdict: a stranger's text stating a thousand batches costs two readings, not a thousand."""
    from roofbot.core.reader.reading import read_record
    from roofbot.core.readings import alternatives

    batches = ", ".join(f"batch size {i}" for i in range(1, 1000))
    rec = record(methodology=f"1x A100, FP16 weights, {batches}")
    assert [d.value for d, _ in alternatives(read_record(rec))] == ["1", "999"]
    r = run(fixtures_repo, methodology=rec["methodology"])
    assert r.verdict is Verdict.SUSPECT and r.deciding is not None and r.deciding.value == "1"
