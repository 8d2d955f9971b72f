"""A finding belongs to the pull request, to the base, or to both. Each test is a realistic
branch of a copy of the users' records repository (a real git repository: the copy committed on
`main`, the change on `pr`), judged by `roofbot preview`, `roofbot pr` against the loopback
GitHub, or `roofbot check --changed` as the pre-commit hook runs it. The repository carries
problems of its own (catalogue files that predate a schema requirement, draft records over their
roofs): a pull request is red only for what it brings."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from github_server import FakeGitHub
from prkit import PR, ROOT, Pull, comment_event, git, run_action, run_roofbot

SHARED = ROOT.parent / "shared"
RECORDS = SHARED / "records-repo"
UPDATE = SHARED / "records-repo-update" / "data" / "accelerators"
BENCH = "data/benchmarks"
RTX5090_32B = f"{BENCH}/local-rtx-5090-32b-q4-decode.json"
RTX5090 = "data/accelerators/nvidia-rtx-5090.json"
QWEN32B = "data/models/qwen3-32b.json"
A100_80 = "data/accelerators/nvidia-a100-80gb-sxm4.json"
SUSPECT = f"{BENCH}/mi325x-mlperf-v5-0-mangoboost-llama2-70b-offline.json"

pytestmark = pytest.mark.skipif(
    not (RECORDS / "data" / "benchmarks").is_dir(),
    reason=f"the users' records repository is not at {RECORDS}",
)

Edit = Mapping[str, str | None]


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server
    assert not server.errors, server.errors


def _record(path: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((RECORDS / path).read_text("utf-8"))
    return data


def _dump(data: Mapping[str, Any]) -> str:
    return json.dumps(data, indent=2) + "\n"


def _with(path: str, **fields: Any) -> str:
    return _dump({**_record(path), **fields})


def _copy(tmp: Path, base_edit: Edit | None = None) -> Path:
    """The users' repository committed on `main` (plus `base_edit`), checked out."""
    repo = tmp / "records"
    shutil.copytree(RECORDS, repo, ignore=shutil.ignore_patterns(".git"))
    _apply(repo, base_edit or {})
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    return repo


def _apply(repo: Path, edit: Edit) -> None:
    for path, text in edit.items():
        if text is None:
            (repo / path).unlink()
        else:
            (repo / path).parent.mkdir(parents=True, exist_ok=True)
            (repo / path).write_text(text, encoding="utf-8")


def _branch(tmp: Path, edit: Edit, base_edit: Edit | None = None) -> Pull:
    """`edit` committed on `pr` over the users' repository on `main`; `main` checked out."""
    repo = _copy(tmp, base_edit)
    base = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-qb", "pr")
    _apply(repo, edit)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "head")
    head = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "main")
    return Pull(repo, base, head)


