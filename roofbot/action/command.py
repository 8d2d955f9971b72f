"""`/roofcheck`: rerun roofbot from a comment on a pull request (`issue_comment` events).

`run_comment` wires the decisions of roofbot/action/command_rules.py (which comments are
commands, what they ask, who may run them, the fixed replies) to GitHub: it reacts to the
command comment (eyes on receipt, rocket when done, confused on failure), learns the pull
request's current head from the API (an `issue_comment` event carries no SHA, and its
workflow runs on the default branch), and runs the same check as a push does
(`roofbot.action.pull.check_pull`): pending then final status on that head, the same sticky
comment."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import TextIO

from roofbot.action.command_rules import (
    NOT_ALLOWED,
    Command,
    CommandError,
    CommentEvent,
    Ignored,
    Kind,
    approve_refusal,
    authorize,
    read_event,
    refused_marker,
    reply_for,
    takes_a_checks_place,
    triage,
)
from roofbot.action.event import COMMENT_EVENT, PullEvent, UsageError, read_payload
from roofbot.action.pull import Checked, check_pull, make_client
from roofbot.action.settings import settings_for
from roofbot.adapters import actions as A
from roofbot.adapters.github.errors import GitHubError
from roofbot.adapters.github.models import ReactionContent
from roofbot.adapters.github.protocol import GitHub


def run_comment(env: Mapping[str, str], *, dry_run: bool = False, out: TextIO = sys.stdout) -> int:
    """Answer an `issue_comment` event. Exit code: 0 nothing to do, or the check passed;
    1 the check failed or roofbot could not finish; 2 usage error."""

    try:
        _, payload = read_payload(env)
        event = read_event(payload)
    except (UsageError, CommandError) as e:
        A.log(out, f"error: {e}")
        return 2
    decision = triage(event)
    if isinstance(decision, Ignored):
        A.log(out, f"comment {event.comment_id} ignored: {decision.reason}")
        return 0
    command = decision.command
    if dry_run:
        A.log(out, f"dry run: /roofcheck {command.kind.value} on #{event.issue_number} not run")
        return 0
    try:
        client = make_client(env)
    except UsageError as e:
        A.log(out, f"error: {e}")
        return 2
    try:
        return _answer(env, client, event, command, out)
    finally:
        client.close()


def _answer(
    env: Mapping[str, str], client: GitHub, event: CommentEvent, command: Command, out: TextIO
) -> int:
    """A fixed reply, a refusal, or the check run on the pull request's head."""
    fixed = reply_for(command)
    if fixed is not None:
        _reply(client, event.issue_number, fixed, out)
        return 0
    try:
        auth = authorize(event.association, lambda: client.permission(event.author_login))
    except GitHubError as e:
        why = f"could not look up the permission of {event.author_login}: {e}"
        return _give_up(client, event, why, 1, out)
    if not auth.allowed:
        A.log(out, f"/roofcheck by {event.author_login} not run: {auth.via}")
        _refuse(client, event, out)
        if takes_a_checks_place(event.association, command):
            return _restore(env, client, event, out)
        return 0
    A.log(out, f"/roofcheck {command.kind.value} by {event.author_login} ({auth.via})")
    _react(client, event.comment_id, "eyes", out)
    try:
        checked, approved_nothing = _check_head(env, client, event, command, out)
    except GitHubError as e:
        return _give_up(
            client, event, f"could not read pull request #{event.issue_number}: {e}", 1, out
        )
    except UsageError as e:
        return _give_up(client, event, f"error: {e}", 2, out)
    except BaseException:
        _react(client, event.comment_id, "confused", out)
        raise
    done = checked.state in ("success", "failure")  # the check ran; it may have found problems
    _react(client, event.comment_id, "rocket" if done and not approved_nothing else "confused", out)
    return checked.code


def _restore(env: Mapping[str, str], client: GitHub, event: CommentEvent, out: TextIO) -> int:
    """The head checked as a push checks it, for a refused command whose job may have taken the
    place of a queued check in the pull request's concurrency group (it approves and sweeps
    nothing; see command_rules.takes_a_checks_place)."""
    A.log(out, "checking the head as a push does: this job may have replaced a queued check "
               "of it in the pull request's concurrency group")  # fmt: skip
    try:
        checked, _ = _check_head(env, client, event, Command(Kind.RERUN), out)
    except GitHubError as e:
        A.log(out, f"could not read pull request #{event.issue_number}: {e}")
        return 1
    return checked.code


def _refuse(client: GitHub, event: CommentEvent, out: TextIO) -> None:
    """Tell a commenter who may not run `/roofcheck` so, once a pull request."""
    number, mark = event.issue_number, refused_marker(event.author_login)
    try:
        answered = client.has_bot_comment(number, mark)
    except GitHubError as e:
        A.log(out, f"could not list the comments of #{number}: {e}")
        answered = True  # in doubt, stay quiet: a missing reply costs less than a flood
    if answered:
        A.log(out, f"{event.author_login} was already answered on #{number}: no reply")
        return
    _reply(client, number, NOT_ALLOWED + mark + "\n", out)


def _check_head(
    env: Mapping[str, str], client: GitHub, event: CommentEvent, command: Command, out: TextIO
) -> tuple[Checked, bool]:
    """The check a push runs, on the pull request's current head (as the API tells it), and
    whether this was a `/roofcheck approve` that approves nothing (it names no head, or not the
    current one: the reply says why, and the check still runs, so that a command never leaves
    the head without a status; see docs/workflows.md, concurrency). An approval is not handed
    to the check: the check reads it from this comment on GitHub
    (roofbot.action.approval_lookup), with the commenter's permission asked again."""
    pull = client.get_pull(event.issue_number)
    refusal = None
    if command.kind is Kind.APPROVE:
        refusal = approve_refusal(command, pull.head_sha)
        if refusal is not None:
            A.log(out, f"/roofcheck approve by {event.author_login} approves nothing: "
                       f"it does not name the head {pull.head_sha[:12]}")  # fmt: skip
            _reply(client, event.issue_number, refusal, out)
    if pull.state != "open":
        A.log(out, f"#{event.issue_number} is {pull.state}: checking its head anyway")
    pr_event = PullEvent(
        number=pull.number,
        action=command.kind.value,
        base_sha=pull.base_sha,
        head_sha=pull.head_sha,
        base_ref=pull.base_ref,
        is_fork=pull.is_fork,
        draft=pull.draft,
    )
    settings = settings_for(env, COMMENT_EVENT, pr_event, sweep=command.kind is Kind.ALL)
    return check_pull(settings, env, client, out), refusal is not None


def _give_up(client: GitHub, event: CommentEvent, why: str, code: int, out: TextIO) -> int:
    """Log why the command could not finish, mark its comment confused, and return `code`."""
    A.log(out, why)
    _react(client, event.comment_id, "confused", out)
    return code


def _logged(call: Callable[[], object], failure: str, out: TextIO) -> None:
    """One GitHub call whose failure costs only a log line: `failure`, then the error."""
    try:
        call()
    except GitHubError as e:
        A.log(out, f"{failure}: {e}")


def _react(client: GitHub, comment_id: int, content: ReactionContent, out: TextIO) -> None:
    failure = f"could not react {content} to comment {comment_id}"
    _logged(lambda: client.react(comment_id, content), failure, out)


def _reply(client: GitHub, number: int, body: str, out: TextIO) -> None:
    _logged(lambda: client.reply(number, body), f"could not reply on #{number}", out)
