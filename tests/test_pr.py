"""`roofbot pr` end to end: a real git repository (base and head commits), a real webhook payload
adapted from the samples, the command run as a subprocess with the environment a container
action gets, against the loopback GitHub of tests/github_server.py."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from github_server import FakeGitHub
from prkit import A100, FIXTURES, MPT, PR, drop_head, make_pull, pr_python_has, run_action
from prkit import violating_copy as _violating_copy


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server


ROW = "| ✅ 51.9% → **🟥 135%** | memory roof 111.1 tok/s | `value` 57.6 → 150 |"


def test_violation_pr_comments_sets_statuses_and_annotates(tmp_path: Path, gh: FakeGitHub) -> None:
    pull = make_pull(tmp_path, {MPT: _violating_copy()})
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    run = run_action(tmp_path, pull, gh)

    assert run.code == 1
    comments = gh.comments_on(PR)
    assert len(comments) == 1
    body = comments[0].body
    assert body.startswith("<!-- roofbot:roofcheck -->\n")
    blob = f"https://github.com/{gh.full_name}/blob/{pull.head}"
    link = f"[mpt7b-a100-bs1-per-user-decode-tps]({blob}/{MPT}#L11)"  # absolute, at `value`
    assert f"🟥 violation | {link} (pinned) {ROW}" in body
    assert "xychart-beta" not in body
    states = [s["state"] for s in gh.statuses[pull.head]]
    assert states == ["pending", "failure"]
    assert all(s["context"] == "roofcheck/master" for s in gh.statuses[pull.head])
    assert len(gh.statuses[pull.head][-1]["description"]) < 140
    assert "violation" in gh.statuses[pull.head][-1]["description"]
    # summary, outputs, annotation on the value line
    assert run.summary.startswith("<!-- roofbot:roofcheck -->")
    assert run.outputs["ok"] == "false"
    assert run.outputs["violations"] == "1"
    assert run.outputs["errors"] == "0"
    report = json.loads(Path(run.outputs["report-path"]).read_text("utf-8"))
    assert report["ok"] is False
    value_line = _violating_copy().splitlines().index('  "value": 150.0,') + 1
    assert f"::error file={MPT},line={value_line},title=roofcheck violation::" in run.stdout
    # git mode: list comments, create comment, two statuses; the review at most 3 more
    # (docs/workflows.md; tests/test_review.py counts them)
    review = [r for r in gh.requests if re.search(r"/pulls/\d+/(reviews|comments)$", r.route)]
    assert len(gh.requests) - len(review) <= 5, [(r.method, r.route) for r in gh.requests]
    assert len(review) <= 3
    assert not gh.errors


def test_second_run_edits_the_comment_in_place(tmp_path: Path, gh: FakeGitHub) -> None:
    pull = make_pull(tmp_path, {MPT: _violating_copy()})
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    gh.add_comment(PR, "<!-- roofbot:roofcheck --> a human quoting the marker", login="octocat")
    run_action(tmp_path, pull, gh)
    first = [c for c in gh.comments_on(PR) if c.user_login == gh.bot_login]
    assert len(first) == 1
    gh.clear_requests()
    run_action(tmp_path, pull, gh)
    bot = [c for c in gh.comments_on(PR) if c.user_login == gh.bot_login]
    assert [c.id for c in bot] == [first[0].id]
    assert len(gh.comments_on(PR)) == 2  # the human's comment untouched, no duplicate
    assert gh.count("POST", r"/issues/\d+/comments$") == 0
    assert len(gh.requests) <= 5 + 3  # and the review's
    assert [s["state"] for s in gh.statuses[pull.head]] == ["pending", "failure"] * 2


def test_pr_changing_nothing_roofbot_reads_succeeds(tmp_path: Path, gh: FakeGitHub) -> None:
    pull = make_pull(tmp_path, {"README.md": "docs only\n"})
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    run = run_action(tmp_path, pull, gh)
    assert run.code == 0
    final = gh.statuses[pull.head][-1]
    assert final["state"] == "success"
    assert "no benchmark record" in final["description"]
    assert run.outputs["ok"] == "true"


def test_bandwidth_edit_rechecks_dependents_and_breaks_calibration(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    text = (
        (FIXTURES / A100)
        .read_text("utf-8")
        .replace('"memory_bandwidth_gbps": 1555,', '"memory_bandwidth_gbps": 1935,')
    )
    pull = make_pull(tmp_path, {A100: text})
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    run = run_action(tmp_path, pull, gh)
    assert run.code == 1
    body = gh.comments_on(PR)[0].body
    assert "re-checked through a changed catalogue record" in body
    assert "mpt7b-a100-bs64-aggregate-output-tps" in body
    assert "calibration **broken**" in body
    assert "::error title=roofcheck calibration::calibration miss" in run.stdout


def test_fork_token_403_falls_back_to_summary(tmp_path: Path, gh: FakeGitHub) -> None:
    pull = make_pull(tmp_path, {MPT: _violating_copy()})
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    gh.fail_integration_forbidden("POST", r"/issues/\d+/comments$", times=None)
    run = run_action(tmp_path, pull, gh)
    assert run.code == 1
    assert "can't comment" in run.stdout
    assert "violation" in run.summary
    assert [s["state"] for s in gh.statuses[pull.head]] == ["pending", "failure"]


def test_dry_run_posts_nothing(tmp_path: Path, gh: FakeGitHub) -> None:
    pull = make_pull(tmp_path, {MPT: _violating_copy()})
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    run = run_action(tmp_path, pull, gh, "--dry-run")
    assert run.code == 1
    assert gh.requests == []
    assert "dry run" in run.stdout
    assert "135%" in run.summary


def test_unsupported_event_is_a_usage_error(tmp_path: Path, gh: FakeGitHub) -> None:
    pull = make_pull(tmp_path, {MPT: _violating_copy()})
    run = run_action(tmp_path, pull, gh, GITHUB_EVENT_NAME="push")
    assert run.code == 2
    assert gh.requests == []


def test_api_mode_when_the_head_is_not_in_the_workspace(tmp_path: Path, gh: FakeGitHub) -> None:
    from github_server import FileState

    pull = make_pull(tmp_path, {MPT: _violating_copy()})
    drop_head(pull)  # API mode: the base with its history, not the head
    gh.add_pull(
        PR,
        head_sha=pull.head,
        base_sha=pull.base,
        files=[FileState(MPT), FileState("README.md")],
    )
    gh.add_file(MPT, _violating_copy(57.6).encode(), ref=pull.base)
    gh.add_file(MPT, _violating_copy().encode(), ref=pull.head)
    gh.add_file("README.md", b"before\n", ref=pull.base)
    gh.add_file("README.md", b"after\n", ref=pull.head)
    run = run_action(tmp_path, pull, gh)
    assert run.code == 1, run.stdout
    assert "changed files from api: 2" in run.stdout
    body = gh.comments_on(PR)[0].body
    assert f"{MPT}#L11) (pinned) {ROW}" in body  # the id links its file
    assert gh.count("GET", r"/pulls/\d+/files") == 0  # the listing is pinned to the SHAs
    assert gh.count("GET", rf"/compare/{pull.base}\.\.\.{pull.head}$") == 1
    assert [s["state"] for s in gh.statuses[pull.head]] == ["pending", "failure"]
    assert not gh.errors


def test_a_crash_never_leaves_the_status_pending(tmp_path: Path, gh: FakeGitHub) -> None:
    pull = make_pull(tmp_path, {MPT: _violating_copy()})
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    # RUNNER_TEMP is a file: writing the report raises after the check (a broken template no
    # longer crashes: it falls back to the built-in one, tests/test_output_safety.py)
    (tmp_path / "not-a-folder").write_text("", "utf-8")
    run = run_action(tmp_path, pull, gh, crash=True, RUNNER_TEMP=str(tmp_path / "not-a-folder"))
    assert run.code == 1
    assert [s["state"] for s in gh.statuses[pull.head]] == ["pending", "error"]
    assert "NotADirectoryError" in gh.statuses[pull.head][-1]["description"]
    assert gh.comments_on(PR) == []


def test_workflow_command_escaping() -> None:
    from roofbot.adapters.actions import Annotation, escape_data, escape_property

    z = "\u200b"  # issue 19: `::` and `##[` get a zero-width space wherever they stand
    assert escape_data("50%\r\n::error::x ##[stop]") == f"50%25%0D%0A:{z}:error:{z}:x #{z}#[stop]"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    cmd = Annotation("error", "line1\n::set-output name=ok::true", file="a,b:c.json", line=3,
                     title="t").command()  # fmt: skip
    assert cmd == (
        f"::error file=a%2Cb%3Ac.json,line=3,title=t::line1%0A:{z}:set-output name=ok:{z}:true"
    )
    assert "\n" not in cmd


def test_the_chart_is_drawn_for_the_artifact_and_linked(tmp_path: Path, gh: FakeGitHub) -> None:
    if not pr_python_has("matplotlib"):
        pytest.skip("the [plot] extra is not installed where roofbot pr runs")
    pull = make_pull(tmp_path, {MPT: _violating_copy()})
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    run = run_action(tmp_path, pull, gh, INPUT_PLOT="true")
    chart = Path(run.outputs["plot-path"])
    assert chart.name == "roofline.png" and chart.read_bytes()[:4] == b"\x89PNG"
    assert chart.with_suffix(".svg").is_file()
    body = gh.comments_on(PR)[0].body
    assert "[roofline chart](https://github.com/" in body and "#artifacts)" in body
    off = run_action(tmp_path, pull, gh, INPUT_PLOT="false")
    assert off.outputs["plot-path"] == ""
    assert "roofline chart" not in gh.comments_on(PR)[0].body


def test_a_file_name_that_is_not_utf8_is_an_error_not_a_crash(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    """git lists the name with a surrogate escape; every output shows its byte as \\xff."""
    content = (FIXTURES / MPT).read_text("utf-8")
    pull = make_pull(tmp_path, {"data/benchmarks/bad\udcff.json": content})
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    run = run_action(tmp_path, pull, gh)  # asserts no traceback

    assert run.code == 1
    body = gh.comments_on(PR)[0].body
    assert "data/benchmarks/bad\\\\xff.json" in body  # markdown escapes the \
    assert "the file name is not UTF-8; rename it to be checked" in body
    assert gh.statuses[pull.head][-1]["state"] == "failure"


def test_a_pin_under_an_id_no_record_has_fails_the_pr_and_says_which(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    cfg = (FIXTURES / ".roofbot.yml").read_text("utf-8")
    typo = cfg.replace("  comm-mi50-8x-gpt-oss-120b-mxfp4-decode-collapse:\n",
                       "  comm-mi50-8x-gpt-oss-120b-mxfp4-decode-colapse:\n")  # fmt: skip
    assert typo != cfg
    pull = make_pull(tmp_path, {".roofbot.yml": typo})
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    run = run_action(tmp_path, pull, gh)
    assert run.code == 1
    assert gh.statuses[pull.head][-1]["state"] == "failure"
    body = gh.comments_on(PR)[0].body.replace("\\", "")
    assert "comm-mi50-8x-gpt-oss-120b-mxfp4-decode-colapse' is not the id of any benchmark" in body
    assert "did you mean comm-mi50-8x-gpt-oss-120b-mxfp4-decode-collapse" in body
