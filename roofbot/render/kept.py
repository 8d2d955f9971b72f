"""What the result cache keeps of a record's report beside its result, so that a warm sweep
writes it without building the result: the JSON report's record object, or the text report's
lines. Each form renders a result to bytes, and reads back from those bytes what the report's
header counts (verdict, deprecated, checked), or None for bytes it did not write (or that
are not UTF-8)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Protocol

from roofbot.core.results import RecordResult, Verdict, fails
from roofbot.render import json_report, text
from roofbot.render.findings import has_findings, record_findings

Head = tuple[Verdict, bool, bool]
"""verdict, deprecated, checked (a roof applied)."""


class KeptForm(Protocol):
    column: ClassVar[str]  # the cache's column for it

    def render(self, result: RecordResult, read: Callable[[], bytes | None]) -> bytes:
        """The kept bytes; `read` gives the record file's bytes, where the form needs them."""
        ...

    def head(self, kept: bytes) -> Head | None:
        """What the summary counts, read back; None for bytes this form did not write."""
        ...


@dataclass(frozen=True)
class JsonForm:
    """The record's object in `--format json`, with these trap links."""

    gotchas: dict[str, str | None]
    column: ClassVar[str] = "json"

    def render(self, result: RecordResult, read: Callable[[], bytes | None]) -> bytes:
        return json_report.record_text(result, self.gotchas).encode("utf-8")

    def head(self, kept: bytes) -> Head | None:
        return json_report.kept_head(kept) if kept.isascii() or _utf8(kept) else None


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
        return text.kept_lines(result, record_findings(result, raw, failing))

    def head(self, kept: bytes) -> Head | None:
        return text.kept_head(kept) if kept.isascii() or _utf8(kept) else None


def _utf8(kept: bytes) -> bool:
    """Bytes a report may write out as they are: UTF-8 (the forms ask `isascii` first: most
    records are ASCII, which says so without decoding or a call)."""
    try:
        kept.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
