"""The progress bar: drawn on a terminal for a long sweep, never in a pipe, in CI or with
--quiet. Run under a real pseudo-terminal."""

from __future__ import annotations

import json
import os
import pty
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES

from roofbot.progress import MIN_RECORDS


@pytest.fixture(scope="module")
def big_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("big")
    shutil.copytree(FIXTURES / "data", root / "data")
    shutil.copytree(FIXTURES / "schemas", root / "schemas")
    src = FIXTURES / "data/benchmarks/mpt7b-a100-bs1-per-user-decode-tps.json"
    record = json.loads(src.read_text())
    for i in range(MIN_RECORDS + 20):
        rid = f"copy-{i:04d}"
        (root / "data/benchmarks" / f"{rid}.json").write_text(json.dumps({**record, "id": rid}))
    return root


def run_on_tty(args: list[str], env: dict[str, str]) -> tuple[int, str]:
    """Run roofbot with stdout and stderr on a pseudo-terminal; returns (code, all output)."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "roofbot", *args],
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=follower,
        env=env,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    return proc.wait(timeout=120), b"".join(chunks).decode("utf-8", "replace")


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "GITHUB_ACTIONS")}
    return {**env, **extra}


def test_a_long_sweep_on_a_terminal_shows_a_bar(big_repo: Path) -> None:
    code, out = run_on_tty(["check", "--repo", str(big_repo)], clean_env())
    total = MIN_RECORDS + 20 + 32
    assert code == 0, out
    assert f"checking [{'#' * 30}] {total}/{total} records" in out
    assert "\r\x1b[2K" in out  # the bar clears its line before the report


def test_no_bar_in_ci_with_quiet_or_in_a_pipe(big_repo: Path) -> None:
    for env, args in ((clean_env(CI="true"), []), (clean_env(), ["--quiet"])):
        code, out = run_on_tty(["check", "--repo", str(big_repo), *args], env)
        assert code == 0 and "records\r" not in out and "checking [" not in out
    piped = subprocess.run(
        [sys.executable, "-m", "roofbot", "check", "--repo", str(big_repo)],
        capture_output=True,
        text=True,
        timeout=120,
        env=clean_env(),
        check=False,
    )
    assert "checking [" not in piped.stderr + piped.stdout


def test_a_short_sweep_shows_no_bar() -> None:
    code, out = run_on_tty(["check", "--repo", str(FIXTURES)], clean_env())
    assert code == 0 and "checking [" not in out
