"""`roofbot preview`: the comment, the summary and the status line a branch will get, from
two refs of a local git repository, without GitHub; the same bytes `roofbot pr` posts. And
`roofbot pr --dry-run`: what it rendered is printed and written where the user says, never to
a fixed name in /tmp."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from github_server import FakeGitHub
from prkit import MPT, PR, make_pull, run_action, violating_copy


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server


def roofbot(*args: str, cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(cwd.parent), **extra}  # none above
    for name in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY"):
        if name not in extra:
            env.pop(name, None)
    return subprocess.run([sys.executable, "-m", "roofbot", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120, check=False, env=env)  # fmt: skip


def test_preview_renders_what_pr_posts(tmp_path: Path, gh: FakeGitHub) -> None:
    pull = make_pull(tmp_path, {MPT: violating_copy()})
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    # no run URL: the comment links no job summary, as a preview can't; and no inline review,
    # which a preview (it asks GitHub nothing) can't know the outcome of
    run = run_action(tmp_path, pull, gh, GITHUB_RUN_ID="", INPUT_REVIEW="off")
    posted = gh.comments_on(PR)[0].body
    status = gh.statuses[pull.head][-1]

    where = {"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": gh.full_name}
    out = roofbot("preview", "--base", "main", "--head", "pr", "--out", str(tmp_path / "c.md"),
                  "--summary", str(tmp_path / "s.md"), cwd=pull.repo, **where)  # fmt: skip
    assert out.returncode == run.code == 1, out.stderr
    assert (tmp_path / "c.md").read_text("utf-8") == posted
    assert (tmp_path / "s.md").read_text("utf-8") == run.summary
    assert f"roofcheck: {status['state']}: {status['description']}" in out.stderr
    assert f"main ({pull.base[:12]}) <- pr ({pull.head[:12]})" in out.stderr
    printed = roofbot("preview", "--base", "main", "--head", "pr", cwd=pull.repo / "data", **where)
    assert printed.stdout == posted  # printed when no --out, found from a folder inside
    assert f"](https://github.com/{gh.full_name}/blob/{pull.head}/{MPT}#L" in posted
    # without a repository to link to, files are named, never linked relatively
    unlinked = roofbot("preview", "--base", "main", "--head", "pr", cwd=pull.repo).stdout
    assert "](../" not in unlinked and "/blob/" not in unlinked and "| 🟥 violation |" in unlinked


def test_preview_of_a_branch_that_changes_nothing_succeeds(tmp_path: Path) -> None:
    pull = make_pull(tmp_path, {"README.md": "docs only\n"})
    out = roofbot("preview", "--head", "pr", cwd=pull.repo)
    assert out.returncode == 0, out.stderr
    assert "No benchmark record to check" in out.stdout
    assert "roofcheck: success: no benchmark record or catalogue change" in out.stderr


def test_preview_of_a_ref_that_does_not_exist_is_a_usage_error(tmp_path: Path) -> None:
    pull = make_pull(tmp_path, {MPT: violating_copy()})
    out = roofbot("preview", "--base", "mian", "--head", "pr", cwd=pull.repo)
    assert out.returncode == 2 and "'mian' names no commit" in out.stderr
    plain = tmp_path / "plain"
    (plain / "data" / "benchmarks").mkdir(parents=True)
    out = roofbot("preview", cwd=plain)
    assert out.returncode == 2 and "not in a git repository" in out.stderr


def test_dry_run_prints_the_comment_and_writes_it_where_asked(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    pull = make_pull(tmp_path, {MPT: violating_copy()})
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    posted_dir = tmp_path / "mine"
    run = run_action(tmp_path, pull, gh, "--dry-run", "--out", str(posted_dir))
    assert run.code == 1 and gh.requests == []
    comment = (posted_dir / "comment.md").read_text("utf-8")
    assert "135%" in comment and comment.startswith("<!-- roofbot:roofcheck -->")
    assert (posted_dir / "summary.md").read_text("utf-8") == run.summary
    assert Path(run.outputs["report-path"]) == posted_dir / "roofbot-report.json"
    # in a job log every line is roofbot's: the comment comes prefixed
    shown = [ln[len("roofbot: ") :] for ln in run.stdout.splitlines()]
    start = shown.index("dry run: the comment roofbot would post follows") + 1
    assert "\n".join(shown[start : shown.index("dry run: end of the comment")]) + "\n" == comment


def test_dry_run_without_runner_temp_writes_no_fixed_name_in_tmp(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    pull = make_pull(tmp_path, {MPT: violating_copy()})
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    temp = tmp_path / "temp"
    temp.mkdir()
    run = run_action(tmp_path, pull, gh, "--dry-run", RUNNER_TEMP="", TMPDIR=str(temp),
                     INPUT_PLOT="true")  # fmt: skip
    assert run.code == 1
    assert not (temp / "roofbot-report.json").exists()
    assert not (temp / "roofbot-plot").exists()
    report = Path(run.outputs["report-path"])
    assert report.is_file() and report.parent.parent == temp
    assert report.parent.name.startswith("roofbot-pr-")
    assert (report.parent / "comment.md").is_file()
    assert os.path.commonpath([report, temp]) == str(temp)
