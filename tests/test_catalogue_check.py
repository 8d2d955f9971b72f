"""The catalogue is validated against the repository's own schemas, as its CI does: a failing
catalogue file is an `error` row on that file, in the words a benchmark record's error gets,
and `fail_on` decides; a check resting on an invalid part says so. A sweep reports every
catalogue file; a pull request, those it adds or changes and those its records rest on."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from github_server import FakeGitHub
from prkit import A100, FIXTURES, MPT, PR, make_pull, run_action, violating_copy

PHI = "data/models/phi-3-mini-4k-instruct.json"  # no benchmark record rests on it
SCHEMA_WORDS = "not valid against schemas/accelerator.schema.json at (top level): "


def invalid(path: str) -> str:
    data = json.loads((FIXTURES / path).read_text("utf-8"))
    data["colour"] = "green"  # the schemas allow no other property
    return json.dumps(data, indent=2) + "\n"


def roofbot(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "roofbot", *args], capture_output=True,
                          text=True, timeout=120, check=False)  # fmt: skip


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    out = tmp_path / "r"
    shutil.copytree(FIXTURES, out, ignore=shutil.ignore_patterns("broken"))
    (out / A100).write_text(invalid(A100), "utf-8")
    return out


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server


def test_a_sweep_reports_an_invalid_catalogue_file_as_an_error(repo: Path) -> None:
    for fmt in ("json", "markdown", "text"):
        out = roofbot("check", "--repo", str(repo), "--format", fmt)
        assert out.returncode == 1, (fmt, out.stderr)
        if fmt == "json":
            rows = {r["path"]: r for r in json.loads(out.stdout)["records"]}
            row = rows[A100]
            assert row["verdict"] == "error"
            assert row["messages"][0].startswith(SCHEMA_WORDS)
            assert "'colour' was unexpected" in row["messages"][0]
            mpt = rows[MPT]  # still checked with it, and marked
            assert mpt["verdict"] == "pass"
            assert any(f"rests on {A100}, which is invalid" in m for m in mpt["messages"])
        else:
            assert A100 in out.stdout and "'colour' was unexpected" in out.stdout


def test_fail_on_decides_for_a_catalogue_error_as_for_a_record(repo: Path) -> None:
    assert roofbot("check", "--repo", str(repo), "--fail-on", "violation").returncode == 0


def test_the_valid_fixtures_have_no_catalogue_error() -> None:
    data = json.loads(roofbot("check", "--repo", str(FIXTURES), "--format", "json").stdout)
    assert not [r for r in data["records"] if not r["path"].startswith("data/benchmarks/")]


def test_a_pr_changing_a_catalogue_file_into_an_invalid_one_fails_on_it(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    pull = make_pull(tmp_path, {PHI: invalid(PHI)})  # no record rests on it: still reported
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    run = run_action(tmp_path, pull, gh)
    assert run.code == 1
    body = gh.comments_on(PR)[0].body
    assert (
        "phi-3-mini-4k-instruct" in body and "not valid against schemas/model.schema.json" in body
    )
    assert gh.statuses[pull.head][-1]["state"] == "failure"
    assert "nothing to check" not in body


def test_a_pr_reports_the_invalid_parts_its_records_rest_on(tmp_path: Path, gh: FakeGitHub) -> None:
    pull = make_pull(tmp_path, {MPT: violating_copy(100.0)}, base_edit={A100: invalid(A100)})
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    run = run_action(tmp_path, pull, gh)
    assert run.code == 1  # the record passes; the part it rests on is an error
    body = gh.comments_on(PR)[0].body
    assert "nvidia-a100-40gb-sxm4" in body and "accelerator.schema.json" in body
    assert "which is invalid" in body
    report = json.loads(Path(run.outputs["report-path"]).read_text("utf-8"))
    paths = {r["path"]: r["verdict"] for r in report["records"]}
    assert paths[A100] == "error" and paths[MPT] == "pass"
    # the other invalid parts of the base are not this PR's business
    assert all(p in (A100, MPT) for p in paths), paths


def test_a_staged_invalid_catalogue_file_is_reported_by_check_changed(repo: Path) -> None:
    """pre-commit's `check --changed`: the staged catalogue file itself, and its dependents."""
    out = subprocess.run(
        [sys.executable, "-m", "roofbot", "check", "--changed", A100, "--format", "json"],
        cwd=repo, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert out.returncode == 1, out.stderr
    rows = {r["path"]: r for r in json.loads(out.stdout)["records"]}
    assert rows[A100]["verdict"] == "error"
    assert MPT in rows  # the records resting on it are checked again, and say so
    assert any("which is invalid" in m for m in rows[MPT]["messages"])
