"""What a `/roofcheck` comment asks and whether roofbot answers it: pure decisions over the
`issue_comment` payload, each with the words it logs or replies defined right above it. Which
comments are commands (`triage`), what a command asks (`parse_command`), who may run it
(`authorize`), and the fixed replies (`reply_for`, `NOT_ALLOWED`). Nothing a commenter writes
is ever echoed: replies are fixed text. roofbot/action/command.py runs what these decide."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

COMMAND = "/roofcheck"
REPLY_MARKER = "<!-- roofbot:reply -->"  # not the sticky marker: a reply is never the report


class CommandError(ValueError):
    """The event payload is not an issue_comment payload."""


class Kind(Enum):
    RERUN = "rerun"  # `/roofcheck`: the changed records, as on a push
    ALL = "all"  # `/roofcheck all`: every record of the repository at the PR's head
    HELP = "help"
    APPROVE = "approve"  # `/roofcheck approve <sha>`: accept the instrument changes of that head
    UNKNOWN = "unknown"  # `/roofcheck something-else`: answered with the help


@dataclass(frozen=True)
class Command:
    kind: Kind
    sha: str | None = None  # APPROVE: the head SHA (prefix) it names, None: names none


@dataclass(frozen=True)
class CommentEvent:
    """The fields of an `issue_comment` payload roofbot reads."""

    action: str
    issue_number: int
    on_pull: bool  # `issue.pull_request` is present only on a pull request
    comment_id: int
    body: str
    author_login: str
    author_type: str  # "User", "Bot", "Organization"
    association: str | None  # absent from older payloads: then the permission decides
    via_app: bool  # `performed_via_github_app` is set: written by an app


@dataclass(frozen=True)
class Ignored:
    """Not a command roofbot answers; `reason` goes to the log only."""

    reason: str


@dataclass(frozen=True)
class Request:
    """A command to answer."""

    event: CommentEvent
    command: Command


@dataclass(frozen=True)
class Authorization:
    allowed: bool
    via: str  # what decided it, for the log: "author association OWNER", "permission read"


# ------------------------------------------------------------------ reading the event


def read_event(payload: Mapping[str, Any]) -> CommentEvent:
    """The comment event's fields, or CommandError when the payload is not one."""
    try:
        issue, comment = payload["issue"], payload["comment"]
        user = comment.get("user") or {}
        association = comment.get("author_association")
        return CommentEvent(
            action=str(payload.get("action") or ""),
            issue_number=int(issue["number"]),
            on_pull=isinstance(issue.get("pull_request"), Mapping),
            comment_id=int(comment["id"]),
            body=str(comment.get("body") or ""),
            author_login=str(user.get("login") or ""),
            author_type=str(user.get("type") or ""),
            association=str(association).upper() if association else None,
            via_app=bool(comment.get("performed_via_github_app")),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise CommandError(f"the event payload is not an issue_comment event: {e!r}") from None


# ------------------------------------------------------------------ the SHA an approval names

VERB = "approve"
MIN_DIGITS = 7
SHA_PREFIX = re.compile(r"[0-9a-fA-F]{7,64}")


def named_sha(body: str) -> str | None:
    """The SHA (prefix) a `/roofcheck approve <sha>` comment names, lower case; None when its
    first line is not that command with a SHA of 7 to 64 hex digits."""
    first = body.lstrip("\ufeff").split("\n", 1)[0].strip()
    words = first.split()
    if len(words) != 3 or words[0].lower() != COMMAND or words[1].lower() != VERB:
        return None
    return words[2].lower() if SHA_PREFIX.fullmatch(words[2]) else None


def names_head(prefix: str | None, head_sha: str) -> bool:
    """Whether `prefix` (7+ hex digits) names `head_sha`."""
    return (
        prefix is not None
        and len(prefix) >= MIN_DIGITS
        and head_sha.lower().startswith(prefix.lower())
    )


# ------------------------------------------------------------------ what a comment asks

KINDS = {"": Kind.RERUN, "all": Kind.ALL, "help": Kind.HELP}


def parse_command(body: str) -> Command | None:
    """The command on the comment's first line: `/roofcheck`, `/roofcheck all`,
    `/roofcheck help`, `/roofcheck approve <sha>` (the SHA may be missing or malformed: it
    then approves nothing, and the reply says why); anything else after `/roofcheck` is
    UNKNOWN. None: not a command (a quote `> /roofcheck`, `/roofchecks`, or `/roofcheck` on a
    later line)."""
    first = body.lstrip("\ufeff").split("\n", 1)[0].strip()
    words = first.split()
    if not words or words[0].lower() != COMMAND:
        return None
    if len(words) > 1 and words[1].lower() == "approve":
        return Command(Kind.APPROVE, named_sha(first))
    argument = " ".join(words[1:]).lower()
    return Command(KINDS.get(argument, Kind.UNKNOWN))


# ------------------------------------------------------------------ which comments count

NOT_CREATED = "the comment was {action}, not created: only a new comment runs a command"
NOT_A_PULL = "issue #{number} is not a pull request"
FROM_A_BOT = "the comment is by a bot ({login})"
NOT_A_COMMAND = "the comment's first line is not a /roofcheck command"


def is_bot(event: CommentEvent) -> bool:
    return event.author_type == "Bot" or event.author_login.endswith("[bot]") or event.via_app


def triage(event: CommentEvent) -> Ignored | Request:
    """Whether roofbot answers this comment: a new comment, on a pull request, by a person,
    whose first line is `/roofcheck`. Edited comments, plain issues and bots are ignored."""
    if event.action != "created":
        return Ignored(NOT_CREATED.format(action=event.action or "changed"))
    if not event.on_pull:
        return Ignored(NOT_A_PULL.format(number=event.issue_number))
    if is_bot(event):
        return Ignored(FROM_A_BOT.format(login=event.author_login or "unknown"))
    command = parse_command(event.body)
    if command is None:
        return Ignored(NOT_A_COMMAND)
    return Request(event, command)


# ------------------------------------------------------------------ who may run it

#: The author association that alone proves write access (fast path). MEMBER and COLLABORATOR
#: do not: a read-only organisation member or a triage collaborator has them too.
MERGERS = frozenset({"OWNER"})
#: Repository permissions that can merge, from the collaborator-permission endpoint (either
#: the legacy `permission` or `role_name`; `GitHubClient.permission` takes the stronger).
WRITERS = frozenset({"write", "maintain", "admin"})

WHO_MAY_RUN = (
    "`/roofcheck` can be run by people who may merge into this repository: its owner, and "
    "anyone with write, maintain or admin permission on it."
)
NOT_ALLOWED = (
    f"{REPLY_MARKER}\n"
    "Thanks for asking for a new check. "
    f"{WHO_MAY_RUN} "
    "roofbot already checks this pull request by itself every time it is updated, so there is "
    "nothing you need to do; a maintainer can ask for a rerun if one is needed.\n"
)


def refused_marker(login: str) -> str:
    """The hidden line that says this user was already told they may not run `/roofcheck` on
    this pull request: a digest of the login, so the reply mentions no one."""
    digest = hashlib.sha256(login.lower().encode("utf-8")).hexdigest()[:16]
    return f"<!-- roofbot:refused {digest} -->"


def authorize(association: str | None, permission: Callable[[], str]) -> Authorization:
    """Allowed when the comment's author association is OWNER; otherwise `permission()` (one
    API call) must be write, maintain or admin (a MEMBER or COLLABORATOR may have read or
    triage only). Errors of
    `permission()` propagate: the caller decides (roofbot runs nothing)."""
    if association in MERGERS:
        return Authorization(True, f"author association {association}")
    level = permission()
    return Authorization(level in WRITERS, f"permission {level}")


#: The associations the example workflow lets start a job in the pull request's concurrency
#: group before roofbot can ask their permission (docs/workflows.md, concurrency).
GROUPED = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})
#: The commands that check the head (the workflow gives every other comment a group of its own).
CHECKS = frozenset({Kind.RERUN, Kind.ALL, Kind.APPROVE})


