"""The GitHub Actions runner surface: workflow commands (annotations), step outputs and the job
summary. Every value written here is escaped per the workflow-command rules, so no record text
can forge a command, an output or a mask."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TextIO

#: GitHub shows at most 10 error and 10 warning annotations per step.
MAX_ANNOTATIONS = 10
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


_ZWSP = "\u200b"


def neutralise(text: str) -> str:
    """Text the runner can't read as a workflow command wherever it stands in a line: `::`
    (`::add-mask::`, `::stop-commands::`) and `##[` (the older `##[command]` form, which the
    runner finds anywhere) get a zero-width space between their characters."""
    return text.replace("::", ":" + _ZWSP + ":").replace("##[", "#" + _ZWSP + "#[")


def escape_data(text: str) -> str:
    """A workflow command's message: `%`, CR and LF percent-encoded, `::` and `##[`
    neutralised."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return neutralise(text)


def escape_property(text: str) -> str:
    """A workflow command's property value: as data, plus `:` and `,`."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


@dataclass(frozen=True)
class Annotation:
    level: Literal["error", "warning", "notice"]
    message: str
    file: str | None = None
    line: int | None = None
    title: str | None = None

    def command(self) -> str:
        props = []
        if self.file:
            props.append(f"file={escape_property(self.file)}")
        if self.line:
            props.append(f"line={int(self.line)}")
        if self.title:
            props.append(f"title={escape_property(self.title)}")
        head = f"::{self.level}" + (" " + ",".join(props) if props else "")
        return f"{head}::{escape_data(self.message)}"


def emit_annotations(annotations: list[Annotation], out: TextIO) -> int:
    """Print up to MAX_ANNOTATIONS of each level; returns how many were left out."""
    seen: dict[str, int] = {}
    dropped = 0
    for a in annotations:
        seen[a.level] = seen.get(a.level, 0) + 1
        if seen[a.level] > MAX_ANNOTATIONS:
            dropped += 1
            continue
        print(a.command(), file=out)
    return dropped


def write_outputs(env: Mapping[str, str], values: Mapping[str, str]) -> None:
    """Append step outputs to $GITHUB_OUTPUT (heredoc form with a random delimiter)."""
    target = env.get("GITHUB_OUTPUT")
    if not target:
        return
    import secrets  # hashlib and hmac with it: not for the CLI, which only neutralises text

    with open(target, "a", encoding="utf-8") as fh:
        for name, value in values.items():
            if not _NAME.fullmatch(name):
                raise ValueError(f"bad output name {name!r}")
            delimiter = f"ghadelimiter_{secrets.token_hex(8)}"
            fh.write(f"{name}<<{delimiter}{os.linesep}{value}{os.linesep}{delimiter}{os.linesep}")


def write_summary(env: Mapping[str, str], markdown: str) -> bool:
    """Append Markdown to $GITHUB_STEP_SUMMARY; False when there is none."""
    target = env.get("GITHUB_STEP_SUMMARY")
    if not target:
        return False
    with open(target, "a", encoding="utf-8") as fh:
        fh.write(markdown if markdown.endswith("\n") else markdown + "\n")
    return True


def log(out: TextIO, message: str) -> None:
    """A log line that can never be read as a workflow command: it starts with `roofbot: `,
    and `::` and `##[` are neutralised wherever they stand (the runner reads `##[` anywhere)."""
    for part in message.splitlines() or [""]:
        print(f"roofbot: {neutralise(part)}", file=out)


def input_value(env: Mapping[str, str], name: str, default: str = "") -> str:
    """An action input: INPUT_<NAME> with the name upper-cased, hyphens kept (as the runner
    sets them) or turned into underscores."""
    upper = name.upper()
    for key in (f"INPUT_{upper}", f"INPUT_{upper.replace('-', '_')}"):
        value = env.get(key)
        if value is not None and value.strip():
            return value.strip()
    return default


def workspace(env: Mapping[str, str]) -> Path:
    return Path(env.get("GITHUB_WORKSPACE") or ".").resolve()
