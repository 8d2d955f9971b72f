"""What a pull request changes, as data: the files roofbot cares about, the records re-checked
because a catalogue record they reference changed, and the edits to roofbot's instrument (pins
and calibration entries in `.roofbot.yml`). Filled by the git or API adapter, shown by the
renderers. Nothing here reads or formats."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ChangeStatus = Literal["added", "modified", "renamed", "deleted", "copied", "typechange"]


@dataclass(frozen=True)
class FileChange:
    """One changed path between base and head."""

    status: ChangeStatus
    path: str  # the head path (the base path for a deletion)
    old_path: str | None = None  # renamed/copied: the base path
    symlink: bool = False  # the head version is a symbolic link: never read through it


@dataclass(frozen=True)
class InstrumentChange:
    """One pin or calibration entry of `.roofbot.yml` that differs between base and head."""

    kind: Literal["pin", "calibration", "tolerance"]
    key: str  # "record-id: input" for a pin, "record-id: check" for a calibration entry
    before: str | None  # None: added
    after: str | None  # None: removed


@dataclass(frozen=True)
class Changes:
    files: tuple[FileChange, ...] = ()  # the changed files roofbot reads (records, catalogue)
    dependents: tuple[str, ...] = ()  # record paths re-checked through a changed catalogue record
    instrument: tuple[InstrumentChange, ...] = ()
    source: Literal["git", "api", "none"] = "none"

    @property
    def deleted(self) -> tuple[FileChange, ...]:
        return tuple(f for f in self.files if f.status == "deleted")
