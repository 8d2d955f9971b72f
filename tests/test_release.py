"""The release workflow (examples/release.yml), read as data and its action.yml rewrite run for
real: a release tag's action.yml pulls the published image by digest, the branch's builds from
the Dockerfile. (actionlint and zizmor run on the same file in .ci/run.)"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
DIGEST = "ghcr.io/octo-org/roofbot@sha256:" + "ab" * 32


def workflow() -> dict[Any, Any]:
    data: dict[Any, Any] = yaml.safe_load((ROOT / "examples" / "release.yml").read_text("utf-8"))
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads a bare `on` as true
    return data


def step(name_start: str) -> dict[str, Any]:
    (job,) = workflow()["jobs"].values()
    (found,) = [s for s in job["steps"] if s.get("name", "").startswith(name_start)]
    return dict(found)


def test_the_branch_builds_from_source() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text("utf-8"))
    assert action["runs"]["using"] == "docker"
    assert action["runs"]["image"] == "Dockerfile"


def test_release_is_by_hand_least_privilege_and_pinned() -> None:
    wf = workflow()
    assert list(wf["on"]) == ["workflow_dispatch"]
    assert wf["permissions"] == {}
    (job,) = wf["jobs"].values()
    assert job["permissions"] == {"contents": "write", "packages": "write"}
    for s in job["steps"]:
        uses = s.get("uses")
        if uses:
            assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", uses), uses
            if uses.startswith("actions/checkout@"):
                assert s["with"]["persist-credentials"] is False
        assert "${{" not in s.get("run", ""), "an expression inside a script: pass it by env"


def test_both_images_are_built_and_the_default_one_is_chart_free() -> None:
    script = step("Build and push")["run"]
    assert "for variant in default plot; do" in script
    assert '--build-arg "PLOT=${plot}"' in script
    assert "plot=false" in script  # the default image


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash not installed")
def test_the_tag_commit_pins_the_image_by_digest(tmp_path: Path) -> None:
    """The rewrite the workflow runs, run on a copy of action.yml: only `runs.image` changes."""
    script = step("Tag a commit")["run"]
    rewrite = [ln for ln in script.splitlines() if ln.startswith(("sed -i", "grep -qx"))]
    assert len(rewrite) == 2, rewrite
    shutil.copy(ROOT / "action.yml", tmp_path / "action.yml")
    proc = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", "\n".join(rewrite)],
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "IMAGE": DIGEST},
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    before = yaml.safe_load((ROOT / "action.yml").read_text("utf-8"))
    after = yaml.safe_load((tmp_path / "action.yml").read_text("utf-8"))
    assert after["runs"]["image"] == f"docker://{DIGEST}"
    after["runs"]["image"] = before["runs"]["image"]
    assert after == before


def test_the_token_never_reaches_a_command_line() -> None:
    """A command's arguments are readable by every process on the runner (/proc/*/cmdline):
    the token, or the header made from it, goes to git through its environment only."""
    workflow = yaml.safe_load((ROOT / "examples" / "release.yml").read_text("utf-8"))
    secrets = ("REGISTRY_TOKEN", "auth", "GITHUB_TOKEN", "github.token")
    for job in workflow["jobs"].values():
        for step in job["steps"]:
            script = re.sub(r"\\\n\s*", " ", step.get("run", ""))
            for command in script.splitlines():
                words = command.split()
                if "git" not in words:
                    continue
                argv = " ".join(words[words.index("git") :])  # after any VAR=value prefix
                for name in secrets:
                    assert "${" + name + "}" not in argv and "$" + name not in argv, command