def takes_a_checks_place(association: str | None, command: Command) -> bool:
    """Whether a refused command must still check the head as a push does: its job ran in the
    pull request's concurrency group, where GitHub cancels the pending run when a newer one
    queues, so it may have replaced the queued check of a new head; ending without a status
    would leave that head's required check waiting forever. It approves and sweeps nothing."""
    return association in GROUPED and command.kind in CHECKS


# ------------------------------------------------------------------ help

HELP = (
    f"{REPLY_MARKER}\n"
    "**roofbot commands**, on the first line of a new comment on a pull request:\n\n"
    "| command | what it does |\n"
    "|---|---|\n"
    "| `/roofcheck` | checks this pull request again, on its current head: the changed "
    "benchmark records and every record a changed catalogue entry affects, the same check "
    "as on every push (status `roofcheck`, the report comment updated in place) |\n"
    "| `/roofcheck all` | checks every benchmark record of the repository at this pull "
    "request's head; the `roofcheck` status then covers all of them (`/roofcheck` goes back "
    "to the changed records) |\n"
    "| `/roofcheck approve <sha>` | accepts the changes this pull request makes to the "
    "instrument (catalogue records, pins) for the head `<sha>` names (its first 7 or more "
    "hex digits; it must be the current head) into the current base branch: a new push, or a "
    "new base branch, needs a new approval; the comment says who approved |\n"
    "| `/roofcheck help` | this message |\n\n"
    f"{WHO_MAY_RUN}\n"
)
UNKNOWN = HELP.replace(
    "**roofbot commands**", "`/roofcheck` does not know that argument. **roofbot commands**", 1
)


APPROVE_NAMES_NO_HEAD = (
    f"{REPLY_MARKER}\n"
    "Nothing was approved: `/roofcheck approve` must name the head it approves, as "
    "`/roofcheck approve <sha>` with the first 7 or more hex digits of the pull request's head "
    "commit, so that a push made after the comment is never approved by it. The head is now "
    "`{head}`; it was checked again without an approval.\n"
)
APPROVE_STALE = (
    f"{REPLY_MARKER}\n"
    "Nothing was approved: the SHA in `/roofcheck approve` does not name this pull request's "
    "head, which is now `{head}` (a push came after the commit you reviewed, or the SHA is "
    "mistyped). Review the head, then approve it by its SHA. The head was checked again "
    "without an approval.\n"
)


def approve_refusal(command: Command, head_sha: str) -> str | None:
    """The fixed reply (with the head's SHA, from GitHub) when `/roofcheck approve` names no
    commit or not the current head; None: it names the head."""
    if command.sha is None:
        return APPROVE_NAMES_NO_HEAD.format(head=head_sha[:12])
    if not names_head(command.sha, head_sha):
        return APPROVE_STALE.format(head=head_sha[:12])
    return None


def reply_for(command: Command) -> str | None:
    """The fixed reply a command gets without running anything, or None: it runs."""
    if command.kind is Kind.HELP:
        return HELP
    if command.kind is Kind.UNKNOWN:
        return UNKNOWN
    return None
