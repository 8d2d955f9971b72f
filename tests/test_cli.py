"""The CLI as a person uses it: explain, parts, coverage, exit codes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import FIXTURES, REAL


def roofbot(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "roofbot", *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd, check=False)  # fmt: skip


def test_explain_shows_each_input_with_its_provenance() -> None:
    out = roofbot("explain", "--repo", str(FIXTURES), "mpt7b-a100-bs64-aggregate-output-tps")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "batch" in text and 'unit: "' in text  # the batch, and the words it was read from
    assert "pin -> data/accelerators/nvidia-a100-40gb-sxm4.json" in text
    assert "64 x 111.07 tok/s = 7108.57 tok/s" in text
    assert "not applied" in text and "batch-1-roof-on-aggregate" in text


def test_explain_unknown_id_is_a_usage_error() -> None:
    out = roofbot("explain", "--repo", str(FIXTURES), "no-such-record")
    assert out.returncode == 2 and "no benchmark record" in out.stderr


def test_parts_lists_the_resolved_catalogue() -> None:
    out = roofbot("parts", "--repo", str(FIXTURES), "a100")
    assert out.returncode == 0
    assert "nvidia-a100-40gb-sxm4" in out.stdout and "1555 GB/s" in out.stdout
    sparse = roofbot("parts", "--repo", str(FIXTURES), "rtx-pro-6000")
    assert "sparse only: fp4" in sparse.stdout


def test_coverage_says_what_unchecked_records_lack() -> None:
    out = roofbot("coverage", "--repo", str(FIXTURES))
    assert out.returncode == 0
    assert "lacks accelerator" in out.stdout
    assert "coverage: 28 of 30" in out.stdout
    data = json.loads(roofbot("coverage", "--repo", str(FIXTURES), "--format", "json").stdout)
    assert data["checked"] == 28 and data["token_rate_records"] == 30


def test_exit_codes(tmp_path: Path) -> None:
    assert roofbot("check", "--repo", str(FIXTURES)).returncode == 0  # deprecated never fail
    repo = tmp_path / "r"
    shutil.copytree(FIXTURES, repo, ignore=shutil.ignore_patterns("broken"))
    cfg = repo / ".roofbot.yml"
    cfg.write_text(cfg.read_text().replace("deprecated_fail: false", "deprecated_fail: true"))
    assert roofbot("check", "--repo", str(repo)).returncode == 1
    cfg.write_text("fail_on: [nonsense]\n")
    bad = roofbot("check", "--repo", str(repo))
    assert bad.returncode == 2 and "fail_on" in bad.stderr


def test_text_output_is_verdict_first_and_uncoloured_off_a_terminal() -> None:
    out = roofbot("check", "--repo", str(FIXTURES))
    lines = out.stdout.splitlines()
    assert lines[0].split()[0] in {"error", "violation", "suspect", "unchecked", "pass"}
    assert "\x1b[" not in out.stdout
    assert "calibration: ok (6/6 within 0.1 pp)" in out.stdout


def test_streamed_json_is_the_report_byte_for_byte(fixtures_repo) -> None:  # type: ignore[no-untyped-def]
    """`check --format json` streams (one record in memory at a time); it must print exactly
    what the in-memory report serialises to."""
    from roofbot.engine import run_check
    from roofbot.links import gotcha_paths
    from roofbot.render import json_report

    report = run_check(fixtures_repo)
    links = gotcha_paths(fixtures_repo.config, fixtures_repo.catalogue())
    streamed = roofbot("check", "--repo", str(FIXTURES), "--format", "json").stdout
    assert streamed == json_report.dumps(report, links)
    two = roofbot("check", "--repo", str(FIXTURES), "--format", "json", "--jobs", "2").stdout
    assert two == streamed


def test_the_actions_json_artifact_is_the_report_byte_for_byte(
    fixtures_repo, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """`report_text`, which writes the action's roofbot-report.json, is `dumps`: on the
    fixtures, the users' corpus and the fixtures with the hostile files added (a run that
    fails), each as checked and with a broken calibration; and on a report with no record."""
    import dataclasses

    from roofbot.adapters.repo import Repository
    from roofbot.core.results import Calibration, CalibrationEntry, Report
    from roofbot.engine import run_check
    from roofbot.links import gotcha_paths
    from roofbot.render import json_report

    hostile = tmp_path / "repo"
    shutil.copytree(FIXTURES, hostile)
    for bad in (FIXTURES / "broken").glob("*.json"):
        shutil.copy(bad, hostile / "data/benchmarks" / bad.name)
    broken = Calibration(True, 0.1, (CalibrationEntry("x", "memory-roof", 50.0, 60.0, False),))
    oks = []
    real = [Repository.open(REAL)] if REAL.is_dir() else []  # the users' corpus, where present
    for repo in (fixtures_repo, Repository.open(hostile), *real):
        links = gotcha_paths(repo.config, repo.catalogue())
        report = run_check(repo)
        oks.append(report.ok)
        for r in (report, dataclasses.replace(report, calibration=broken), Report((), broken)):
            assert json_report.report_text(r, links) == json_report.dumps(r, links)
    assert oks[0] and not oks[1]


def test_the_spool_reaches_text_and_byte_outputs_alike(fixtures_repo) -> None:  # type: ignore[no-untyped-def]
    """The record JSON is spooled as UTF-8 bytes: copied as bytes onto a UTF-8 stream's
    buffer, decoded for any other text output (a StringIO); a character split across two
    chunks is decoded whole."""
    import io

    from roofbot.cli import _stream_json
    from roofbot.engine import run_check
    from roofbot.links import gotcha_paths
    from roofbot.render import json_report

    expected = json_report.dumps(
        run_check(fixtures_repo), gotcha_paths(fixtures_repo.config, fixtures_repo.catalogue())
    )
    assert not expected.isascii()  # the fixtures' report carries µ, ≈, — and the like
    as_text = io.StringIO()
    _stream_json(fixtures_repo, None, True, 1, None, None, None, as_text)
    raw = io.BytesIO()
    as_bytes = io.TextIOWrapper(raw, encoding="utf-8", newline="")
    _stream_json(fixtures_repo, None, True, 1, None, None, None, as_bytes)
    as_bytes.flush()
    assert as_text.getvalue() == raw.getvalue().decode("utf-8") == expected

    word = "µs ≈ 😀 é".encode()
    split = io.StringIO()
    json_report._copy_utf8(io.BytesIO(word), split, chunk=1)
    assert split.getvalue() == word.decode()


def test_streamed_json_of_nothing_is_valid(tmp_path: Path) -> None:
    (tmp_path / "data" / "benchmarks").mkdir(parents=True)
    out = roofbot("check", "--repo", str(tmp_path), "--format", "json")
    data = json.loads(out.stdout)
    assert data["records"] == [] and data["ok"] is True and out.returncode == 0


def test_a_config_error_cannot_write_a_workflow_command(tmp_path: Path) -> None:
    """A pull request's `.roofbot.yml` whose keys and values hold line breaks and `::`
    commands: the CLI's error names them on one line, so no line of its output starts with
    `::` (GitHub Actions reads such a line in a job log as a workflow command)."""
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES, repo, ignore=shutil.ignore_patterns("broken"))
    forged = "x\n::add-mask::secret\r::stop-commands::t0k3n\u2028::error file=a::b\x85"
    for text in (
        json.dumps({forged: None}),  # an unknown key
        json.dumps({"fail_on": [forged]}),  # a value
        "fail_on: [\n::error::x\n",  # YAML that does not parse
    ):
        (repo / ".roofbot.yml").write_text(text, encoding="utf-8")
        proc = roofbot("check", "--repo", str(repo))
        assert proc.returncode == 2, proc.stderr
        lines = (proc.stdout + proc.stderr).splitlines()
        assert [line for line in lines if line.startswith("Error: ")], lines
        assert not [line for line in lines if line.lstrip().startswith("::")], lines
