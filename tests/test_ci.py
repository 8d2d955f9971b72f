"""The test suite a newcomer runs and the CI that runs the rest: the README's `pytest`
deselects the container build and the long hostile hunt (markers `container` and `slow`),
`.ci/run` selects them, runs the action's end-to-end tests on a plain `pip install .`, and
says so when pytest collects nothing (exit 5); the real-corpus tests find any copy of a
records repository through ROOFBOT_RECORDS_REPO."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CI = (ROOT / ".ci" / "run").read_text("utf-8")


def test_the_default_run_deselects_the_container_and_the_long_hunt() -> None:
    opts = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["pytest"]
    addopts = opts["ini_options"]["addopts"]
    assert addopts[addopts.index("-m") + 1] == "not container and not slow"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
            "-m",
            "slow or container",
            "tests/test_container.py",
            "tests/test_precommit.py",
            "tests/test_first_session.py",
            "tests/hostile",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    selected = [ln for ln in proc.stdout.splitlines() if "::" in ln]
    assert any("test_container_json_matches_host" in ln for ln in selected), proc.stdout
    assert any("test_the_long_hunt" in ln for ln in selected), proc.stdout
    assert any("test_a_good_record_is_committed" in ln for ln in selected), proc.stdout
    assert any("test_the_first_session_from_a_fresh_virtualenv" in ln for ln in selected)
    assert sum("test_hostile_pull_request[" in ln for ln in selected) >= 38
    assert sum("test_api_failure[" in ln for ln in selected) >= 42


def test_ci_selects_the_markers_and_the_plain_install() -> None:
    assert 'run_pytest -m "slow or container"' in CI
    assert "bash scripts/container.sh deps" in CI  # CI installs what the container needs
    plain = CI[CI.index("plain=") :]
    assert '"$plain/bin/pip" install --quiet --disable-pip-version-check .\n' in plain
    assert "ROOFBOT_PR_PYTHON=" in plain and "tests/test_plain_install.py" in plain


def run_pytest_function() -> str:
    match = re.search(r"^run_pytest\(\) \{\n.*?^\}\n", CI, re.S | re.M)
    assert match, "no run_pytest function in .ci/run"
    return match.group(0)


def test_ci_says_so_when_pytest_collects_nothing(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "pytest"
    fake.write_text('#!/bin/sh\nexit "$FAKE_RC"\n', "utf-8")
    fake.chmod(0o755)
    bash = shutil.which("bash")
    assert bash
    script = run_pytest_function() + 'run_pytest -m nothing\necho "rc=$?"\n'
    env = {"PATH": f"{bin_dir}{os.pathsep}/usr/bin:/bin"}
    for rc, expect in (("5", "rc=1"), ("0", "rc=0"), ("1", "rc=1")):
        proc = subprocess.run(
            [bash, "-c", script], env={**env, "FAKE_RC": rc}, capture_output=True, text=True
        )
        assert proc.stdout.strip() == expect, (rc, proc.stdout, proc.stderr)
        assert ("collected no test (exit 5)" in proc.stderr) is (rc == "5"), proc.stderr


def test_the_real_corpus_is_found_through_roofbot_records_repo(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-records-repo"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
         "tests/test_real_corpus.py"],
        cwd=ROOT,
        env={**os.environ, "ROOFBOT_RECORDS_REPO": str(missing)},
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout
    assert f"no records repository at {missing}" in proc.stdout
    assert "ROOFBOT_RECORDS_REPO" in proc.stdout
    assert " passed" not in proc.stdout  # every real-corpus test skipped, none ran elsewhere
