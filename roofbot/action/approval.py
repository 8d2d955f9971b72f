"""`/roofcheck approve`: a maintainer accepts a pull request's instrument changes for one head.

An approval is bound to the head SHA it was given on: a new push needs a new one. It lives in
roofbot's own sticky comment (found by its marker *and* the bot's login, so nobody else can
write it) as one hidden line, `<!-- roofbot:approved sha=<40 hex> by=<login> -->`, right after
the comment's marker. Record text can never forge it: every string from a record is escaped,
and the escaping turns `<!--` into `< !--`. Each run that still holds the same head writes the
line again; a run on another head drops it."""

from __future__ import annotations

import re
from dataclasses import dataclass

PREFIX = "<!-- roofbot:approved "
_LINE = re.compile(
    r"^<!-- roofbot:approved sha=([0-9a-f]{40}) by=([A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?) -->$",
    re.MULTILINE,
)


@dataclass(frozen=True)
class Approval:
    sha: str
    by: str

    def line(self) -> str:
        return f"{PREFIX}sha={self.sha} by={self.by} -->"


def parse(body: str) -> Approval | None:
    """The approval recorded in a sticky comment's body (on its second line), if any."""
    lines = body.split("\n", 2)
    if len(lines) < 2:
        return None
    m = _LINE.fullmatch(lines[1].strip())
    return Approval(m.group(1), m.group(2)) if m else None


def valid_for(approval: Approval | None, head_sha: str) -> Approval | None:
    """The approval if it was given on this head, else None (a new push needs a new one)."""
    if approval is not None and approval.sha.lower() == head_sha.lower():
        return approval
    return None


def stamp(comment: str, approval: Approval | None) -> str:
    """The comment with the approval line after its first line (the marker)."""
    if approval is None:
        return comment
    first, _, rest = comment.partition("\n")
    return f"{first}\n{approval.line()}\n{rest}"
