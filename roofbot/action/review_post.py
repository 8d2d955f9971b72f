"""The inline review, posted: the diff's patches read (git diff, or the PR files' `patch` in API
mode), roofbot's earlier line comments listed, the plan of roofbot/action/review.py carried out.

API budget (docs/workflows.md): at most `REVIEW_BUDGET` requests a run, whatever the PR's
size: 1 to list the line comments (100 a page), 1 to submit the new ones as one review
(event COMMENT, never REQUEST_CHANGES unless the input says so), and what is left of the
three to delete comments whose finding is gone; a comment past that is deleted by the next
run, and the log says so. Never raises: a read-only token (403, a fork's pull request) or a
line GitHub won't take (422) leaves the findings in the sticky comment, and the log says so."""

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

REVIEW_BUDGET = 3
PAGE = 100


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
    p = plan(report, comparison, patches, read, existing, client.sticky_login())
    note = _outside_note(p)
    if p.post:
        calls += 1
        body = (
            f"roofcheck: {p.inline} finding{'s' if p.inline != 1 else ''} on the lines of this "
            "diff; the sticky comment has the whole report."
        )
        try:
            client.create_review(number, head_sha, body, [c.payload() for c in p.post], event)
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
    room = max(REVIEW_BUDGET - calls, 0)
    for cid in p.delete[:room]:
        calls += 1
        try:
            client.delete_review_comment(cid)
        except GitHubError as e:
            A.log(out, f"could not delete the review comment {cid} whose finding is gone: {e}")
    if len(p.delete) > room:
        A.log(out, f"{len(p.delete) - room} review comments whose finding is gone are left "
              f"for the next run (at most {REVIEW_BUDGET} review requests a run)")  # fmt: skip
    if gone := len(p.delete[:room]):
        A.log(out, f"review: {gone} comments whose finding is gone deleted")
        said = (
            f"{gone} earlier line comment{'s' if gone != 1 else ''} of roofbot no longer "
            f"stand{'s' if gone == 1 else ''}: deleted from the diff."
        )
        note = f"{note} {said}" if note else said
    return Posted(note, calls, p)


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
