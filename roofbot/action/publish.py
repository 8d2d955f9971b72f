"""Reporting to GitHub: the commit status (pending first, final whatever happens), the sticky
comment, the inline review, the job summary, annotations, outputs and a dry run's files. The
client's transport is the one retry policy (roofbot.adapters.github.transport): nothing here
retries a call."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import partial
from typing import TextIO

from roofbot.action.evaluate import Outcome
from roofbot.action.event import CONTEXT
from roofbot.action.gather import Gathered
from roofbot.action.review_post import git_patches, post_review
from roofbot.action.settings import (
    COMMENT_RETRIES,
    FINAL_STATUS_ATTEMPTS,
    SHORT_COMMENT_BUDGET,
    Settings,
    report_file,
)
from roofbot.adapters import actions as A
from roofbot.adapters.git import GitError
from roofbot.adapters.github.errors import (
    GitHubError,
    GitHubForbidden,
    GitHubRateLimited,
    GitHubTooLong,
)
from roofbot.adapters.github.models import StatusState
from roofbot.adapters.github.protocol import GitHub
from roofbot.adapters.github.transport import repeat
from roofbot.adapters.jsonfile import MAX_BYTES
from roofbot.adapters.tree import read_or_none
from roofbot.core.results import Calibration, Report
from roofbot.render.markdown.context import MARKER
from roofbot.render.markdown.escape import md
from roofbot.render.markdown.fit import fit


def set_status(
    client: GitHub,
    sha: str,
    state: StatusState,
    description: str,
    out: TextIO,
    *,
    target_url: str | None = None,
    attempts: int = 1,
    context: str = CONTEXT,
    wait_bound: float = 0.0,
    refused: list[bool] | None = None,
) -> bool:
    """Set the status; never raises. A status is safe to repeat (the newest one counts), so a
    final one (`attempts` > 1) is tried again while GitHub is unavailable or rate limited, for
    up to `wait_bound` seconds in all: a rate limit is waited out to the reset its headers
    give, if that falls within the bound; a 5xx is tried `attempts` times; then False."""

    def give_up(e: GitHubError, wait: float | None, left: float) -> None:
        A.log(out, f"could not set the {state} status: {e}")
        limited = isinstance(e, GitHubRateLimited)
        if limited and wait is not None and wait > left and attempts > 1:
            A.log(out, f"GitHub asks to wait {wait:.0f} s, past roofbot's bound "
                       f"({max(left, 0):.0f} s left of ROOFBOT_STATUS_WAIT)")  # fmt: skip
        if "forbidden" in type(e).__name__.lower():
            A.log(out, "the token can't write statuses (a fork's read-only token?)")
            if refused is not None:
                refused.append(True)

    def again(e: GitHubError, wait: float) -> None:
        A.log(out, f"setting the {state} status failed ({e}); again in {wait:g} s")

    try:
        repeat(lambda: client.set_status(sha, state, description[:139], context, target_url),
               attempts=attempts, clock=client.clock, wait_bound=wait_bound, insist=attempts > 1,
               on_retry=again, on_give_up=give_up)  # fmt: skip
    except GitHubError:
        return False
    return True


@contextmanager
def status_guard(
    client: GitHub | None, s: Settings, out: TextIO, landed: list[str] | None = None
) -> Iterator[list[tuple[StatusState, str]]]:
    """Pending on entry (if it can't be set, the run goes on); the final state the body
    appends, or `error` if it raised. The final status is tried until GitHub takes it or
    roofbot's bound runs out; `landed` gets "set", "refused" (a read-only token: the job's
    own result is all there is) or "failed"."""
    final: list[tuple[StatusState, str]] = []
    sha = s.event.head_sha
    if client is not None:
        what = "every record" if s.sweep else "the changed records"
        set_status(client, sha, "pending", f"roofbot is checking {what}", out,
                   target_url=s.summary_url, context=s.event.context)  # fmt: skip
    try:
        yield final
    except BaseException as e:
        final[:] = [("error", f"roofbot could not finish: {type(e).__name__}")]
        raise
    finally:
        if client is not None:
            state, desc = final[-1] if final else ("error", "roofbot stopped without a result")
            refused: list[bool] = []
            ok = set_status(client, sha, state, desc, out, target_url=s.summary_url,
                            attempts=FINAL_STATUS_ATTEMPTS, context=s.event.context,
                            wait_bound=s.status_wait, refused=refused)  # fmt: skip
            if landed is not None:
                landed.append("set" if ok else "refused" if refused else "failed")


def write_unfinished(env: Mapping[str, str], title: str, detail: str) -> None:
    """The job summary of a run that could not check anything."""

    A.write_summary(env, f"{MARKER}\n### ⚠️ roofcheck: {title}\n\n{md(detail, 2000)}\n")


def dry_run_output(env: Mapping[str, str], outcome: Outcome, out: TextIO) -> None:
    """What a dry run rendered: the comment and the summary written beside the report (in
    RUNNER_TEMP, the user's --out), and the comment printed, not posted."""
    folder = report_file(env).parent
    comment, summary = folder / "comment.md", folder / "summary.md"
    comment.write_text(outcome.comment, encoding="utf-8")
    summary.write_text(outcome.summary, encoding="utf-8")
    A.log(out, f"dry run: comment of {len(outcome.comment)} characters not posted: {comment}")
    A.log(out, f"dry run: summary: {summary}; report: {report_file(env)}")
    A.log(out, "dry run: the comment roofbot would post follows")
    if env.get("GITHUB_ACTIONS") == "true":  # a job log: every line roofbot's, never a command
        A.log(out, outcome.comment)
    else:  # a terminal: the Markdown as it is, to copy
        out.write(outcome.comment if outcome.comment.endswith("\n") else outcome.comment + "\n")
    A.log(out, "dry run: end of the comment")


FALLBACK = "the report is in the job summary and the annotations"


def post_inline_review(
    client: GitHub, s: Settings, inputs: Gathered, outcome: Outcome, out: TextIO
) -> Outcome:
    """The findings on their diff lines (roofbot/action/review_post.py), on pull_request(_target)
    with `review: inline`; the sticky comment says what could not go there."""
    if s.review != "inline" or s.event_name not in ("pull_request", "pull_request_target"):
        return outcome  # a merge group or a /roofcheck command has no diff of its own to review

    # nothing to check any more: no finding stands, and earlier line comments go
    report = outcome.report or Report((), Calibration(False, 0.0))

    patches = inputs.patches
    if patches is None:
        paths = [f.path for f in outcome.changes.files if f.status != "deleted"]
        try:
            patches = git_patches(s.workspace, s.event.base_sha, s.event.head_sha, paths)
        except GitError as e:  # no line is known: every finding stays in the sticky comment
            A.log(out, f"could not read the diff for the review: {e}")
            patches = {}
    tree = inputs.tree
    posted = post_review(
        client, s.event.number, s.event.head_sha, report, outcome.comparison, patches,
        lambda path: read_or_none(tree, path, MAX_BYTES), out, s.review_event,
    )  # fmt: skip
    if posted.note and outcome.rerender is not None:
        comment, summary = outcome.rerender({"note": posted.note})
        return dataclasses.replace(outcome, comment=comment, summary=summary)
    return outcome


def post_comment(
    client: GitHub, s: Settings, outcome: Outcome, env: Mapping[str, str], out: TextIO
) -> None:
    """Create or update the sticky comment. Never raises: whatever GitHub answers, the job
    summary and the annotations already hold the report, and the status follows."""

    if outcome.quiet:  # nothing roofbot reads changed: only an earlier comment is updated
        try:
            if client.find_sticky_comment(s.event.number, MARKER) is None:
                A.log(out, "no file roofbot reads changed: no comment posted")
                return
        except GitHubError as e:
            A.log(out, f"could not look for an earlier comment: {e}; {FALLBACK}")
            return
    body = outcome.comment
    shortened = False
    retried = 0  # across the shorter comment too: COMMENT_RETRIES in all

    def again(e: GitHubError, wait: float) -> None:
        nonlocal retried
        retried += 1
        A.log(out, f"commenting failed ({e}); again in {wait:g} s")

    while True:
        try:
            # once more at most (the transport already retried what is safe to): upsert lists
            # the comments again first, so a POST that did land is edited, not posted twice
            repeat(partial(client.upsert_sticky_comment, s.event.number, MARKER, body),
                   attempts=1 + COMMENT_RETRIES - retried, clock=client.clock,
                   on_retry=again)  # fmt: skip
            return
        except GitHubForbidden as e:
            A.log(out, f"can't comment (read-only token, e.g. a fork PR): {e}; {FALLBACK}")
            return
        except GitHubTooLong as e:
            if shortened:
                A.log(out, f"GitHub refused even the short comment: {e}; {FALLBACK}")
                return
            A.log(out, "GitHub says the comment is too long: posting a shorter one")
            body = fit(body, min(SHORT_COMMENT_BUDGET, len(body) // 2), s.summary_url)
            shortened = True
        except GitHubError as e:
            A.log(out, f"could not comment: {e}; {FALLBACK}")
            return
