"""Issue 19, section 1: the instrument belongs to the base branch. Each test is a pull request
run through `roofbot pr` end to end (a real git repository, the real pull_request payload, the
loopback GitHub) that turned the status green on today's code before this change."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from github_server import FakeGitHub
from prkit import (
    FIXTURES,
    MPT,
    PR,
    Pull,
    comment_event,
    git,
    make_pull,
    run_action,
    run_roofbot,
)

from roofbot.render.markdown.context import MARKER

CONFIG = ".roofbot.yml"
RTX4090 = "data/accelerators/nvidia-rtx-4090.json"
SOURCE = "data/benchmarks/comm-5090-wsl2-qwen3-14b-awq-decode-tok-s.json"
NEW = "data/benchmarks/new-4090-qwen3-14b-awq-decode.json"
HELD = "changes the instrument: a maintainer must approve"


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server
    assert not server.errors, server.errors


def _json(path: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / path).read_text("utf-8"))
    return data


def _dump(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2) + "\n"


def _config() -> str:
    return (FIXTURES / CONFIG).read_text("utf-8")


def _final(gh: FakeGitHub, sha: str) -> dict[str, Any]:
    status: dict[str, Any] = gh.statuses[sha][-1]
    return status


def _sticky(gh: FakeGitHub) -> str:
    (body,) = [c.body for c in gh.comments_on(PR) if c.user_login == gh.bot_login
               and c.body.startswith(MARKER)]  # fmt: skip
    return body


def _run(tmp: Path, gh: FakeGitHub, edit: dict[str, str | bytes | None]) -> tuple[Pull, Any]:
    pull = make_pull(tmp, edit)
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    return pull, run_action(tmp, pull, gh)


def _calibration_record_at(percent: float) -> str:
    data = _json(MPT)  # roof 111.07 tok/s under the base's pins (14 GB on 1555 GB/s)
    data["value"] = round(111.07 * percent / 100, 2)
    return _dump(data)


def test_a_pr_cannot_loosen_the_calibration_pins_or_tolerance(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    config = re.sub(r"weight_bytes: 14 GB[^\n]*", "weight_bytes: 4 GB",
                    _config().replace("tolerance_pp: 0.1", "tolerance_pp: 1000"), count=1)  # fmt: skip
    assert "4 GB" in config and "1000" in config
    pull, run = _run(tmp_path, gh, {MPT: _calibration_record_at(270), CONFIG: config})
    assert run.code == 1, run.stdout
    final = _final(gh, pull.head)
    assert final["state"] == "failure", final
    assert "calibration BROKEN" in final["description"]
    body = _sticky(gh)
    assert "tolerance 0.1 pp" in body  # the base's tolerance judged it
    assert "| pin | mpt7b-a100-bs1-per-user-decode-tps: weight\\_bytes | 14 GB | 4 GB |" in body
    assert "**Not applied**" in body
    assert "270%" in body


def test_a_pr_cannot_drop_the_calibration_set(tmp_path: Path, gh: FakeGitHub) -> None:
    start = _config().index("calibration:")
    end = _config().index("# Inputs a record cannot carry")
    config = _config()[:start] + "calibration: null\n\n" + _config()[end:]
    pull, _ = _run(tmp_path, gh, {MPT: _calibration_record_at(270), CONFIG: config})
    assert _final(gh, pull.head)["state"] == "failure"
    assert "**The calibration set no longer reproduces**" in _sticky(gh)


def _new_4090_record(percent_of_base_roof: float) -> str:
    data = _json(SOURCE)  # AWQ Qwen3-14B: 7.0 GB of weights; on a 4090 (1008 GB/s) 144 tok/s
    data.update(id="new-4090-qwen3-14b-awq-decode", accelerator_ids=["nvidia-rtx-4090"],
                name="Qwen3-14B AWQ under vLLM on one 24GB card",
                methodology="vLLM serving Qwen/Qwen3-14B-AWQ on one RTX 4090 with 24GB GDDR6X, batch 1.")  # fmt: skip
    data["value"] = round(144.0 * percent_of_base_roof / 100, 1)
    return _dump(data)


def _faster_4090(factor: float) -> str:
    data = _json(RTX4090)
    data["memory_bandwidth_gbps"] = data["memory_bandwidth_gbps"] * factor
    return _dump(data)


def test_a_record_that_passes_only_on_its_edited_part_is_held(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    pull, run = _run(tmp_path, gh, {NEW: _new_4090_record(348), RTX4090: _faster_4090(10)})
    assert run.code == 1, run.stdout
    final = _final(gh, pull.head)
    assert (final["state"], final["description"]) == ("failure", HELD)
    body = _sticky(gh)
    assert "| accelerators/nvidia-rtx-4090 | memory\\_bandwidth\\_gbps | 1008 | 10080 |" in body
    assert "**Checked under both instruments:**" in body
    assert body.index("**A maintainer must approve**") < body.index("<details>")  # first screen
    row = [line for line in body.splitlines() if "[new-4090-qwen3-14b-awq" in line]
    assert row and "(🟥 348% under the base branch's instrument" in row[0], row
    assert "new → ✅ 34.8%" in row[0], row
    assert "held: passes only under this pull request's instrument" in row[0]
    assert "/roofcheck approve" in body


def test_a_catalogue_edit_that_changes_no_verdict_is_not_held(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    pull, run = _run(tmp_path, gh, {NEW: _new_4090_record(50), RTX4090: _faster_4090(1.01)})
    assert run.code == 0, run.stdout
    assert _final(gh, pull.head)["state"] == "success"
    assert "**Checked under both instruments:**" in _sticky(gh)


def _approve(tmp: Path, gh: FakeGitHub, pull: Pull, login: str, association: str) -> Any:
    text = f"/roofcheck approve {pull.head[:7]}"
    command = gh.add_comment(PR, text, login=login, author_association=association)
    payload = comment_event(gh, text, comment_id=command.id)
    payload["comment"]["user"]["login"] = login
    payload["comment"]["author_association"] = association
    return run_roofbot(tmp, pull.repo, gh, "issue_comment", payload)


def test_approve_accepts_the_instrument_of_this_head_only(tmp_path: Path, gh: FakeGitHub) -> None:
    pull, _ = _run(tmp_path, gh, {NEW: _new_4090_record(348), RTX4090: _faster_4090(10)})
    assert _final(gh, pull.head)["description"] == HELD
    # a triage collaborator can't approve
    gh.set_permission("triager", "triage")
    _approve(tmp_path, gh, pull, "triager", "COLLABORATOR")
    assert _final(gh, pull.head)["description"] == HELD
    # a maintainer can
    gh.set_permission("maint", "maintain")
    run = _approve(tmp_path, gh, pull, "maint", "MEMBER")
    assert run.code == 0, run.stdout
    final = _final(gh, pull.head)
    assert final["state"] == "success" and "approved by maint" in final["description"]
    body = _sticky(gh)
    assert "roofbot:approved" not in body  # the approval is read from its comment, every run
    assert "were approved by maint" in body
    # the synchronize run of the same head keeps the approval
    run_action(tmp_path, pull, gh)
    assert _final(gh, pull.head)["state"] == "success"
    # a new push needs a new approval
    git(pull.repo, "checkout", "-q", "pr")
    (pull.repo / "README.md").write_text("one more commit\n", "utf-8")
    git(pull.repo, "add", "-A")
    git(pull.repo, "commit", "-qm", "more")
    pushed = Pull(pull.repo, pull.base, git(pull.repo, "rev-parse", "HEAD"))
    git(pull.repo, "checkout", "-q", "main")
    gh.pulls[PR].head_sha = pushed.head
    run_action(tmp_path, pushed, gh)
    assert _final(gh, pushed.head)["description"] == HELD
    assert "roofbot:approved" not in _sticky(gh)


def _new_part() -> str:
    data = _json(RTX4090)
    data.update(id="acme-x1", name="Acme X1", memory_bandwidth_gbps=50000)
    return _dump(data)


def test_a_record_on_a_part_the_pr_adds_is_held_and_the_part_shown(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    record = json.loads(_new_4090_record(348))
    record.update(id="acme-record", accelerator_ids=["acme-x1"])
    pull, run = _run(tmp_path, gh, {"data/accelerators/acme-x1.json": _new_part(),
                                    "data/benchmarks/acme-record.json": _dump(record)})  # fmt: skip
    assert run.code == 1, run.stdout
    final = _final(gh, pull.head)
    assert final["state"] == "failure"
    assert "acme-x1" in final["description"] and "maintainer must approve" in final["description"]
    body = _sticky(gh)
    assert "#### New catalogue records" in body
    row = [line for line in body.splitlines() if line.startswith("| accelerators | acme-x1 |")]
    assert (
        row and "memory\\_bandwidth\\_gbps 50000" in row[0] and "dense fp16 TFLOPS 165.2" in row[0]
    )


def test_a_pr_may_pin_only_the_records_it_adds(tmp_path: Path, gh: FakeGitHub) -> None:
    record = json.loads(_new_4090_record(348))
    record.update(id="new-pinned")
    config = _config().replace("\ntraps: {}", (
        "  new-pinned:\n"
        "    weight_bytes: 0.7 GB  # a pin that makes a violation pass\n"
        "\ntraps: {}"
    ))  # fmt: skip
    pull, run = _run(tmp_path, gh, {"data/benchmarks/new-pinned.json": _dump(record),
                                    CONFIG: config})  # fmt: skip
    body = _sticky(gh)
    assert "Pins from this pull request (records it adds): new-pinned" in body
    assert re.search(r"\[new-pinned\]\(\S+\) \(pinned\)", body)  # the id links its file
    assert "**Not applied**" not in body
    # checked twice: without the PR's pin it is a violation, so it is held
    assert _final(gh, pull.head)["description"] == HELD, run.stdout
    row = [line for line in body.splitlines() if "[new-pinned](" in line]
    assert row and "(🟥 348% under the base branch's instrument" in row[0], row
    assert "→ ✅ 34.8%" in row[0], row
