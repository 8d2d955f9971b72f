"""The API failing, as a campaign: each case runs `roofbot pr` end to end against the loopback
GitHub with one fault injected. "In turn" cases fail the n-th request of a normal run, for every
n (the sequences are pinned below, so a new request can't slip by untested): a 5xx (GitHub's
HTML "Unicorn!" 502), a primary rate limit (403, x-ratelimit-remaining 0 and a reset time), a
secondary one (429 with retry-after) and a timeout. Then persistent failures: statuses or
comments down, a fork PR's read-only token (403 on every write), every call rate limited, 422
"too long" once and always, the file list or the contents down in API mode.

Whatever happens: the run ends within its bound and without a traceback, the status is never
left pending, there is at most one sticky comment and it is well-formed, the summary holds the
report, and where the comment could not be posted the log says the report is in the summary."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from github_server import FakeGitHub, FileState
from hostile_cases import FIXTURES, dump, record, witnesses
from invariants import check_markdown, check_statuses, check_stdout
from prkit import PR, Pull, Run, drop_head, make_pull, pull_event, run_roofbot

# The campaign runs `roofbot pr` once a case (about a minute on two cores): the `slow`
# marker, which .ci/run selects (`pytest -m slow` here).
pytestmark = pytest.mark.slow

RUN_URL = "https://github.com/octo-org/llm-roofline-records/actions/runs/4242"
BOUND = 60.0
Mode = Literal["git", "api", "big"]
#: The requests of a normal run, in order (test_the_sequences_are_pinned keeps them honest).
# the review's requests come before the sticky comment's: its line comments listed, then, in
# git mode (the diff from git holds the witness's value line), the review posted
GIT_CALLS = [
    "POST statuses", "GET comments", "POST reviews", "GET comments", "POST comments",
    "POST statuses",
]  # fmt: skip
API_CALLS = [  # the listing pinned to the event's SHAs, modes from the tree, blobs by SHA
    "POST statuses", "GET compare", "GET trees", "GET blobs", "GET blobs", "GET blobs",
    "GET comments", "POST reviews", "GET comments", "POST comments", "POST statuses",
]  # fmt: skip
INJECTION = (FIXTURES / "broken" / "markdown-injection.json").read_text("utf-8")


@dataclass(frozen=True)
class FaultCase:
    name: str
    mode: Mode
    inject: Callable[[FakeGitHub], Any]
    #: "recovers": the comment and the final status both land; "final": the status does (the
    #: comment may fall back to the summary); "no-comment"; "no-status" (the comment lands);
    #: "nothing": neither can be written
    expect: Literal["recovers", "final", "no-comment", "no-status", "nothing", "unfinished"]
    env: dict[str, str] = field(default_factory=dict)
    log: tuple[str, ...] = ()  # words the log must say
    check: Callable[[Any], None] | None = None


@dataclass
class Outcome:
    case: FaultCase
    run: Run
    comments: list[str]
    statuses: list[dict[str, Any]]
    routes: list[str]
    server_errors: list[str]


def _route(method: str, route: str) -> str:
    tail = route.rstrip("/").split("/")
    name = tail[-1] if not tail[-1].isdigit() and len(tail[-1]) < 40 else tail[-2]
    if "/contents/" in route:
        name = "contents"
    return f"{method} {name}"


def _scenario(tmp: Path, gh: FakeGitHub, mode: Mode) -> Pull:
    files: dict[str, str | bytes | None] = dict(witnesses())
    files["data/benchmarks/markdown-injection.json"] = INJECTION
    if mode == "big":  # enough records for a comment near GitHub's limit
        for i in range(250):
            files[f"data/benchmarks/big-{i:03d}.json"] = dump(record(f"big-{i:03d}"))
    pull = make_pull(tmp, files)
    if mode == "api":
        drop_head(pull)  # API mode: the base with its history, not the head
        gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base,
                    files=[FileState(p) for p in files])  # fmt: skip
        for path, data in files.items():
            assert isinstance(data, str)
            gh.add_file(path, data.encode(), ref=pull.head)
    else:
        gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    return pull


def run_fault(case: FaultCase, tmp: Path) -> Outcome:
    with FakeGitHub() as gh:
        pull = _scenario(tmp, gh, case.mode)
        case.inject(gh)
        env = {"ROOFBOT_API_TIMEOUT": "1", **case.env}
        run = run_roofbot(tmp, pull.repo, gh, "pull_request_target", pull_event(pull, gh),
                          timeout=BOUND, **env)  # fmt: skip
        comments = [c.body for c in gh.comments_on(PR) if c.user_login == gh.bot_login]
        statuses = list(gh.statuses.get(pull.head, []))
        routes = [_route(r.method, r.route) for r in gh.requests]
        errors = list(gh.errors)
    return Outcome(case, run, comments, statuses, routes, errors)


# ------------------------------------------------------------------ the cases


def _in_turn() -> list[FaultCase]:
    out: list[FaultCase] = []
    for mode, calls in (("git", GIT_CALLS), ("api", API_CALLS)):
        for k, call in enumerate(calls):
            n = f"{mode}-call-{k + 1}-{call.replace(' ', '-').lower()}"
            out.append(FaultCase(f"5xx-{n}", mode,  # type: ignore[arg-type]
                                 lambda gh, k=k: gh.fail_server_error("*", "", 502, skip=k),
                                 "recovers"))  # fmt: skip
            out.append(FaultCase(f"timeout-{n}", mode,  # type: ignore[arg-type]
                                 lambda gh, k=k: gh.hang("*", "", 2.5, skip=k), "recovers"))  # fmt: skip
            if mode == "git":
                out.append(FaultCase(f"rate-limit-primary-{n}", mode,
                                     lambda gh, k=k: gh.fail_rate_limited("*", "", skip=k,
                                                                          reset_in=2),
                                     "final"))  # fmt: skip
                out.append(FaultCase(
                    f"rate-limit-secondary-429-{n}", mode,
                    lambda gh, k=k: gh.fail_rate_limited("*", "", status=429, secondary=True,
                                                          retry_after=1, skip=k),
                    "recovers"))  # fmt: skip
    return out


def _summary_fallback(o: Outcome) -> None:
    assert "witness-violation" in o.run.summary
    assert "::error file=data/benchmarks/witness-violation.json" in o.run.stdout


def _short_comment(o: Outcome) -> None:
    (body,) = o.comments
    assert len(body) <= 30000 and "Cut here to fit GitHub's limit" in body
    assert "GitHub says the comment is too long" in o.run.stdout


def _unfinished(o: Outcome) -> None:
    assert o.statuses[-1]["state"] == "error"
    assert "GitHub did not answer" in o.statuses[-1]["description"]
    assert "GitHub did not answer" in o.run.summary


def _contents_missing(o: Outcome) -> None:
    assert o.statuses[-1]["state"] == "failure"
    assert "GitHub did not send it" in o.comments[0]


def _pinned_listing(o: Outcome) -> None:
    assert "witness-violation" in o.comments[0]  # read at the event's head all the same
    assert "GET files" not in o.routes


def _link_refused(o: Outcome) -> None:
    assert "zz-link.json can't be read: it is a symbolic link" in o.comments[0]
    assert "GET contents" not in o.routes


def _job_red(o: Outcome) -> None:
    assert "this job fails so that it shows" in o.run.stdout


TOO_LONG = {
    "message": "Validation Failed",
    "errors": [{"resource": "IssueComment", "code": "custom", "field": "data",
                "message": "Body is too long (maximum is 65536 characters)"}],
    "documentation_url": "https://docs.github.com/rest/issues/comments#create-an-issue-comment",
}  # fmt: skip


def cases() -> list[FaultCase]:
    said = ("the report is in the job summary and the annotations",)
    return [
        *_in_turn(),
        FaultCase("statuses-down", "git",
                  lambda gh: gh.fail_server_error("POST", "/statuses/", 503, times=None),
                  "no-status", log=("could not set the pending status",
                                    "could not set the failure status")),
        FaultCase("comments-list-down", "git",
                  lambda gh: gh.fail_server_error("GET", r"/comments$", 503, times=None),
                  "no-comment", log=said, check=_summary_fallback),
        FaultCase("comment-create-forbidden", "git",
                  lambda gh: gh.fail_integration_forbidden("POST", r"/comments$"),
                  "no-comment", log=("can't comment (read-only token", *said),
                  check=_summary_fallback),
        FaultCase("fork-read-only-token", "git", lambda gh: setattr(gh, "read_only", True),
                  "nothing", log=("can't comment (read-only token", *said,
                                  "the token can't write statuses"),
                  check=_summary_fallback),
        FaultCase("every-call-rate-limited", "git",
                  lambda gh: gh.fail_rate_limited("*", "", times=None), "nothing",
                  log=("rate limit",), check=_summary_fallback),
        FaultCase("too-long-422-once", "big",
                  lambda gh: gh.fail("POST", r"/comments$", 422, body=TOO_LONG), "recovers",
                  check=_short_comment),
        FaultCase("too-long-422-always", "big",
                  lambda gh: gh.fail("POST", r"/comments$", 422, body=TOO_LONG, times=None),
                  "no-comment", log=("refused even the short comment", *said)),
        FaultCase("api-file-list-down", "api",
                  lambda gh: gh.fail_server_error("GET", r"/compare/", 502, times=None),
                  "unfinished", check=_unfinished),
        FaultCase("api-contents-down", "api",
                  lambda gh: gh.fail_server_error("GET", r"/git/blobs/", 503, times=None),
                  "final", check=_contents_missing),
        # issue 19: the head pinned to the event's SHAs; rate limits held as GitHub holds them
        FaultCase("api-head-moved-after-the-event", "api",
                  lambda gh: (setattr(gh.pulls[PR], "head_sha", "5" * 40), gh.set_files(PR, [])),
                  "recovers", check=_pinned_listing),
        FaultCase("api-symlink-in-the-head", "api",
                  lambda gh: gh.add_link("data/benchmarks/zz-link.json", "witness-pass.json",
                                         ref=gh.pulls[PR].head_sha),
                  "recovers", check=_link_refused),
        FaultCase("rate-limit-held-on-the-final-status", "git",
                  lambda gh: gh.fail_rate_limited("POST", r"/statuses/", reset_in=3, skip=1),
                  "recovers", env={"ROOFBOT_STATUS_WAIT": "20"},
                  log=("setting the failure status failed",)),
        FaultCase("rate-limit-past-the-bound", "git",
                  # a limit that outlasts the bound stops every request after it: no comment
                  lambda gh: gh.fail_rate_limited("POST", r"/statuses/", reset_in=300),
                  "nothing", env={"ROOFBOT_STATUS_WAIT": "2"},
                  log=("past roofbot's bound",), check=_job_red),
        FaultCase("api-contents-hang", "api",
                  lambda gh: gh.hang("GET", r"/git/blobs/", 2.5, times=None), "final",
                  check=_contents_missing),
    ]  # fmt: skip


CASES = cases()


@pytest.fixture(scope="module")
def outcomes(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Outcome | BaseException]:
    selected = set()  # only the cases this session runs
    for item in request.session.items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and isinstance(callspec.params.get("case"), FaultCase):
            selected.add(callspec.params["case"].name)
    jobs = int(os.environ.get("ROOFBOT_CAMPAIGN_JOBS", "3"))
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {
            c.name: pool.submit(run_fault, c, tmp_path_factory.mktemp(c.name[:40]))
            for c in CASES
            if c.name in selected
        }
    return {name: (f.exception() or f.result()) for name, f in futures.items()}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_api_failure(case: FaultCase, outcomes: dict[str, Outcome | BaseException]) -> None:
    o = outcomes[case.name]
    if isinstance(o, BaseException):
        raise o
    run = o.run
    assert run.seconds < BOUND
    assert run.code == 1, run.stdout + run.stderr  # the witness violation, or unfinished
    assert not o.server_errors
    check_statuses(o.statuses)
    check_stdout(run.stdout)
    assert len(o.comments) <= 1, "a second sticky comment"
    for body in o.comments:
        check_markdown(body, allowed_urls=(RUN_URL,))
    check_markdown(run.summary)
    for words in case.log:
        assert words in run.stdout, words
    states = [s["state"] for s in o.statuses]
    if case.expect == "recovers":
        assert len(o.comments) == 1 and "witness-violation" in o.comments[0]
        assert states and states[-1] == "failure", states
    elif case.expect == "final":
        assert states and states[-1] == "failure", states
    elif case.expect == "no-comment":
        assert o.comments == [] and states and states[-1] == "failure", states
    elif case.expect == "no-status":
        assert len(o.comments) == 1 and states == []
    elif case.expect == "nothing":
        assert o.comments == [] and states == []
    if case.check is not None:
        case.check(o)


@pytest.mark.parametrize(("mode", "calls"), [("git", GIT_CALLS), ("api", API_CALLS)])
def test_the_sequences_are_pinned(tmp_path: Path, mode: Mode, calls: list[str]) -> None:
    """The in-turn cases fail each of these requests: a run must make exactly these."""
    o = run_fault(FaultCase("baseline", mode, lambda gh: None, "recovers"), tmp_path)
    assert o.routes == calls
    assert [s["state"] for s in o.statuses] == ["pending", "failure"]
    report = json.loads(Path(o.run.outputs["report-path"]).read_text("utf-8"))
    assert {r["id"] for r in report["records"]} >= {"witness-pass", "witness-violation"}
