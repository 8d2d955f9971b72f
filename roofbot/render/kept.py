"""What the result cache keeps of a record's report beside its result, so that a warm sweep
writes it without building the result: the JSON report's record object, or the text report's
lines, after a first line with what the report's header counts (verdict, deprecated, checked).
Each form renders a result to those bytes, and reads them back: the counts by one look-up of
the first line, and what the report prints; None for bytes it did not write (or that are not
UTF-8)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Protocol

from roofbot.core.results import RecordResult, Verdict, fails
from roofbot.render import text
from roofbot.render.findings import has_findings, record_findings
from roofbot.render.json_text import record_text

Kept = tuple[Verdict, bool, bool, bytes]
"""verdict, deprecated, checked (a roof applied), and what the report prints of the record."""


class KeptForm(Protocol):
    column: ClassVar[str]  # the cache's column for it

    def render(self, result: RecordResult, read: Callable[[], bytes | None]) -> bytes:
        """The kept bytes; `read` gives the record file's bytes, where the form needs them."""
        ...

    def read_back(self, kept: bytes) -> Kept | None:
        """What the summary counts and what the report prints; None for bytes this form did
        not write."""
        ...


@dataclass(frozen=True)
class JsonForm:
    """The record's object in `--format json`, with these trap links."""

    gotchas: dict[str, str | None]
    column: ClassVar[str] = "json"

    def render(self, result: RecordResult, read: Callable[[], bytes | None]) -> bytes:
        return _with_head(result, record_text(result, self.gotchas))

    def read_back(self, kept: bytes) -> Kept | None:
        got = _read_back(kept)
        if got is None or not (got[3].startswith(b"    {\n") and got[3].endswith(b"\n    }")):
            return None  # not a whole record object: its braces, at its depth, start and end it
        return got


@dataclass(frozen=True)
class TextForm:
    """The record's lines in the default text report (not verbose), with `path:line` and
    what to change, read from the record file; whether a record fails the run follows the
    config (part of every row's fingerprint)."""

    fail_on: frozenset[Verdict]
    deprecated_fail: bool
    column: ClassVar[str] = "lines"

    def render(self, result: RecordResult, read: Callable[[], bytes | None]) -> bytes:
        failing = fails(result, self.fail_on, self.deprecated_fail)
        raw = read() if has_findings(result) else None
        return _with_head(result, text.kept_lines(result, record_findings(result, raw, failing)))

    def read_back(self, kept: bytes) -> Kept | None:
        return _read_back(kept)


def _head_line(verdict: Verdict, deprecated: bool, checked: bool) -> str:
    return f"{verdict.value} {deprecated:d} {checked:d}"


def _with_head(result: RecordResult, printed: str) -> bytes:
    head = _head_line(result.verdict, result.deprecated, result.checked)
    return f"{head}\n{printed}".encode()


_HEADS = {
    _head_line(v, deprecated, checked).encode(): (v, deprecated, checked)
    for v in Verdict
    for deprecated in (False, True)
    for checked in (False, True)
}
"""Every first line `_with_head` writes, read back by one look-up (not split and decoded)."""


def printed(kept: bytes) -> bytes:
    """What the report prints of bytes a form's `render` has just written: all after the head
    line, which is the result's own (bytes read from the cache go through `read_back`)."""
    return kept.partition(b"\n")[2]


def _read_back(kept: bytes) -> Kept | None:
    """The head line read back, and the rest where it is UTF-8 (a report writes it as it
    is); None for bytes no form wrote."""
    first, _, printed = kept.partition(b"\n")
    head = _HEADS.get(first)
    if head is None or not printed or not (printed.isascii() or _utf8(printed)):
        return None
    return (*head, printed)


def _utf8(kept: bytes) -> bool:
    """Bytes a report may write out as they are: UTF-8 (the forms ask `isascii` first: most
    records are ASCII, which says so without decoding or a call)."""
    try:
        kept.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
