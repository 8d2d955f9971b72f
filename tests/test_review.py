"""The review a maintainer decides from, end to end: before and after, what to fix, the
findings on their diff lines as one pull-request review, and the API requests each event costs,
against the loopback GitHub of tests/github_server.py (reviews answered as GitHub's REST
description has them). Golden comments: tests/golden/review-*.md (ROOFBOT_UPDATE_GOLDEN=1
rewrites them)."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from github_server import FakeGitHub, FileState, diff_positions
from prkit import (
    A100,
    FIXTURES,
    MPT,
    PR,
    Pull,
    Run,
    drop_head,
    git,
    make_pull,
    run_action,
    violating_copy,
)

from roofbot.action.review import Existing, diff_lines, plan, split_patches
from roofbot.adapters.repo import Repository
from roofbot.core.results import Calibration, Report, Verdict
from roofbot.engine import run_check

GOLDEN = Path(__file__).resolve().parent / "golden"
TODAY_MAX = 5  # status x2, list + create the sticky comment, (+ files in API mode)
REVIEW_MAX = 3


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server
    assert not server.errors, server.errors


def golden(name: str, text: str, pull: Pull) -> None:
    """`text` with the run's commit SHAs put to fixed names, against its golden file."""
    text = text.replace(pull.head, "HEAD_SHA").replace(pull.base, "BASE_SHA")
    path = GOLDEN / name
    if os.environ.get("ROOFBOT_UPDATE_GOLDEN") or not path.exists():
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{name} differs from its golden file"


def open_pull(gh: FakeGitHub, pull: Pull) -> None:
    """The PR on the loopback server, each file with the patch git gives it (GitHub's)."""
    names = git(pull.repo, "diff", "--name-only", f"{pull.base}...{pull.head}").splitlines()
    files = []
    for name in names:
        patch = git(pull.repo, "diff", f"{pull.base}...{pull.head}", "--", name)
        files.append(FileState(name, patch=patch[patch.index("@@") :] if "@@" in patch else None))
    if PR in gh.pulls:
        gh.pulls[PR].head_sha, gh.pulls[PR].base_sha = pull.head, pull.base
        gh.set_files(PR, files)
    else:
        gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base, files=files)


def review_requests(gh: FakeGitHub) -> list[tuple[str, str]]:
    return [(r.method, r.route) for r in gh.requests if re.search(r"/pulls/(\d+/)?(reviews|comments)", r.route)]  # fmt: skip


def with_value(value: float) -> str:
    return violating_copy(value)


def value_line(text: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if '"value"' in line)


# ------------------------------------------------------------------ the plan, pure


PATCH = '@@ -9,4 +9,4 @@\n   "a": 1,\n-  "value": 57.6,\n+  "value": 150.0,\n   "b": 2,\n   "c": 3'


def test_the_diff_lines_are_the_added_and_context_lines_of_the_head() -> None:
    assert diff_lines(PATCH) == frozenset({9, 10, 11, 12})
    assert diff_lines(None) == frozenset()
    # the server takes exactly the lines the planner offers
    assert {line for side, line in diff_positions(PATCH) if side == "RIGHT"} == diff_lines(PATCH)


def test_git_diff_output_is_cut_into_each_file_s_patch() -> None:
    diff = (
        "diff --git a/x.json b/x.json\nindex 1..2 100644\n--- a/x.json\n+++ b/x.json\n"
        + PATCH
        + "\ndiff --git a/y.json b/y.json\nnew file mode 100644\n--- /dev/null\n+++ b/y.json\n"
        "@@ -0,0 +1,2 @@\n+{\n+}\n"
    )
    patches = split_patches(diff)
    assert set(patches) == {"x.json", "y.json"}
    assert diff_lines(patches["y.json"]) == frozenset({1, 2})