def roofbot(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "PYTHONPATH": str(ROOT), "GIT_CEILING_DIRECTORIES": str(cwd.parent),
            **env}  # fmt: skip
    full.pop("PRE_COMMIT_FROM_REF", None)
    return subprocess.run([sys.executable, "-m", "roofbot", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300, check=False, env=full)  # fmt: skip


def _preview(pull: Pull, tmp: Path) -> tuple[int, str, str]:
    """`roofbot preview` of `pr` into `main`: exit code, comment, status line."""
    out = roofbot("preview", "--base", "main", "--head", "pr", "--out", str(tmp / "comment.md"),
                  cwd=pull.repo)  # fmt: skip
    assert out.returncode in (0, 1), out.stderr
    status = next(ln for ln in out.stderr.splitlines() if "roofcheck:" in ln)
    return out.returncode, (tmp / "comment.md").read_text("utf-8"), status


def _what_to_fix(comment: str) -> str:
    if "**What to fix:**" not in comment:
        return ""
    return comment.split("**What to fix:**", 1)[1].split("\n\n", 2)[1]


def _date_bump() -> dict[str, str | None]:
    """`updated` moved on the first 30 records (among them failing drafts and a suspect)."""
    paths = sorted(p.relative_to(RECORDS).as_posix() for p in (RECORDS / BENCH).glob("*.json"))
    return {p: _with(p, updated="2026-11-01") for p in paths[:30]}


def _a100_record(value: float) -> str:
    data = _record(RTX5090_32B)
    data.update(
        id="local-a100-80gb-32b-q4-decode",
        name="A100 80GB: Qwen3 32B Q4_K_M decode tokens/sec",
        accelerator_ids=["nvidia-a100-80gb-sxm4"],
        value=value,
        methodology="llama.cpp CUDA backend, batch size 1, 512 token prompt, 128 token output, "
        "Q4_K_M quantization, one A100 80GB SXM4",
        notes="One A100 80GB SXM4.",
    )
    return _dump(data)


NEW_A100 = f"{BENCH}/local-a100-80gb-32b-q4-decode.json"


# --- a pull request is red only for what it brings ------------------------------------------


def test_a_one_record_edit_that_keeps_a_pass_is_green(tmp_path: Path) -> None:
    # before: "failure: 3 checked: 2 error, 1 pass", the record's two invalid catalogue files
    # listed as new and sent to "What to fix"
    pull = _branch(tmp_path, {RTX5090_32B: _with(RTX5090_32B, value=84.0)})
    code, comment, status = _preview(pull, tmp_path)
    assert code == 0, status
    assert "roofcheck: success: 3 checked: 2 error, 1 pass (2 already on main)" in status
    assert "🆕" not in comment and "| new |" not in comment
    assert "Already on the base branch: 2 invalid catalogue files" in comment
    assert "| ✅ 92.9% → ✅ 91.8% | memory roof 91.53 tok/s | `value` 85 → 84 |" in comment
    assert "(2 with findings already on the base branch)" in comment
    assert "nvidia-rtx-5090" not in _what_to_fix(comment)
    assert "**What to fix:**" not in comment
    # the pre-commit hook's JSON report agrees: ok, and which findings are the base's
    git(pull.repo, "checkout", "-q", "pr", "--", ".")
    out = roofbot("check", "--changed", RTX5090_32B, "--format", "json", cwd=pull.repo)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["ok"] is True
    assert report["already_on_base"] == [RTX5090, QWEN32B]


def test_a_30_record_date_bump_is_green_and_its_counts_agree(tmp_path: Path) -> None:
    # before: "failure: 34 checked: 4 error, ..." under "🔺 0 made worse"
    pull = _branch(tmp_path, _date_bump())
    code, comment, status = _preview(pull, tmp_path)
    assert code == 0, status
    assert "roofcheck: success" in status and "already on main" in status
    assert "🆕" not in comment and "→ **" not in comment  # nothing made worse, nothing new
    assert "(28 not moved by this PR; 6 with findings already on the base branch)" in comment
    assert "### ✅ roofcheck: 18 records pass" in comment
    assert "Already on the base branch: " in comment


def test_a_new_passing_record_on_a_part_invalid_on_main_gets_a_warning_not_an_error(
    tmp_path: Path,
) -> None:
    # before: "failure: 3 checked: 2 error, 1 pass" (the A100 80GB's file is invalid on main)
    pull = _branch(tmp_path, {NEW_A100: _a100_record(40.0)})
    code, comment, status = _preview(pull, tmp_path)
    assert code == 0, status
    assert "local-a100-80gb-32b-q4-decode" in comment
    assert f"warning: rests on {A100_80}, which is invalid" in comment.replace("\\_", "_")
    assert "Already on the base branch: 2 invalid catalogue files" in comment
    assert "**What to fix:**" not in comment


def test_a_record_raised_past_its_roof_is_red_for_that_record_only(tmp_path: Path) -> None:
    pull = _branch(tmp_path, {RTX5090_32B: _with(RTX5090_32B, value=200.0)})
    code, comment, status = _preview(pull, tmp_path)
    assert code == 1
    assert "roofcheck: failure: 3 checked: 2 error, 1 violation (2 already on main)" in status
    assert "| ✅ 92.9% → **🟥 218%** |" in comment  # made worse, in bold
    fix = _what_to_fix(comment)
    assert "local-rtx-5090-32b-q4-decode" in fix
    assert "nvidia-rtx-5090.json" not in fix and "qwen3-32b" not in fix
    headline = comment.splitlines()[1]
    assert "local-rtx-5090-32b-q4-decode" in headline and "more failing" not in headline


def test_a_violation_made_worse_is_red_even_with_the_same_verdict(tmp_path: Path) -> None:
    draft = f"{BENCH}/local-rtx-pro-6000-70b-q8-decode.json"  # a violation on main (230%)
    pull = _branch(tmp_path, {draft: _with(draft, value=60.0)})
    code, comment, status = _preview(pull, tmp_path)
    assert code == 1, status
    assert "| 🟥 230% → **🟥 251%** |" in comment  # the same verdict, a higher percent
    assert "local-rtx-pro-6000-70b-q8-decode" in _what_to_fix(comment)
    # the same record left at its percent (a date bump) is the base's finding
    pull = _branch(tmp_path / "same", {draft: _with(draft, updated="2026-11-02")})
    code, comment, status = _preview(pull, tmp_path / "same")
    assert code == 0, status
    assert "1 violation" in comment.split("Already on the base branch: ", 1)[1]


def test_an_invalid_catalogue_file_the_pr_edits_is_the_prs(tmp_path: Path) -> None:
    pull = _branch(tmp_path, {RTX5090: _with(RTX5090, updated="2026-11-01")})
    code, comment, status = _preview(pull, tmp_path)
    assert code == 1, status
    assert "nvidia-rtx-5090" in _what_to_fix(comment)
    assert "| ❗ error → **❗ error** | – | edited by this PR" in comment


def test_a_catalogue_file_the_pr_makes_invalid_is_introduced(tmp_path: Path) -> None:
    valid = "data/accelerators/nvidia-rtx-4090.json"
    data = _record(valid)
    data["unexpected_field"] = 1
    pull = _branch(tmp_path, {valid: _dump(data)})
    code, comment, status = _preview(pull, tmp_path)
    assert code == 1, status
    assert "nvidia-rtx-4090" in _what_to_fix(comment)


@pytest.mark.parametrize("how", ["config", "input"])
def test_fail_on_existing_restores_the_strict_behaviour(
    tmp_path: Path, gh: FakeGitHub, how: str
) -> None:
    edit = {RTX5090_32B: _with(RTX5090_32B, value=84.0)}
    if how == "config":  # read from the base, like every other key
        pull = _branch(tmp_path, edit, base_edit={".roofbot.yml": "fail_on_existing: true\n"})
        code, _, status = _preview(pull, tmp_path)
        assert code == 1 and "failure: 3 checked: 2 error, 1 pass;" in status
        # the PR's own `.roofbot.yml` can't turn it off
        edit = {**edit, ".roofbot.yml": "fail_on_existing: false\n"}
        pull = _branch(
            tmp_path / "pr", edit, base_edit={".roofbot.yml": "fail_on_existing: true\n"}
        )
        code, _, status = _preview(pull, tmp_path / "pr")
        assert code == 1, status
        return
    pull = _branch(tmp_path, edit)
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    run = run_action(tmp_path, pull, gh, INPUT_FAIL_ON_EXISTING="false")
    assert run.code == 0 and gh.statuses[pull.head][-1]["state"] == "success"
    run = run_action(tmp_path, pull, gh, INPUT_FAIL_ON_EXISTING="true")
    assert run.code == 1
    assert gh.statuses[pull.head][-1]["state"] == "failure"


# --- suspects the PR brings are held ---------------------------------------------------------


def test_a_suspect_the_pr_adds_is_held_until_approved(tmp_path: Path, gh: FakeGitHub) -> None:
    new = f"{BENCH}/mi325x-mlperf-copy-offline.json"
    pull = _branch(tmp_path, {new: _with(SUSPECT, id="mi325x-mlperf-copy-offline")})
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    run = run_action(tmp_path, pull, gh)
    final = gh.statuses[pull.head][-1]
    assert run.code == 1 and final["state"] == "failure"
    assert final["description"].startswith("held: 1 suspect record this PR adds or changes")
    body = gh.comments_on(PR)[0].body
    assert "**Held**: 1 suspect record this pull request adds or changes" in body
    # a maintainer accepts it for this head
    gh.set_permission("maint", "maintain")
    text = f"/roofcheck approve {pull.head[:12]}"  # an approval names the head it approves
    command = gh.add_comment(PR, text, login="maint", author_association="MEMBER")
    payload = comment_event(gh, text, comment_id=command.id)
    payload["comment"]["user"]["login"] = "maint"
    payload["comment"]["author_association"] = "MEMBER"
    run = run_roofbot(tmp_path, pull.repo, gh, "issue_comment", payload)
    final = gh.statuses[pull.head][-1]
    assert run.code == 0, run.stdout
    assert final["state"] == "success" and "suspects approved by maint" in final["description"]


def test_a_suspect_already_on_main_only_warns(tmp_path: Path) -> None:
    pull = _branch(tmp_path, {SUSPECT: _with(SUSPECT, updated="2026-11-03")})
    code, comment, status = _preview(pull, tmp_path)
    assert code == 0, status
    assert "Already on the base branch: 1 suspect" in comment
    assert "**Held**" not in comment


def test_a_suspect_record_that_states_its_input_is_not_held(tmp_path: Path) -> None:
    new = f"{BENCH}/mi325x-mlperf-copy-offline.json"
    data = _record(SUSPECT)
    data["id"] = "mi325x-mlperf-copy-offline"
    data["methodology"] = (
        "AGGREGATE over 32x MI300X (4 nodes of 8 GPUs each), MLPerf Inference v5.0 Llama 2 70B "
        "Offline scenario."
    )
    pull = _branch(tmp_path, {new: _dump(data)})
    code, comment, status = _preview(pull, tmp_path)
    assert "**Held**" not in comment, status
    assert code == 0, status


# --- the real catalogue pull request ---------------------------------------------------------


@pytest.mark.skipif(not UPDATE.is_dir(), reason=f"no catalogue update at {UPDATE}")
def test_the_real_catalogue_update_is_green_and_says_what_it_fixed_and_moved(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    update = {f"data/accelerators/{p.name}": p.read_text("utf-8") for p in UPDATE.glob("*.json")}
    assert len(update) == 21
    pull = _branch(tmp_path, update)
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    run = run_action(tmp_path, pull, gh, INPUT_REVIEW="off")
    final = gh.statuses[pull.head][-1]
    assert run.code == 0, run.stdout
    assert final["state"] == "success" and "(8 already on master)" in final["description"]
    body = gh.comments_on(PR)[0].body
    assert body.splitlines()[1].startswith("### ✅ roofcheck: ")
    # the files it makes valid are fixed, the base's own problems are not the PR's
    invalid_before = _invalid_files(pull, "main")
    fixed = sorted(p for p in update if p in invalid_before)
    assert f"fixed by this pull request: {len(fixed)} invalid catalogue files" in body
    assert all(p.rsplit("/", 1)[1].removesuffix(".json") in body for p in fixed)
    existing = body.split("Already on the base branch: ", 1)[1].split("</summary>", 1)[0]
    assert "4 violations" in existing and "1 invalid catalogue file" in existing
    # before -> after: B200's bandwidth 8000 -> 7700 moves its records up, and says why
    row = next(ln for ln in body.splitlines() if "| [trtllm-llama33-70b-fp4-b200-tp1-tps]" in ln)
    assert "✅ 9.49% → **✅ 10.5%**" in row  # higher: in bold, though it passes
    assert "`memory_bandwidth_gbps` 8000 → 7700 in [nvidia-b200]" in row
    # held: nothing (every record the edit moves passes under both catalogues), and the
    # check-twice says so
    assert "**Checked under both instruments:**" in body
    assert "A maintainer must approve" not in body and "**Held**" not in body
    assert "🆕" not in body and "| new |" not in body


def _invalid_files(pull: Pull, ref: str) -> set[str]:
    """The catalogue files that fail the repository's schemas at `ref` (a sweep's rows)."""
    git(pull.repo, "checkout", "-q", ref)
    out = roofbot("check", "--format", "json", "--no-calibration", cwd=pull.repo)
    report = json.loads(out.stdout)
    return {r["path"] for r in report["records"] if not r["path"].startswith(BENCH)}


# --- the same judgement in check --changed, preview and pr ----------------------------------


CASES: dict[str, tuple[Edit, bool]] = {
    "edit keeps a pass": ({RTX5090_32B: _with(RTX5090_32B, value=84.0)}, True),
    "raised past its roof": ({RTX5090_32B: _with(RTX5090_32B, value=200.0)}, False),
    "new record on an A100": ({NEW_A100: _a100_record(40.0)}, True),
    "invalid catalogue file edited": ({RTX5090: _with(RTX5090, updated="2026-11-01")}, False),
    "a new suspect record (held)": (
        {f"{BENCH}/mi325x-copy.json": _with(SUSPECT, id="mi325x-copy")},
        False,
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_check_changed_preview_and_pr_decide_the_same_change_the_same_way(
    tmp_path: Path, gh: FakeGitHub, case: str
) -> None:
    edit, green = CASES[case]
    repo = _copy(tmp_path)
    # the contributor's working tree, uncommitted: the pre-commit hook, and preview of HEAD
    _apply(repo, edit)
    git(repo, "add", "-A")
    hook = roofbot("check", "--changed", *edit, "--no-calibration", "-q", cwd=repo)
    assert hook.returncode in (0, 1), hook.stderr
    local = roofbot("preview", "--out", str(tmp_path / "local.md"), cwd=repo)
    assert "includes the uncommitted changes to 1 file" in local.stderr
    # the same change, pushed: `roofbot pr` against the loopback GitHub
    git(repo, "checkout", "-qb", "pr")
    git(repo, "commit", "-qm", "head")
    head = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "main")
    pull = Pull(repo, git(repo, "rev-parse", "main"), head)
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    run = run_action(tmp_path, pull, gh, INPUT_REVIEW="off")
    state = gh.statuses[pull.head][-1]["state"]
    decisions = {
        "check --changed": hook.returncode == 0,
        "preview": local.returncode == 0,
        "pr": run.code == 0 and state == "success",
    }
    assert decisions == dict.fromkeys(decisions, green), (hook.stdout, local.stderr)
    assert (tmp_path / "local.md").read_text("utf-8").splitlines()[1] == (
        gh.comments_on(PR)[0].body.splitlines()[1]
    )


def test_preview_says_when_base_and_head_are_the_same_commit(tmp_path: Path) -> None:
    repo = _copy(tmp_path)
    out = roofbot("preview", cwd=repo)
    assert out.returncode == 0
    assert "main and HEAD are the same commit" in out.stderr
    # an uncommitted change to a file roofbot does not read is not part of the head
    (repo / "README.md").write_text("more docs\n", "utf-8")
    out = roofbot("preview", cwd=repo)
    assert "main and HEAD are the same commit" in out.stderr
    assert "uncommitted" not in out.stderr
