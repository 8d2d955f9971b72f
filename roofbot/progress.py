"""A progress bar for long sweeps, drawn on standard error only when it is a terminal and
never in CI (CI, GITHUB_ACTIONS) or with --quiet, so logs and pipes stay clean."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from typing import TextIO

#: A sweep of at least this many records is long enough for a bar.
MIN_RECORDS = 100
_WIDTH = 30
_INTERVAL = 0.1  # seconds between redraws


def wanted(stream: TextIO, env: Mapping[str, str], quiet: bool) -> bool:
    if quiet or env.get("CI") or env.get("GITHUB_ACTIONS"):
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class ProgressBar:
    """A `Progress` callback for `run_check`: `bar(done, total)`; `close()` clears the line."""

    def __init__(self, stream: TextIO, label: str = "checking") -> None:
        self.stream = stream
        self.label = label
        self.drawn = False
        self._last = 0.0

    def __call__(self, done: int, total: int) -> None:
        if total < MIN_RECORDS:
            return
        now = time.monotonic()
        if done < total and self.drawn and now - self._last < _INTERVAL:
            return
        self._last = now
        filled = _WIDTH * done // total
        bar = "#" * filled + "." * (_WIDTH - filled)
        self.stream.write(f"\r{self.label} [{bar}] {done}/{total} records")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()


def progress_for(
    stream: TextIO, quiet: bool, env: Mapping[str, str] | None = None
) -> ProgressBar | None:
    return (
        ProgressBar(stream) if wanted(stream, os.environ if env is None else env, quiet) else None
    )
