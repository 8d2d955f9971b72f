"""Every path by which a pull request could turn the required check green while it adds a
violation, each run through `roofbot pr` end to end (a real git repository, the real
pull_request payload, the loopback GitHub): everything roofbot reads, and everything that tells
it how to read, is the instrument, and the instrument comes from the base branch."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from github_server import FakeGitHub
from prkit import FIXTURES, MPT, PR, Pull, git, make_pull, run_action

from roofbot.render.markdown.context import MARKER

CONFIG = ".roofbot.yml"
SCHEMA = "schemas/benchmark.schema.json"


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server
    assert not server.errors, server.errors


def _config() -> str:
    return (FIXTURES / CONFIG).read_text("utf-8")


def _record(rid: str, value: float = 1111.0, **fields: Any) -> str:
    """The MPT-7B batch-1 record under another id (its roof is 1555 GB/s / 13.4 GB of fp16
    weights = 116.0 tok/s without the calibration's pins: 1111 tok/s is about 958%)."""
    data: dict[str, Any] = json.loads((FIXTURES / MPT).read_text("utf-8"))
    data.update(id=rid, value=value, accelerator_ids=["nvidia-a100-40gb-sxm4"])
    data.update(fields)
    return json.dumps(data, indent=2) + "\n"


def _run(tmp: Path, gh: FakeGitHub, edit: dict[str, str | bytes | None]) -> tuple[Pull, Any]:
    pull = make_pull(tmp, edit)
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    return pull, run_action(tmp, pull, gh)


def _final(gh: FakeGitHub, sha: str) -> dict[str, Any]:
    status: dict[str, Any] = gh.statuses[sha][-1]
    return status


def _sticky(gh: FakeGitHub) -> str:
    (body,) = [c.body for c in gh.comments_on(PR) if c.body.startswith(MARKER)]
    return body


def test_a_pr_that_widens_the_records_glob_is_checked_in_the_new_folder(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    config = _config().replace(
        'records: ["data/benchmarks/*.json"]',
        'records: ["data/benchmarks/*.json", "data/more/*.json"]',
    )
    pull, run = _run(tmp_path, gh, {CONFIG: config, "data/more/far-over.json": _record("far-over")})
    assert run.code == 1, run.stdout
    final = _final(gh, pull.head)
    assert final["state"] == "failure", final
    body = _sticky(gh)
    assert "far-over" in body and "violation" in body
    assert "nothing to check" not in body
    # the glob change itself is listed as a change of the instrument
    assert (
        "| setting | records | data/benchmarks/\\*.json | data/benchmarks/\\*.json, data/more/\\*.json |"
        in body
    )


def test_a_pr_that_relaxes_fail_on_is_held_for_a_maintainer(tmp_path: Path, gh: FakeGitHub) -> None:
    config = _config().replace("fail_on: [violation, error]", "fail_on: [error]")
    pull, run = _run(tmp_path, gh, {CONFIG: config})
    assert run.code == 1, run.stdout
    final = _final(gh, pull.head)
    assert final["state"] == "failure", final
    assert "maintainer must approve" in final["description"]
    body = _sticky(gh)
    assert "fail\\_on" in body and "/roofcheck approve" in body
    assert "nothing to check" not in body


@pytest.mark.parametrize("key", ["deprecated_fail: true", "traps: {moe-total-vs-active: x}"])
def test_every_key_of_the_configuration_is_held(tmp_path: Path, gh: FakeGitHub, key: str) -> None:
    name, _, _ = key.partition(":")
    text = _config()
    lines = [line for line in text.splitlines() if not line.startswith(name + ":")]
    pull, run = _run(tmp_path, gh, {CONFIG: "\n".join(lines) + f"\n{key}\n"})
    assert _final(gh, pull.head)["state"] == "failure", run.stdout
    assert "maintainer must approve" in _final(gh, pull.head)["description"]


def test_a_pr_that_edits_a_schema_is_held_and_never_nothing_to_check(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    schema = json.loads((FIXTURES / SCHEMA).read_text("utf-8"))
    schema["additionalProperties"] = True
    pull, run = _run(tmp_path, gh, {SCHEMA: json.dumps(schema, indent=2) + "\n"})
    assert run.code == 1, run.stdout
    final = _final(gh, pull.head)
    assert final["state"] == "failure", final
    assert "maintainer must approve" in final["description"]
    body = _sticky(gh)
    assert "schemas/benchmark.schema.json" in body
    assert "nothing to check" not in body


@pytest.mark.parametrize("unit", [None, "", "tk/s"])
def test_a_token_rate_record_whose_unit_says_nothing_is_an_error(
    tmp_path: Path, gh: FakeGitHub, unit: str | None
) -> None:
    new = "data/benchmarks/unit-less.json"
    pull, run = _run(tmp_path, gh, {new: _record("unit-less", unit=unit)})
    assert run.code == 1, run.stdout
    final = _final(gh, pull.head)
    assert final["state"] == "failure", final
    assert "1 error" in final["description"]
    assert "unit" in _sticky(gh)


def test_a_unit_recognised_as_something_else_is_still_skipped(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    new = "data/benchmarks/flops-filed.json"
    pull, run = _run(tmp_path, gh, {new: _record("flops-filed", unit="TFLOPS FP16")})
    assert run.code == 0, run.stdout
    assert _final(gh, pull.head)["state"] == "success"


def test_a_new_record_cannot_call_itself_deprecated(tmp_path: Path, gh: FakeGitHub) -> None:
    new = "data/benchmarks/self-deprecated.json"
    pull, run = _run(tmp_path, gh, {new: _record("self-deprecated", status="deprecated")})
    assert run.code == 1, run.stdout
    final = _final(gh, pull.head)
    assert final["state"] == "failure", final
    assert "violation" in final["description"]


def test_a_record_deprecated_on_the_base_stays_reported_apart(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    path = "data/benchmarks/local-rtx-pro-6000-70b-q8-decode.json"
    data = json.loads((FIXTURES / path).read_text("utf-8"))
    assert data["status"] == "deprecated"
    data["notes"] = str(data.get("notes") or "") + " Touched."
    pull, run = _run(tmp_path, gh, {path: json.dumps(data, indent=2) + "\n"})
    assert run.code == 0, run.stdout
    assert _final(gh, pull.head)["state"] == "success"


@pytest.mark.parametrize("move", [False, True])
def test_deleting_or_moving_a_calibration_record_holds_the_run(
    tmp_path: Path, gh: FakeGitHub, move: bool
) -> None:
    edit: dict[str, str | bytes | None] = {MPT: None}
    if move:
        edit["data/archive/mpt7b-a100-bs1-per-user-decode-tps.json"] = (FIXTURES / MPT).read_text(
            "utf-8"
        )
    pull, run = _run(tmp_path, gh, edit)
    assert run.code == 1, run.stdout
    final = _final(gh, pull.head)
    assert final["state"] == "failure", final
    body = _sticky(gh)
    assert "nothing to check" not in body
    assert "mpt7b-a100-bs1-per-user-decode-tps" in body
    assert "calibration" in body.lower()


def test_calibration_runs_on_a_pr_that_changes_only_a_gotcha(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    gotcha = "data/gotchas/bench-tok-s-derived-from-memory-bandwidth-is-not-a-benchmark.json"
    data = json.loads((FIXTURES / gotcha).read_text("utf-8"))
    data["notes"] = str(data.get("notes") or "") + " More."
    pull, run = _run(tmp_path, gh, {gotcha: json.dumps(data, indent=2) + "\n"})
    assert run.code == 0, run.stdout
    final = _final(gh, pull.head)
    assert final["state"] == "success"
    assert "calibration ok" in final["description"]
    assert "nothing to check" not in _sticky(gh)


def test_a_pr_that_changes_nothing_roofbot_reads_posts_no_comment(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    pull, run = _run(tmp_path, gh, {"README.md": "docs only\n"})
    assert run.code == 0, run.stdout
    assert _final(gh, pull.head)["state"] == "success"
    assert gh.comments_on(PR) == []


def test_an_earlier_comment_is_updated_when_the_pr_no_longer_changes_a_record(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    old = gh.add_comment(PR, MARKER + "\n### ❌ roofcheck: 1 violation\n", login=gh.bot_login)
    _pull, run = _run(tmp_path, gh, {"README.md": "docs only\n"})
    assert run.code == 0, run.stdout
    (comment,) = gh.comments_on(PR)
    assert comment.id == old.id
    assert "1 violation" not in comment.body and "✅" in comment.body.splitlines()[1]


def test_an_invalid_pr_configuration_is_the_first_thing_the_comment_says(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    pull, run = _run(tmp_path, gh, {CONFIG: _config() + "\nno_such_key: 1\n"})
    assert run.code == 1, run.stdout
    assert _final(gh, pull.head)["state"] == "failure"
    body = _sticky(gh)
    headline = next(line for line in body.splitlines()[1:] if line.strip())
    assert "✅" not in headline
    assert ".roofbot.yml" in headline, headline


def test_the_base_commits_schemas_judge_whatever_the_workspace_holds(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    """On `pull_request` the workspace may hold the PR's own files (the merge commit): a schema
    the PR loosens there must not judge the record it adds."""
    schema = json.loads((FIXTURES / SCHEMA).read_text("utf-8"))
    schema["additionalProperties"] = True
    record = json.loads(_record("extra-field", value=50.0))
    record["my_own_field"] = "the base's schema forbids this"
    new = "data/benchmarks/extra-field.json"
    pull = make_pull(tmp_path, {SCHEMA: json.dumps(schema, indent=2) + "\n",
                                new: json.dumps(record, indent=2) + "\n"})  # fmt: skip
    git(pull.repo, "checkout", "-q", pull.head)  # the PR's files in the workspace
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    run = run_action(tmp_path, pull, gh)
    assert run.code == 1, run.stdout
    body = _sticky(gh)
    assert "extra-field" in body and "my\\_own\\_field" in body
    report = json.loads(Path(run.outputs["report-path"]).read_text("utf-8"))
    (row,) = [r for r in report["records"] if r["id"] == "extra-field"]
    assert row["verdict"] == "error"
