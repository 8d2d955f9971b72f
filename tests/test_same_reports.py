"""bench/same_reports.py, the check that a speed change changed no report: it finds no
difference between this checkout and itself, and finds one where the other checkout's
roofbot reports otherwise."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "same_reports.py"


def run(base: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(base), str(ROOT / "fixtures")],
        capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip


def test_a_checkout_reports_as_itself_every_way_it_runs() -> None:
    proc = run(ROOT)
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert len(lines) == 10 and all(line.startswith("same  ") for line in lines), lines


def test_a_report_that_differs_is_found(tmp_path: Path) -> None:
    """A stand-in `roofbot` that reports otherwise: every comparison differs, exit 1."""
    package = tmp_path / "roofbot"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text("print('all records pass')\n")
    proc = run(tmp_path)
    lines = proc.stdout.splitlines()
    assert proc.returncode == 1
    assert len(lines) == 10 and all(line.startswith("DIFF  ") for line in lines), lines
    assert "all records pass" in lines[0]
