"""The inline review, posted: the diff's lines read (git diff, or the PR files' `patch` in API
mode), roofbot's earlier line comments listed, the plan of roofbot/action/review.py carried out.

What stays on the pull request never grows with the number of runs:
- a review is submitted only when there are new line comments (GitHub keeps every submitted
  review in the timeline: it can't be deleted), and every earlier line comment of roofbot's
  whose finding is gone, or that GitHub shows as outdated, is deleted in the same run;
- with `review-event: request-changes`, roofbot requests changes once: while its
  CHANGES_REQUESTED review stands, new line comments come as a plain comment review, and once
  no finding stands it dismisses its own CHANGES_REQUESTED reviews (they would block the merge
  otherwise).

API requests: 1 to list the line comments (100 a page), with request-changes 1 to list the
reviews, 1 to submit the new comments as one review, 1 per comment to delete (at most
`MAX_DELETES`; the rest the next run), 1 per review to dismiss. Never raises: a read-only token
(403, a fork's pull request) or a line GitHub won't take (422) leaves the findings in the
sticky comment, and the log says so."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TextIO

from roofbot.action.review import Existing, Plan, plan, split_patches
from roofbot.adapters import actions as A
from roofbot.adapters.git import git, valid_sha
from roofbot.adapters.github.errors import GitHubError, GitHubForbidden, GitHubValidationFailed
from roofbot.adapters.github.protocol import GitHub
from roofbot.core.compare import Comparison
from roofbot.core.results import Report

MAX_DELETES = 100  # line comments deleted in one run at most (a run posts 20 at most)
PAGE = 100
DISMISSED = "roofcheck: the findings this review asked to fix no longer stand."


@dataclass(frozen=True)
class Posted:
    """What the sticky comment says about the review (None: nothing to say) and the
    requests it cost."""

    note: str | None
    calls: int
    plan: Plan | None = None


def git_patches(workspace: Path, base: str, head: str, paths: Sequence[str]) -> dict[str, str]:
    """Each of `paths`' patch between the merge base and the head, as `git diff` writes it."""

    if not paths or not (valid_sha(base) and valid_sha(head)):
        return {}
    raw = git(
        workspace, "--literal-pathspecs", "diff", "--no-color", "--no-ext-diff",
        "--no-textconv", "-U3", f"{base}...{head}", "--", *paths,
    )  # fmt: skip
    return split_patches(raw.decode("utf-8", "replace"))


def post_review(
    client: GitHub,
    number: int,
    head_sha: str,
    report: Report,
    comparison: Comparison | None,
    patches: Mapping[str, str | None],
    read: Callable[[str], bytes | None],
    out: TextIO,
    event: Literal["COMMENT", "REQUEST_CHANGES"] = "COMMENT",
) -> Posted:
    calls = 0
    try:
        listed = client.list_review_comments(number)
        calls += max(1, -(-len(listed) // PAGE))  # one request a page of 100
    except GitHubForbidden as e:
        A.log(out, f"can't read the review comments (read-only token?): {e}")
        return Posted(_READ_ONLY, 1)
    except GitHubError as e:
        A.log(out, f"could not list the review comments: {e}; the findings are in the comment")
        return Posted(_NOT_POSTED, 1)
    existing = [Existing(c.id, c.body, c.author_login, c.line) for c in listed]
    login = client.sticky_login()
    p = plan(report, comparison, patches, read, existing, login)
    note = _outside_note(p)
    requested: list[int] = []  # roofbot's CHANGES_REQUESTED reviews that stand
    if event == "REQUEST_CHANGES":
        try:
            reviews = client.list_reviews(number)
            calls += max(1, -(-len(reviews) // PAGE))
            mine = [r for r in reviews if r.author_login.lower() == login.lower()]
            requested = [r.id for r in mine if r.state == "CHANGES_REQUESTED"]
        except GitHubError as e:
            A.log(out, f"could not list the reviews: {e}")
    if p.post:
        calls += 1
        body = (
            f"roofcheck: {p.inline} finding{'s' if p.inline != 1 else ''} on the lines of this "
            "diff; the sticky comment has the whole report."
        )
        kind = "COMMENT" if requested else event  # changes are requested once, not per run
        try:
            client.create_review(number, head_sha, body, [c.payload() for c in p.post], kind)
            A.log(out, f"review: {len(p.post)} new line comments, {len(p.standing)} standing")
        except GitHubForbidden as e:
            A.log(out, f"can't post the review (read-only token, e.g. a fork PR): {e}; "
                  "the findings are in the sticky comment")  # fmt: skip
            return Posted(_READ_ONLY, calls, p)
        except GitHubValidationFailed as e:
            A.log(out, f"GitHub refused a line of the review (422): {e}; "
                  "the findings are in the sticky comment")  # fmt: skip
            return Posted(_REFUSED, calls, p)
        except GitHubError as e:
            A.log(out, f"could not post the review: {e}; the findings are in the sticky comment")
            return Posted(_NOT_POSTED, calls, p)
    calls += _dismiss(client, number, requested if _fixed(p) else [], out)
    gone = 0
    for cid in p.delete[:MAX_DELETES]:
        calls += 1
        try:
            client.delete_review_comment(cid)
            gone += 1
        except GitHubError as e:
            A.log(out, f"could not delete the review comment {cid} whose finding is gone: {e}")
    if len(p.delete) > MAX_DELETES:
        A.log(out, f"{len(p.delete) - MAX_DELETES} review comments whose finding is gone are "
              f"left for the next run (at most {MAX_DELETES} deleted a run)")  # fmt: skip
    if gone:
        A.log(out, f"review: {gone} comments whose finding is gone deleted")
        said = (
            f"{gone} earlier line comment{'s' if gone != 1 else ''} of roofbot no longer "
            f"stand{'s' if gone == 1 else ''}: deleted from the diff."
        )
        note = f"{note} {said}" if note else said
    return Posted(note, calls, p)


def _fixed(p: Plan) -> bool:
    """No finding stands, on a line or off the diff."""
    return not (p.post or p.standing or p.outside)


def _dismiss(client: GitHub, number: int, reviews: Sequence[int], out: TextIO) -> int:
    """Dismiss roofbot's standing requests for changes; the requests it cost."""
    for review_id in reviews:
        try:
            client.dismiss_review(number, review_id, DISMISSED)
            A.log(out, f"review: the changes roofbot requested (review {review_id}) dismissed")
        except GitHubError as e:
            A.log(out, f"could not dismiss roofbot's review {review_id}: {e}")
    return len(reviews)


_READ_ONLY = (
    "The findings could not go on their lines (the token is read-only, as on a pull request "
    "from a fork): they are all in this comment."
)
_REFUSED = "GitHub refused a line of the inline review: the findings are all in this comment."
_NOT_POSTED = "The inline review could not be posted: the findings are all in this comment."


def _outside_note(p: Plan) -> str | None:
    if not p.outside:
        return None
    n = len(p.outside)
    return (
        f"{n} finding{'s are' if n != 1 else ' is'} on lines outside this pull request's diff "
        f"(or past the review's {p.inline} line comments): only in this comment."
    )