def _report(tmp: Path, value: float) -> tuple[Report, str]:
    """The MPT-7B batch-1 record at `value` tok/s, checked in a copy of the fixtures."""
    repo_dir = tmp / f"repo-{value:g}"
    shutil.copytree(FIXTURES, repo_dir, ignore=shutil.ignore_patterns("broken"))
    text = violating_copy(value)
    (repo_dir / MPT).write_text(text, "utf-8")
    return run_check(Repository.open(repo_dir), [MPT], calibration=False), text


def test_a_finding_goes_on_its_value_line_once_and_goes_away_when_it_is_gone(
    tmp_path: Path,
) -> None:
    report, text = _report(tmp_path, 150.0)
    line = value_line(text)
    patch = f'@@ -{line},1 +{line},1 @@\n-  "value": 57.6,\n+  "value": 150.0,'
    first = plan(report, None, {MPT: patch}, lambda _p: text.encode(), [], "bot")
    assert [(c.path, c.line) for c in first.post] == [(MPT, line)]
    body = first.post[0].body
    assert "135% of its memory roof" in body and "**To fix:** check `value`: 150 tok/s" in body
    assert "Arithmetic: `1555 GB/s / 14 GB = 111.07 tok/s`" in body
    posted = [Existing(7, body, "bot", line), Existing(8, body, "octocat", line)]  # 8: a human's
    again = plan(report, None, {MPT: patch}, lambda _p: text.encode(), posted, "bot")
    assert again.post == () and len(again.standing) == 1 and again.delete == ()
    fixed, text2 = _report(tmp_path, 57.6)
    gone = plan(fixed, None, {MPT: patch}, lambda _p: text2.encode(), posted, "bot")
    assert gone.post == () and gone.delete == (7,)
    # an outdated comment (its line gone from the diff) is replaced by one on the line
    outdated = [Existing(7, body, "bot", None)]
    moved = plan(report, None, {MPT: patch}, lambda _p: text.encode(), outdated, "bot")
    assert len(moved.post) == 1 and moved.delete == (7,)


def test_a_line_outside_the_diff_stays_in_the_sticky_comment(tmp_path: Path) -> None:
    report, text = _report(tmp_path, 150.0)
    patch = "@@ -1,1 +1,1 @@\n-{\n+{"  # the PR touched line 1 only
    p = plan(report, None, {MPT: patch}, lambda _p: text.encode(), [], "bot")
    assert p.post == () and p.outside == ("mpt7b-a100-bs1-per-user-decode-tps",)


# ------------------------------------------------------------------ end to end


def run(tmp: Path, gh: FakeGitHub, edit: Mapping[str, str], **env: str) -> tuple[Run, Pull]:
    pull = make_pull(tmp, edit)
    open_pull(gh, pull)
    gh.clear_requests()
    return run_action(tmp, pull, gh, **env), pull


def sticky(gh: FakeGitHub) -> str:
    return next(c.body for c in gh.comments_on(PR) if c.user_login == gh.bot_login)


def test_a_value_raised_shows_before_and_after(tmp_path: Path, gh: FakeGitHub) -> None:
    _, pull = run(tmp_path, gh, {MPT: with_value(100.0)})
    body = sticky(gh)
    assert "| ✅ 51.9% → **✅ 90%** | memory roof 111.1 tok/s | `value` 57.6 → 100 |" in body
    assert gh.review_comments_on(PR) == []  # a pass: nothing on the diff
    golden("review-value-raised.md", body, pull)


