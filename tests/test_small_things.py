"""Small things a user hit, each as the user saw it: words that disagree between reports,
repeated words, Python's words for JSON's, rows that say nothing, a command without its
`to fix:`, the parts table, and chart labels that can't be told apart."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import FIXTURES, by_id

from roofbot.action.evaluate import describe
from roofbot.core.changes import Changes
from roofbot.core.results import Calibration, Report
from roofbot.render.markdown import render_report

MPT = "mpt7b-a100-bs1-per-user-decode-tps"
VIOLATION = "local-rtx-5090-70b-q4-decode"  # deprecated, over its memory roof
ASSUMED = "comm-mi50-2x-gpt-oss-120b-mxfp4-tensor-split-decode"  # an input "(assumed)"


def roofbot(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "roofbot", *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd, check=False)  # fmt: skip


def test_calibration_not_run_is_said_so_everywhere(fixtures_report: Report) -> None:
    off = Report(fixtures_report.records[:1], Calibration(False, 0.1))
    changes = Changes((), (), (), "git")
    assert "calibration not run" in describe(off, changes)  # the status and the pr log
    assert "calibration not run" in render_report(off, {})  # the comment
    for fmt, words in (("github", "calibration not run"), ("text", "calibration: not run")):
        out = roofbot("check", "--repo", str(FIXTURES), "--no-calibration", "--format", fmt, MPT)
        assert words in out.stdout, (fmt, out.stdout)
        assert "calibration ok" not in out.stdout and "calibration: ok" not in out.stdout


def test_one_record_is_one_record() -> None:
    text = roofbot("check", "--repo", str(FIXTURES), MPT).stdout
    assert "\n1 record: 1 pass\n" in text and "1 records" not in text
    github = roofbot("check", "--repo", str(FIXTURES), "--format", "github", MPT).stdout
    assert "roofbot: 1 record (1 pass)" in github


def test_an_input_says_assumed_once(fixtures_report: Report) -> None:
    one = Report((by_id(fixtures_report, VIOLATION),), fixtures_report.calibration)
    body = render_report(one, {})
    assert "(assumed: compute\\_precision, peak\\_tflops)" in body  # said once, by the roof
    assert "(assumed) (assumed)" not in body


def test_a_violation_is_labelled_a_violation_not_an_error(fixtures_report: Report) -> None:
    one = Report((by_id(fixtures_report, VIOLATION),), fixtures_report.calibration)
    body = render_report(one, {})
    assert "`local-rtx-5090-70b-q4-decode`: 45 tok/s is 108% of its 41.52 tok/s memory roof" in body
    assert "| 🟥 violation |" in body and "- error:" not in body
    explained = roofbot("explain", "--repo", str(FIXTURES), VIOLATION).stdout
    assert "  violation: 45 tok/s is 108.4%" in explained and "  error:" not in explained


def test_an_error_row_shows_no_empty_metric_or_value(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    shutil.copytree(FIXTURES, repo, ignore=shutil.ignore_patterns("broken"))
    (repo / "data" / "benchmarks" / "broken.json").write_text("{", "utf-8")
    body = roofbot("check", "--repo", str(repo), "--format", "markdown", "broken").stdout
    (row,) = [ln for ln in body.splitlines() if ln.startswith("| ❗ error | broken")]
    assert "metric" not in body and "= –" not in body, body
    assert row.count("–") == 3, row  # value, roof and percent: none, said once each


def test_explain_on_an_error_record_says_what_to_fix(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    shutil.copytree(FIXTURES, repo, ignore=shutil.ignore_patterns("broken"))
    data = json.loads((repo / "data" / "benchmarks" / f"{MPT}.json").read_text("utf-8"))
    data["value"] = None
    (repo / "data" / "benchmarks" / f"{MPT}.json").write_text(json.dumps(data), "utf-8")
    out = roofbot("explain", "--repo", str(repo), MPT)
    assert "  verdict: error" in out.stdout
    assert "  error: not valid against schemas/benchmark.schema.json at value: null is not" in (
        out.stdout
    )
    assert "  to fix: `value` is null: write the measured figure" in out.stdout
    (repo / "data" / "benchmarks" / f"{MPT}.json").write_text("{", "utf-8")
    broken = roofbot("explain", "--repo", str(repo), f"data/benchmarks/{MPT}.json")
    assert "  to fix: the file is cut short: restore its end" in broken.stdout


def test_parts_has_a_header_units_one_row_a_precision_and_matches_words(tmp_path: Path) -> None:
    out = roofbot("parts", "--repo", str(FIXTURES), "mi355").stdout.splitlines()
    assert out[0].split() == ["part", "bandwidth", "dense", "peak", "per", "precision", "(TFLOPS)"]
    (row,) = [ln for ln in out if ln.startswith("amd-instinct-mi355x")]
    peaks = row.split("GB/s", 1)[1]
    precisions = [p.split()[0] for p in peaks.split(",")]
    assert len(precisions) == len(set(precisions)), row  # fp4 once, not twice
    assert "fp4 10066.4" in row and "10066.3" not in row
    xtx = roofbot("parts", "--repo", str(FIXTURES), "7900").stdout
    assert "fp16 123" in xtx and "fp16 61.4" not in xtx
    assert out[-1] == "1 part"
    repo = tmp_path / "r"
    shutil.copytree(FIXTURES, repo, ignore=shutil.ignore_patterns("broken"))
    h100 = json.loads((repo / "data/accelerators/nvidia-h100-sxm.json").read_text("utf-8"))
    h100 |= {"id": "moore-threads-s5000", "name": "Moore Threads MTT S5000 (PH100)"}
    (repo / "data/accelerators/moore-threads-s5000.json").write_text(json.dumps(h100), "utf-8")
    found = roofbot("parts", "--repo", str(repo), "h100").stdout
    assert "nvidia-h100-sxm" in found and "moore-threads-s5000" not in found
    assert "moore-threads-s5000" in roofbot("parts", "--repo", str(repo), "ph100").stdout
