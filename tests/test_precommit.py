"""`.pre-commit-hooks.yaml` under a real `pre-commit` on a temporary git repository (marked
`slow`: `pytest -m slow`, or .ci/run): the hook
installs roofbot from a git repository of this checkout, lets a good record through, blocks a
record over its roof, and re-checks the records that reference a staged catalogue record."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT

pytest.importorskip("pre_commit", reason="pre-commit is not installed: pip install -e '.[dev]'")

# pre-commit builds the hook's own virtualenv and installs roofbot into it (20 s of the README's
# `pytest` on this 2-core machine): the `slow` marker, which .ci/run selects.
pytestmark = pytest.mark.slow

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(cwd: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False
    )


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    home = tmp_path_factory.mktemp("home")
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    base.pop("GITHUB_ACTIONS", None)
    return {**base, **GIT_ENV, "HOME": str(home), "PRE_COMMIT_HOME": str(home / "pc")}


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory, env: dict[str, str]) -> tuple[Path, str]:
    """This checkout's files (tracked and new, as they are now) committed to a fresh repo."""
    src = tmp_path_factory.mktemp("roofbot-src")
    listed = git(ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard", env=env)
    for rel in filter(None, listed.stdout.split("\0")):
        path = ROOT / rel
        if path.is_file() and not path.is_symlink():
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, src / rel)
    assert (src / ".pre-commit-hooks.yaml").is_file()
    for args in (("init", "-q"), ("add", "-A"), ("commit", "-q", "-m", "roofbot")):
        assert git(src, *args, env=env).returncode == 0
    return src, git(src, "rev-parse", "HEAD", env=env).stdout.strip()


@pytest.fixture(scope="module")
def records(
    tmp_path_factory: pytest.TempPathFactory, env: dict[str, str], hook_repo: tuple[Path, str]
) -> Path:
    repo = tmp_path_factory.mktemp("records")
    for part in ("data", "schemas"):
        shutil.copytree(FIXTURES / part, repo / part)
    shutil.copy2(FIXTURES / ".roofbot.yml", repo / ".roofbot.yml")
    src, rev = hook_repo
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {src}\n    rev: {rev}\n    hooks:\n      - id: roofbot\n"
    )
    for args in (("init", "-q"), ("add", "-A"), ("commit", "-q", "-m", "base")):
        assert git(repo, *args, env=env).returncode == 0
    install = subprocess.run(
        [sys.executable, "-m", "pre_commit", "install"],
        cwd=repo, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert install.returncode == 0, install.stdout + install.stderr
    return repo


def commit(repo: Path, env: dict[str, str], message: str) -> subprocess.CompletedProcess[str]:
    git(repo, "add", "-A", env=env)
    return git(repo, "commit", "-m", message, env=env)


def test_a_good_record_is_committed(records: Path, env: dict[str, str]) -> None:
    src = (
        records / "data/benchmarks/llamacpp-rx7900xtx-gfx1100-qwen3-27b-q4-batch1-decode-tok-s.json"
    )
    data = json.loads(src.read_text())
    data["id"] = "new-rx7900xtx-record"
    (records / "data/benchmarks/new-rx7900xtx-record.json").write_text(json.dumps(data, indent=2))
    out = commit(records, env, "a good record")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "roofbot (roofline check of benchmark records)" in out.stdout + out.stderr
    assert "Passed" in out.stdout + out.stderr


def test_a_record_over_its_roof_blocks_the_commit(records: Path, env: dict[str, str]) -> None:
    src = records / "data/benchmarks/local-rtx-pro-6000-70b-q8-decode.json"
    data = json.loads(src.read_text())
    data.update(id="pro-6000-70b-q8-current", status="verified")
    (records / "data/benchmarks/pro-6000-70b-q8-current.json").write_text(
        json.dumps(data, indent=2)
    )
    out = commit(records, env, "a record over its roof")
    text = out.stdout + out.stderr
    assert out.returncode != 0, text
    assert "Failed" in text and "violation" in text and "pro-6000-70b-q8-current" in text
    assert "data/benchmarks/pro-6000-70b-q8-current.json:" in text  # with the line
    assert "to fix:" in text
    assert "local-rtx-pro-6000" not in text  # only the staged record is checked
    git(records, "reset", "-q", "--hard", "HEAD", env=env)
    git(records, "clean", "-q", "-fd", env=env)


def test_a_catalogue_change_rechecks_the_records_that_reference_it(
    records: Path, env: dict[str, str]
) -> None:
    part = records / "data/accelerators/nvidia-rtx-5090.json"
    data = json.loads(part.read_text())
    data["memory_bandwidth_gbps"] = 700
    part.write_text(json.dumps(data, indent=2))
    out = commit(records, env, "a slower 5090")
    text = out.stdout + out.stderr
    assert out.returncode != 0, text
    assert "comm-5090-wsl2-qwen3-14b-awq-decode-tok-s" in text  # references the part
    assert "local-rtx-5090-70b-q4-decode" in text  # so does this one, reported apart
    assert "mpt7b-a100" not in text.replace("calibration", "")  # an A100 record is not re-checked
    git(records, "reset", "-q", "--hard", "HEAD", env=env)
