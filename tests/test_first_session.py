"""docs/first-session.md, run: every `$ command` of its console blocks in one shell, in a
temporary folder, from a clone of this checkout; each output line the page shows must appear,
in order (`…` is any text), and the exit code is the page's `[exit N]` (0 where none is shown).

The default run uses the roofbot under test for the clone's commands and skips creating the
virtualenv and `pip install -e .`; the `slow` variant (.ci/run) does those too, in a fresh
virtualenv, as the page says."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "first-session.md"
CLONE_URL = "https://github.com/OWNER/roofbot"


@dataclass
class Step:
    command: str
    expected: list[str]
    code: int


def steps(text: str) -> list[Step]:
    out: list[Step] = []
    for block in re.findall(r"```console\n(.*?)```", text, re.S):
        for line in block.splitlines():
            if line.startswith("$ "):
                out.append(Step(line[2:], [], 0))
            elif line.startswith("> ") or line == ">":
                out[-1].command += "\n" + line[2:]
            elif m := re.fullmatch(r"\[exit (\d+)\]", line):
                out[-1].code = int(m[1])
            elif line:
                out[-1].expected.append(line)
    return out


def matches(expected: str, actual: str) -> bool:
    pattern = ".*".join(re.escape(part) for part in expected.split("…"))
    return re.fullmatch(pattern, actual) is not None


def in_order(expected: list[str], actual: list[str]) -> list[str]:
    """The expected lines not found in order in `actual` (empty: the shape holds)."""
    i = 0
    for n, want in enumerate(expected):
        while i < len(actual) and not matches(want, actual[i]):
            i += 1
        if i == len(actual):
            return expected[n:]
        i += 1
    return []


def run_page(tmp_path: Path, *, install: bool) -> None:
    session = steps(PAGE.read_text("utf-8"))
    assert len(session) >= 15, "the page lost its commands"
    script = ["set +e"]
    for n, step in enumerate(session):
        cmd = step.command.replace(CLONE_URL, f"-q {ROOT} roofbot")
        if not install:  # the roofbot under test stands in for the venv's
            cmd = cmd.replace("pip install -e . && ", "")
            if cmd.startswith("python3 -m venv"):
                cmd = "true"
        script.append(f"echo '@@step {n}'")
        script.append("{\n" + cmd + "\n} 2>&1")
        # a step that ends otherwise than the page says ends the session: the next `cd` or
        # `git init` must never run in a folder the page did not mean
        script.append(f'rc=$?; echo "@@exit {n} $rc"; [ "$rc" -eq {step.code} ] || exit 97')
    bin_dir = Path(sys.executable).parent
    env = {
        "PATH": f"{bin_dir}{os.pathsep}/usr/local/bin:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "TMPDIR": str(tmp_path),
        "LC_ALL": "C.UTF-8",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    if not install:  # this checkout's code, not an editable install of another worktree's
        env["PYTHONPATH"] = str(ROOT)
    for key in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_CONFIG_FILE"):
        if key in os.environ:
            env[key] = os.environ[key]
    proc = subprocess.run(["bash", "-c", "\n".join(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600, check=False)  # fmt: skip
    outputs: dict[int, list[str]] = {}
    codes: dict[int, int] = {}
    current: int | None = None
    for line in proc.stdout.splitlines():
        if m := re.fullmatch(r"@@step (\d+)", line):
            current = int(m[1])
            outputs[current] = []
        elif m := re.fullmatch(r"@@exit (\d+) (\d+)", line):
            codes[int(m[1])] = int(m[2])
        elif current is not None:
            outputs[current].append(line)
    for n, step in enumerate(session):
        got = outputs.get(n, [])
        assert codes.get(n) == step.code, (step.command, codes.get(n), got, proc.stderr)
        missing = in_order(step.expected, got)
        assert not missing, f"$ {step.command}\nmissing {missing}\nin:\n" + "\n".join(got)


def test_the_first_session_runs_as_the_page_shows(tmp_path: Path) -> None:
    run_page(tmp_path, install=False)


@pytest.mark.slow
def test_the_first_session_from_a_fresh_virtualenv(tmp_path: Path) -> None:
    run_page(tmp_path, install=True)


def test_the_shape_check_can_fail() -> None:
    assert in_order(["a…", "c"], ["x", "abc", "b", "c"]) == []
    assert in_order(["c", "a…"], ["abc", "c"]) == ["a…"]
    assert not matches("1 record: 1 pass", "2 records: 2 pass")
