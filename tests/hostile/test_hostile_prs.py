"""The hostile campaign: every case of hostile_cases.py is a pull request run through `roofbot pr`
end to end (real git repository, the real pull_request payload, the subprocess under an audit
hook, the loopback GitHub), and every run must satisfy all the invariants: it finishes within
its bound, the witness records (and every other changed record) are still checked, the comment
and the summary are well-formed Markdown with the marker intact, nothing from the hostile file
is echoed raw, no @mention, #ref or URL survives, the status is final, nothing outside the
repository is read and nothing but git is run.

The cases run three at a time (ROOFBOT_CAMPAIGN_JOBS) in one module fixture (each its own server, repository and
process); each case is then its own test."""

from __future__ import annotations

import fnmatch
import json
import os
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from github_server import FakeGitHub
from hostile_cases import BENCH, EVALUATED, RAW, WITNESSES, Case, cases, outside_dir, resolve
from invariants import (
    check_audit,
    check_markdown,
    check_raw_absent,
    check_statuses,
    check_stdout,
)
from prkit import PR, Run, make_pull, pull_event, run_roofbot

CASES = cases()
RUN_URL = "https://github.com/octo-org/llm-roofline-records/actions/runs/4242"


@dataclass
class Result:
    case: Case
    run: Run
    comment: str
    comments: list[str]
    summary: str
    statuses: list[dict[str, Any]]
    report: dict[str, Any]
    report_text: str
    workspace: Path
    outside: Path
    tmp: Path
    server_errors: list[str]


def run_case(case: Case, tmp: Path) -> Result:
    outside = outside_dir(tmp)
    files, links = resolve(case, outside)
    hook = case.hook
    pull = make_pull(
        tmp, files, links=links, hook=(lambda repo: hook(repo, outside)) if hook else None
    )
    with FakeGitHub() as gh:
        gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
        run = run_roofbot(
            tmp, pull.repo, gh, "pull_request_target", pull_event(pull, gh),
            audit=tmp / "audit.log", timeout=case.timeout,
        )  # fmt: skip
        comments = [c.body for c in gh.comments_on(PR) if c.user_login == gh.bot_login]
        statuses = list(gh.statuses.get(pull.head, []))
        errors = list(gh.errors)
    report_text = Path(run.outputs["report-path"]).read_text("utf-8")
    return Result(
        case, run, comments[0] if comments else "", comments, run.summary, statuses,
        json.loads(report_text), report_text, pull.repo, outside, tmp, errors,
    )  # fmt: skip


@pytest.fixture(scope="module")
def results(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Result | BaseException]:
    def one(case: Case) -> Result:
        return run_case(case, tmp_path_factory.mktemp(re.sub(r"\W", "-", case.name)[:40]))

    selected = set()  # only the cases this session runs (-k, a node id)
    for item in request.session.items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and isinstance(callspec.params.get("case"), Case):
            selected.add(callspec.params["case"].name)
    # the slowest first, so the pool ends together
    order = sorted((c for c in CASES if c.name in selected), key=lambda c: -c.timeout)
    with ThreadPoolExecutor(max_workers=int(os.environ.get("ROOFBOT_CAMPAIGN_JOBS", "3"))) as pool:
        futures = {c.name: pool.submit(one, c) for c in order}
    return {name: (f.exception() or f.result()) for name, f in futures.items()}


def _changed_records(case: Case) -> list[str]:
    paths = [p for p, data in case.files.items() if data is not None] + list(case.links)
    return [p for p in paths if fnmatch.fnmatchcase(p, f"{BENCH}/*.json")]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_pull_request(case: Case, results: dict[str, Result | BaseException]) -> None:
    result = results[case.name]
    if isinstance(result, BaseException):
        raise result
    run = result.run
    # finished, within the bound, with the check's own verdict (the witness violation fails it)
    assert run.seconds < case.timeout
    assert run.code == 1, run.stdout + run.stderr
    assert not result.server_errors
    # the status is final, never left pending
    check_statuses(result.statuses)
    assert [s["state"] for s in result.statuses] == ["pending", "failure"]
    # one sticky comment and the summary, well-formed, marker intact, nothing live
    assert len(result.comments) == 1
    assert len(result.comment) <= 65536
    check_markdown(result.comment, allowed_urls=(RUN_URL,))
    check_markdown(result.summary)
    check_raw_absent([result.comment, result.summary], RAW + case.raw)
    everything = [result.comment, result.summary, run.stdout, run.stderr, result.report_text]
    check_raw_absent(everything, (EVALUATED, *case.secret))
    check_stdout(run.stdout)
    # nothing outside the repository read, nothing but git run
    files = [result.tmp / n for n in ("event.json", "summary.md", "output.txt")]
    check_audit(result.tmp / "audit.log", result.workspace,
                [*files, Path(run.outputs["report-path"])])  # fmt: skip
    # every other record still checked
    verdicts = {r["path"]: r for r in result.report["records"]}
    for path, verdict in WITNESSES.items():
        assert path in verdicts, f"witness {path} not checked"
        if case.same_witnesses:
            assert verdicts[path]["verdict"] == verdict, (path, verdicts[path]["verdict"])
    for path in _changed_records(case):
        assert path in verdicts, f"{path!r} was not reported"
    for path, words in case.errors.items():
        r = verdicts[path]
        assert r["verdict"] == "error", (path, r["verdict"])
        assert words in r["messages"][0], (path, r["messages"][0])
    if case.check is not None:
        case.check(result)


def test_the_campaign_covers_the_issue() -> None:
    """The cases issue 4 names, each present by name."""
    names = {c.name for c in CASES}
    for needed in (
        "json-nested-100000-deep", "nan-value", "infinity-value", "overflow-1e309",
        "negative-value", "huge-integer", "duplicate-keys", "utf8-bom", "file-50-mb", "binary",
        "non-utf8", "symlink-to-etc-passwd", "symlinks-out-of-the-repository",
        "path-with-newlines", "path-with-pipes", "path-with-backticks",
        "path-with-html-comments", "path-with-html", "jinja-html-mentions-in-every-string-field",
        "mentions-references-urls", "ids-that-collide", "references-missing-or-looping",
        "3001-changed-files", "deleted-calibration-record", "roofbot-yml-alias-bomb",
        "roofbot-yml-python-tags", "roofbot-yml-globs-outside-the-repository",
        "roofbot-yml-pin-that-hides-a-violation",
    ):  # fmt: skip
        assert needed in names, needed


def test_the_campaign_covers_issue_19() -> None:
    """The pull requests issue 19 names (the instrument, runner commands, format characters);
    its API cases are in test_hostile_api.py."""
    names = {c.name for c in CASES}
    for needed in (
        "roofbot-yml-loosens-calibration-pins-and-tolerance",
        "roofbot-yml-drops-the-calibration-set",
        "catalogue-part-raised-tenfold-for-its-own-record",
        "new-part-with-bogus-figures",
        "roofbot-yml-pin-that-hides-a-violation",
        "file-name-with-a-runner-command",
        "format-characters-and-a-homoglyph-id",
    ):
        assert needed in names, needed
