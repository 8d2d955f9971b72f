"""Ids that only look like ASCII. An id written with a Cyrillic `а` or a Greek `ο` reads as the
catalogue's `nvidia-…`, does not resolve, and the comment's "'nvidiа-rtx-5090' does not resolve"
would look like roofbot's mistake. Every quoted token of a message that mixes ASCII letters
with other characters gets its code points written out after it, `(nvidi\\u0430-rtx-5090)`."""

from __future__ import annotations

import re

_QUOTED = re.compile(r"'([^'\s]{1,200})'")


def escaped_code_points(text: str) -> str:
    """`nvidiа` -> `nvidi\\u0430`: every non-ASCII character as its code point."""
    return "".join(
        c if c.isascii() else (f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}")
        for c in text
    )


def looks_ascii(token: str) -> bool:
    """Mostly ASCII letters, with something else mixed in: a homoglyph of an ASCII id."""
    ascii_letters = sum(1 for c in token if c.isascii() and c.isalnum())
    return not token.isascii() and ascii_letters >= max(1, len(token) // 2)


def reveal(text: str) -> str:
    """The message with each homoglyph id's code points written out after it."""

    def one(m: re.Match[str]) -> str:
        token = m.group(1)
        if not looks_ascii(token):
            return m.group(0)
        return f"{m.group(0)} (unresolved, written {escaped_code_points(token)})"

    return _QUOTED.sub(one, text) if "'" in text else text
