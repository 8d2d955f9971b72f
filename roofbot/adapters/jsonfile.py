"""Reading one record file from a stranger's pull request: bounded, strict JSON (the
standard library's reader, with a hook for every rule), and every failure a sentence a
contributor can act on. Never raises for bad input."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

MAX_BYTES = 2 * 1024 * 1024
"""The largest record file read. The real records are under 20 KB."""


class RecordFileError(ValueError):
    """The file can't be read as a JSON object; the message says why."""


@dataclass(frozen=True)
class Parsed:
    data: dict[str, Any]
    text: str


def _no_constants(name: str) -> Any:
    raise RecordFileError(f"{name} is not a JSON number: write a finite number or null")


def _finite_float(text: str) -> float:
    f = float(text)
    if not math.isfinite(f):
        raise RecordFileError(f"{text[:40]} overflows a double: write a finite number")
    return f


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > 30:
        raise RecordFileError(f"an integer of {len(text)} digits is not a measurement")
    return int(text)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise RecordFileError(f"key {k[:60]!r} appears twice in one object: keep one")
        out[k] = v
    return out


def parse_record_bytes(raw: bytes) -> Parsed:
    """Strict JSON for records, by the standard library with a hook for every rule: UTF-8
    without BOM, no NaN/Infinity, no duplicate keys, no absurd numbers, no lone surrogate,
    an object at the top. Raises RecordFileError with the reason."""
    if len(raw) > MAX_BYTES:
        raise RecordFileError(
            f"the file is {len(raw) / 1e6:.1f} MB, over the {MAX_BYTES // (1024 * 1024)} MiB "
            "limit for one record"
        )
    if raw.startswith(b"\xef\xbb\xbf"):
        raise RecordFileError("the file starts with a UTF-8 byte-order mark: save it without one")
    if b"\x00" in raw:
        raise RecordFileError("the file is binary (it contains NUL bytes), not JSON")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise RecordFileError(f"the file is not UTF-8 (bad byte at offset {e.start})") from None
    try:
        data = json.loads(
            text,
            parse_constant=_no_constants,
            parse_float=_finite_float,
            parse_int=_bounded_int,
            object_pairs_hook=_unique_keys,
        )
    except RecordFileError:
        raise
    except RecursionError:
        raise RecordFileError("the JSON is nested too deeply to be a record") from None
    except json.JSONDecodeError as e:
        raise RecordFileError(syntax_error(text, e)) from None
    except ValueError as e:  # int digit limits and the like
        raise RecordFileError(f"invalid JSON: {str(e)[:120]}") from None
    if not isinstance(data, dict):
        raise RecordFileError(f"the top level is a JSON {type(data).__name__}, not an object")
    if "\\u" in text:  # only a \u escape can make a lone surrogate: strict UTF-8 can't
        _no_lone_surrogates(data)
    return Parsed(data, text)


def _line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def syntax_error(text: str, e: json.JSONDecodeError) -> str:
    """The parser's complaint as the defect a person made, where they made it: a trailing
    comma is found at the comma (the parser stops at the next line's `}`, "Expecting
    property name"), a missing comma after the value it should follow."""
    before = text[: e.pos].rstrip()
    closing = text[e.pos : e.pos + 1]
    if not text[e.pos :].strip() and before:
        return (
            f"invalid JSON at line {e.lineno} column {e.colno}: the file ends before its "
            "closing brackets (it is cut short)"
        )
    if before.endswith(",") and closing in "}]" and closing:
        line, col = _line_col(text, len(before) - 1)
        return (
            f"invalid JSON at line {line} column {col}: a trailing comma before the closing "
            f"'{closing}' (JSON allows none): remove it"
        )
    if e.msg.startswith("Expecting ',' delimiter") and before:
        line, col = _line_col(text, len(before) - 1)
        return (
            f"invalid JSON at line {line} column {col + 1}: a comma is missing after this "
            "value (JSON separates items with commas)"
        )
    return f"invalid JSON at line {e.lineno} column {e.colno}: {e.msg}"


def _no_lone_surrogates(data: dict[str, Any]) -> None:
    """JSON lets `\\ud800` stand alone; Python reads it as a str that no UTF-8 writer takes
    (every report would fail on it). Raises RecordFileError naming where it is."""
    todo: list[tuple[str, Any]] = [("", data)]
    while todo:  # iterative: the data may nest as deep as the parser allowed
        where, value = todo.pop()
        if isinstance(value, dict):
            for k, v in value.items():
                key = f"{where}.{k}" if where else k
                if _surrogate(k) is not None:
                    _refuse(f"a key in {where or 'the record'}", k)
                todo.append((key, v))
        elif isinstance(value, list):
            todo.extend((f"{where}[{i}]", v) for i, v in enumerate(value))
        elif isinstance(value, str):
            _refuse(where, value)


def _surrogate(s: str) -> str | None:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError as e:
        return s[e.start]
    return None


def _refuse(where: str, s: str) -> None:
    bad = _surrogate(s)
    if bad is not None:
        where = where.encode("utf-8", "backslashreplace").decode()[:60]
        raise RecordFileError(
            f"{where} holds \\u{ord(bad):04x}, half of a surrogate pair: that is not a "
            "character; write the character itself or remove the escape"
        )