def test_a_violation_with_its_fix_in_the_comment_and_on_its_line(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    result, pull = run(tmp_path, gh, {MPT: violating_copy()})
    assert result.code == 1
    body = sticky(gh)
    first_screen = body[: body.index("<details>")]
    assert first_screen.startswith(
        "<!-- roofbot:roofcheck -->\n### ❌ roofcheck: `mpt7b-a100-bs1-per-user-decode-tps`: "
        "150 tok/s is 135% of its 111.1 tok/s memory roof\n"
    )
    assert (
        "| ✅ 51.9% → **🟥 135%** | memory roof 111.1 tok/s | `value` 57.6 → 150 |" in first_screen
    )
    assert "**What to fix:**" in first_screen and "check `value`: 150 tok/s is 135%" in first_screen
    assert "xychart-beta" not in body  # no chart that can't show the roof
    (review,) = gh.reviews_on(PR)
    assert review.state == "COMMENTED" and review.commit_id == pull.head
    (comment,) = gh.review_comments_on(PR)
    assert comment.path == MPT and comment.side == "RIGHT"
    assert comment.line == value_line(violating_copy())
    assert "**To fix:** check `value`: 150 tok/s is 135% of its memory roof" in comment.body
    assert len(gh.requests) <= TODAY_MAX + REVIEW_MAX
    assert review_requests(gh) == [
        ("GET", f"/repos/{gh.full_name}/pulls/{PR}/comments"),
        ("POST", f"/repos/{gh.full_name}/pulls/{PR}/reviews"),
    ]
    golden("review-violation-fix.md", body, pull)
    golden("review-violation-line-comment.md", comment.body + "\n", pull)


def test_a_catalogue_edit_that_flips_a_dependent(tmp_path: Path, gh: FakeGitHub) -> None:
    text = (
        (FIXTURES / A100)
        .read_text("utf-8")
        .replace('"memory_bandwidth_gbps": 1555,', '"memory_bandwidth_gbps": 500,')
    )
    _, pull = run(tmp_path, gh, {A100: text})
    body = sticky(gh)
    assert "no problem found" not in body
    assert (
        "| ✅ 51.9% → **🟥 161%** | memory roof 35.71 tok/s | `memory_bandwidth_gbps` 1555 → 500 in [nvidia-a100-40gb-sxm4](https://"
        in body
    )
    assert (
        "- 🟥 `mpt7b-a100-bs1-per-user-decode-tps`: this PR set `memory_bandwidth_gbps` "
        "1555 → 500 in `nvidia-a100-40gb-sxm4`: cite a source or revert" in body
    )
    (comment,) = gh.review_comments_on(PR)
    assert comment.path == A100  # the record's file is not in the diff: the field that moved it
    assert comment.line == value_line(text.replace('"memory_bandwidth_gbps"', '"value"'))
    assert (
        "This change moves `mpt7b-a100-bs1-per-user-decode-tps`: pass 51.9% → violation 161%"
        in comment.body
    )
    golden("review-catalogue-flip.md", body, pull)


def test_a_rerun_deletes_the_line_comment_whose_finding_is_gone(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    run(tmp_path / "one", gh, {MPT: violating_copy()})
    (old,) = gh.review_comments_on(PR)
    run(tmp_path / "two", gh, {MPT: violating_copy()})  # a rerun: the finding still stands
    assert [c.id for c in gh.review_comments_on(PR)] == [old.id]
    assert len(gh.reviews_on(PR)) == 1
    assert review_requests(gh) == [("GET", f"/repos/{gh.full_name}/pulls/{PR}/comments")]
    fixed, pull = run(tmp_path / "three", gh, {MPT: with_value(100.0)})
    assert gh.review_comments_on(PR) == []
    assert ("DELETE", f"/repos/{gh.full_name}/pulls/comments/{old.id}") in review_requests(gh)
    assert len(gh.requests) <= TODAY_MAX + REVIEW_MAX
    assert "comments whose finding is gone deleted" in fixed.stdout
    golden("review-rerun-resolved.md", sticky(gh), pull)


def test_a_fork_pr_keeps_every_finding_in_the_summary_and_says_why(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    gh.read_only = True  # the read-only token of a pull request from a fork: every write 403s
    result, pull = run(tmp_path, gh, {MPT: violating_copy()})
    assert result.code == 1
    assert "can't post the review (read-only token, e.g. a fork PR)" in result.stdout
    assert "the findings are in the sticky comment" in result.stdout
    assert gh.review_comments_on(PR) == [] and gh.comments_on(PR) == []
    assert "The findings could not go on their lines (the token is read-only" in result.summary
    assert len(gh.requests) <= TODAY_MAX + REVIEW_MAX
    golden("review-fork.md", result.summary, pull)


def test_a_line_github_refuses_falls_back_to_the_sticky_comment(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    body = {"message": "Unprocessable Entity", "errors": ["Line could not be resolved"]}
    gh.fail("POST", r"/pulls/\d+/reviews$", 422, body=body)
    result, _ = run(tmp_path, gh, {MPT: violating_copy()})
    assert "GitHub refused a line of the review (422)" in result.stdout
    assert "GitHub refused a line of the inline review" in sticky(gh)


def test_review_off_posts_no_review(tmp_path: Path, gh: FakeGitHub) -> None:
    run(tmp_path, gh, {MPT: violating_copy()}, INPUT_REVIEW="off")
    assert review_requests(gh) == [] and gh.reviews_on(PR) == []


def test_the_review_costs_two_requests_whatever_the_pr_s_size(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    many = {}
    for i in range(30):
        data = json.loads(violating_copy(150.0 + i))
        data["id"] = f"gen-{i:02d}"
        many[f"data/benchmarks/gen-{i:02d}.json"] = json.dumps(data, indent=2) + "\n"
    run(tmp_path / "one", gh, many)
    assert len(review_requests(gh)) == 2  # list, one review of every new comment
    assert len(gh.review_comments_on(PR)) == 20  # the rest stay in the sticky comment
    assert "past the review's 20 line comments" in sticky(gh)
    assert len(gh.requests) <= TODAY_MAX + REVIEW_MAX
    fixed = {p: t.replace('"value": 1', '"value": 0.') for p, t in many.items()}
    first = {c.id for c in gh.review_comments_on(PR)}
    second, _ = run(tmp_path / "two", gh, fixed)
    assert gh.count("DELETE", r"/pulls/comments/") == 20  # every one whose finding is gone
    assert not first & {c.id for c in gh.review_comments_on(PR)}
    assert "left for the next run" not in second.stdout


# ------------------------------------------------------------------ before and after, pure


def test_compare_names_what_moved_each_record_and_counts_worse_better_alone_new() -> None:
    from roofbot.core.compare import compare
    from roofbot.core.provenance import Basis, Input
    from roofbot.core.results import CheckId, RecordResult, RoofCheck, Verdict

    def result(rid: str, verdict: Verdict, value: float, bw: float) -> RecordResult:
        source = "data/accelerators/a.json: memory_bandwidth_gbps"
        ceiling = bw / 14
        return RecordResult(
            rid, f"data/benchmarks/{rid}.json", verdict, value=value,
            inputs=(("bandwidth_gbps", Input(bw, source, Basis.CATALOGUE)),),
            checks=(RoofCheck(CheckId.MEMORY, True, ceiling, value, "bw / 14 GB"),),
        )  # fmt: skip

    base = [
        result("flipped", Verdict.PASS, 57.6, 1555.0),
        result("raised", Verdict.PASS, 40.0, 1555.0),
        result("fixed", Verdict.VIOLATION, 150.0, 1555.0),
    ]
    head = [
        result("flipped", Verdict.VIOLATION, 57.6, 500.0),
        result("raised", Verdict.PASS, 60.0, 1555.0),
        result("fixed", Verdict.PASS, 100.0, 1555.0),
        result("added", Verdict.PASS, 10.0, 1555.0),
    ]
    c = compare(base, head)
    assert [c.count(k) for k in ("worse", "better", "same", "new")] == [1, 1, 1, 1]
    flipped = c.of("flipped")
    assert flipped is not None and flipped.kind == "worse"
    (m,) = flipped.moved
    assert (m.name, m.before, m.after, m.path) == (
        "memory_bandwidth_gbps", "1555", "500", "data/accelerators/a.json",
    )  # fmt: skip
    assert flipped.before_percent is not None and round(flipped.before_percent, 1) == 51.9
    raised = c.of("raised")
    assert raised is not None and [(x.name, x.before, x.after) for x in raised.moved] == [
        ("value", "40", "60")
    ]
    added = c.of("added")
    assert added is not None and added.before is None and added.moved == ()


def test_the_mpt_trio_reads_at_a_glance_summary_then_what_changed(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    trio = [
        MPT,
        "data/benchmarks/mpt7b-a100-bs64-aggregate-output-tps.json",
        "data/benchmarks/mpt7b-a100-bs64-per-user-decode-tps.json",
    ]
    texts = {p: (FIXTURES / p).read_text("utf-8") for p in trio}
    pull = make_pull(tmp_path, texts, base_edit=dict.fromkeys(trio))  # the PR adds the trio
    open_pull(gh, pull)
    run_action(tmp_path, pull, gh)
    body = sticky(gh)
    first_screen = body[: body.index("<details>")]
    order = [
        first_screen.index("legal as a batch-64 aggregate: 11.3% of its batched roof; the batch-1"),
        first_screen.index("3 checked: ✅ 3 pass"),
        first_screen.index("| ✅ pass | [mpt7b-a100-bs1-per-user-decode-tps]"),
    ]
    assert order == sorted(order)
    assert first_screen.count("| new → ✅ ") == 3
    assert "What to fix" not in body  # three passes: nothing to fix
    assert gh.review_comments_on(PR) == []


def test_api_mode_places_the_finding_from_the_pr_files_patch(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    pull = make_pull(tmp_path, {MPT: violating_copy()})
    open_pull(gh, pull)
    drop_head(pull)  # API mode: the base with its history, not the head
    gh.add_file(MPT, violating_copy().encode(), ref=pull.head)
    gh.clear_requests()
    result = run_action(tmp_path, pull, gh)
    assert "changed files from api: 1" in result.stdout
    (comment,) = gh.review_comments_on(PR)
    assert comment.line == value_line(violating_copy())
    assert "| ✅ 51.9% → **🟥 135%** | memory roof 111.1 tok/s | `value` 57.6 → 150 |" in sticky(gh)
    # today's in API mode: 2 statuses, the comparison, the tree, the file's blob, the sticky
    # comment's list and create (7); and the review's 2
    assert len(gh.requests) - len(review_requests(gh)) == 7, gh.requests
    assert len(gh.requests) <= 7 + REVIEW_MAX
    assert len(review_requests(gh)) == 2


def test_a_hostile_record_s_line_comment_is_inert(tmp_path: Path) -> None:
    repo_dir = tmp_path / "repo"
    shutil.copytree(FIXTURES, repo_dir, ignore=shutil.ignore_patterns("broken"))
    data = json.loads((FIXTURES / "broken" / "markdown-injection.json").read_text("utf-8"))
    data["value"] = 1e9  # over every roof
    path = "data/benchmarks/markdown-injection.json"
    text = json.dumps(data, indent=2) + "\n"
    (repo_dir / path).write_text(text, "utf-8")
    report = run_check(Repository.open(repo_dir), [path], calibration=False)
    lines = "\n".join(f"+{x}" for x in text.splitlines())
    patch = f"@@ -0,0 +1,{len(text.splitlines())} @@\n{lines}"
    p = plan(report, None, {path: patch}, lambda _p: text.encode(), [], "bot")
    (comment,) = p.post
    body = comment.body
    assert body.count("<!--") == 1 and body.startswith("<!-- roofbot:finding ")
    assert not re.search(r"@(everyone|maintainers)", body)
    assert "<script" not in body and "<img" not in body
    assert not re.search(r"^::", body, re.MULTILINE)


def test_the_review_inputs_are_checked_and_request_changes_is_opt_in(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    bad, _ = run(tmp_path / "bad", gh, {MPT: violating_copy()}, INPUT_REVIEW="sideways")
    assert bad.code == 2 and "input review: inline or off" in bad.stdout
    run(tmp_path / "rc", gh, {MPT: violating_copy()}, **{"INPUT_REVIEW-EVENT": "request-changes"})
    assert [r.state for r in gh.reviews_on(PR)] == ["CHANGES_REQUESTED"]


def test_a_deprecated_record_s_finding_stays_in_the_sticky_comment(tmp_path: Path) -> None:
    import dataclasses

    report, text = _report(tmp_path, 150.0)
    old = dataclasses.replace(report.records[0], status="deprecated")
    line = value_line(text)
    patch = f'@@ -{line},1 +{line},1 @@\n-  "value": 57.6,\n+  "value": 150.0,'
    quiet = dataclasses.replace(report, records=(old,))
    assert plan(quiet, None, {MPT: patch}, lambda _p: text.encode(), [], "bot").post == ()
    loud = dataclasses.replace(quiet, deprecated_fail=True)  # the policy fails them: on the line
    assert len(plan(loud, None, {MPT: patch}, lambda _p: text.encode(), [], "bot").post) == 1


def test_a_catalogue_line_that_moves_many_records_names_ten_and_counts_the_rest() -> None:
    from roofbot.core.compare import compare
    from roofbot.core.provenance import Basis, Input
    from roofbot.core.results import CheckId, RecordResult, RoofCheck, Verdict

    cat = "data/accelerators/a.json"
    cat_text = '{\n  "id": "a",\n  "memory_bandwidth_gbps": 500\n}\n'

    def result(i: int, verdict: Verdict, bw: float) -> RecordResult:
        source = f"{cat}: memory_bandwidth_gbps"
        return RecordResult(
            f"r{i:03d}", f"data/benchmarks/r{i:03d}.json", verdict, value=57.6,
            inputs=(("bandwidth_gbps", Input(bw, source, Basis.CATALOGUE)),),
            checks=(RoofCheck(CheckId.MEMORY, True, bw / 14, 57.6, "bw / 14 GB"),),
        )  # fmt: skip

    base = [result(i, Verdict.PASS, 1555.0) for i in range(250)]
    head = [result(i, Verdict.VIOLATION, 500.0) for i in range(250)]
    report = Report(tuple(head), Calibration(False, 0.1))
    patch = '@@ -1,4 +1,4 @@\n {\n   "id": "a",\n-  "memory_bandwidth_gbps": 1555\n+  "memory_bandwidth_gbps": 500\n }'
    p = plan(report, compare(base, head), {cat: patch}, lambda _p: cat_text.encode(), [], "bot")
    (comment,) = p.post
    assert (comment.path, comment.line) == (cat, 3)
    assert comment.body.count("This change moves") == 10
    assert "…and 240 more records this line moves" in comment.body
    assert len(comment.body) < 65536


def test_before_and_after_reuses_the_base_results_it_already_has(tmp_path: Path) -> None:
    """A catalogue edit's dependents were checked under the base's instrument already (the
    check-twice): their base results are taken as given, not checked again."""
    import dataclasses

    from roofbot.action.before_after import compare_with_base
    from roofbot.adapters.tree import FolderTree

    head, _ = _report(tmp_path, 150.0)
    (r,) = head.records
    given = dataclasses.replace(r, verdict=Verdict.UNCHECKED, checks=())  # not what a check gives
    repo = Repository.open(FIXTURES)
    c = compare_with_base(head, FolderTree(FIXTURES), repo.config, repo.schemas, [MPT],
                          {}, {MPT: given})  # fmt: skip
    assert c is not None and c.of(r.id) is not None
    assert c.of(r.id).before is given  # type: ignore[union-attr]
    fresh = compare_with_base(head, FolderTree(FIXTURES), repo.config, repo.schemas,
                              [MPT], {})  # fmt: skip
    assert fresh is not None and fresh.of(r.id).before.verdict is Verdict.PASS  # type: ignore[union-attr]
