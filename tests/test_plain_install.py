"""A plain `pip install .` (no `plot` extra, so no matplotlib): the action's input `plot`
defaults to true, and a chart that cannot be drawn is a note in the log and the comment, never
a failure. Here matplotlib is made unimportable in the `roofbot pr` subprocess (a
sitecustomize that refuses it on sys.meta_path); `.ci/run` also runs this file and
tests/test_pr.py with ROOFBOT_PR_PYTHON pointing at a venv built from `pip install .` alone."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from github_server import FakeGitHub
from prkit import MPT, PR, PR_PYTHON, make_pull, run_action, violating_copy

BLOCKER = """\
import importlib.abc, sys

class _NoMatplotlib(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ModuleNotFoundError(f"No module named {name!r} (blocked by the test)", name=name)
        return None

sys.meta_path.insert(0, _NoMatplotlib())
"""

NO_CHART = "no chart (install roofbot[plot])"


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server


@pytest.fixture
def no_matplotlib(tmp_path: Path) -> dict[str, str]:
    """The environment that makes matplotlib unimportable in a subprocess."""
    folder = tmp_path / "blocker"
    folder.mkdir()
    (folder / "sitecustomize.py").write_text(BLOCKER, "utf-8")
    env = {"PYTHONPATH": str(folder)}
    probe = subprocess.run(
        [PR_PYTHON, "-c", "import matplotlib"],
        env={**env, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert probe.returncode != 0 and "No module named" in probe.stderr, probe.stderr
    return env


def test_pr_without_the_plot_extra_comments_without_a_chart(
    tmp_path: Path, gh: FakeGitHub, no_matplotlib: dict[str, str]
) -> None:
    pull = make_pull(tmp_path / "pull", {MPT: violating_copy()})
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    # INPUT_PLOT as action.yml sets it by default: true
    run = run_action(tmp_path, pull, gh, INPUT_PLOT="true", **no_matplotlib)  # no traceback

    assert run.code == 1  # the violation fails the run; the missing chart does not
    assert NO_CHART in run.stdout
    assert gh.statuses[pull.head][-1]["state"] == "failure"  # not "error"
    (comment,) = gh.comments_on(PR)
    assert "(pinned) | ✅ 51.9% → **🟥 135%** | memory roof 111.1 tok/s |" in comment.body
    assert NO_CHART in comment.body.replace("\\", "")  # as GitHub shows the escaped text
    assert "[roofline chart]" not in comment.body
    assert run.outputs["plot-path"] == ""


def test_pr_without_the_plot_extra_and_plot_off_says_nothing_of_charts(
    tmp_path: Path, gh: FakeGitHub, no_matplotlib: dict[str, str]
) -> None:
    pull = make_pull(tmp_path / "pull", {MPT: violating_copy()})
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    run = run_action(tmp_path, pull, gh, INPUT_PLOT="false", **no_matplotlib)
    assert run.code == 1
    assert NO_CHART not in run.stdout
    assert NO_CHART not in gh.comments_on(PR)[0].body.replace("\\", "")


def test_plot_command_without_the_extra_is_a_usage_error(
    tmp_path: Path, no_matplotlib: dict[str, str]
) -> None:
    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    proc = subprocess.run(
        [PR_PYTHON, "-m", "roofbot", "plot", "--repo", str(fixtures), "--out", "x"],
        env={**no_matplotlib, "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert proc.returncode == 2, proc.stderr
    assert "roofbot[plot]" in proc.stderr and "Traceback" not in proc.stderr
