"""What a change set changes, as data and pure rules: the files roofbot cares about, the
records re-checked because a catalogue record they reference changed, and the edits to
roofbot's instrument (pins and calibration entries in `.roofbot.yml`); which glob a path
matches, which catalogue kind a path is, and which catalogue records a benchmark record refers
to. Filled by the git or API adapter, shown by the renderers. Nothing here reads or formats."""

from __future__ import annotations

import fnmatch
import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from roofbot.core.catalogue import Catalogue

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

    kind: Literal["pin", "calibration", "tolerance", "setting", "schema"]
    # "record-id: input" for a pin, "record-id: check" for a calibration entry ("record-id:
    # record" where the PR deletes or moves the record itself), the key for any other setting
    # ("fail_on", "catalogue.models"), the file's path for a schema
    key: str
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


# ------------------------------------------------------------------ globs and references


def path_matches(path: str, pattern: str) -> bool:
    """Glob matching by path segment, as git and pathlib match: `*` never crosses a `/`, so
    "data/benchmarks/*.json" names the records of that folder and not those of a subfolder,
    and a `**` segment stands for any number of folders, none included ("data/**/*.json")."""
    return _segments_match(tuple(path.split("/")), tuple(pattern.split("/")))


def _segments_match(parts: tuple[str, ...], pats: tuple[str, ...]) -> bool:
    if not pats:
        return not parts
    if pats[0] == "**":
        return any(_segments_match(parts[i:], pats[1:]) for i in range(len(parts) + 1))
    return (
        bool(parts)
        and fnmatch.fnmatchcase(parts[0], pats[0])
        and (_segments_match(parts[1:], pats[1:]))
    )


def matches_any(path: str, patterns: Iterable[str]) -> bool:
    return any(path_matches(path, p) for p in patterns)


def catalogue_kind(path: str, catalogue_globs: Mapping[str, tuple[str, ...]]) -> str | None:
    """'accelerators', 'models', 'quantization' or 'gotchas' for a catalogue path, else None."""
    for kind, patterns in catalogue_globs.items():
        if matches_any(path, patterns):
            return kind
    return None


REFERABLE = frozenset({"accelerators", "models", "quantization"})
"""The catalogue kinds a benchmark record refers to (a gotcha is linked, not referred to)."""


def changed_references(
    paths: Iterable[str], catalogue_globs: Mapping[str, tuple[str, ...]]
) -> set[tuple[str, str]]:
    """The (kind, id) of each path that is a catalogue record a benchmark record can refer to:
    the records to re-check are those that refer to one of them."""
    out = set()
    for path in paths:
        kind = catalogue_kind(path, catalogue_globs)
        if kind in REFERABLE:
            out.add((kind, posixpath.splitext(posixpath.basename(path))[0]))
    return out


def references(
    data: Mapping[str, Any], catalogue: Catalogue, kinds: frozenset[str] = REFERABLE
) -> set[tuple[str, str]]:
    """The (kind, id) catalogue records a benchmark record refers to: its accelerator_ids (or
    the parts its text names when it has none), its format_id, and the model it names; only
    those of `kinds` (the rest are not looked for: naming a model costs a slug and a look-up)."""
    refs: set[tuple[str, str]] = set()
    if "accelerators" in kinds:
        ids = data.get("accelerator_ids")
        if isinstance(ids, list):
            refs.update(("accelerators", i) for i in ids if isinstance(i, str))
        if not ids:
            text = " ".join(str(data.get(k) or "") for k in ("name", "methodology"))
            refs.update(("accelerators", a.id) for a in catalogue.match_accelerators(text))
    fmt = data.get("format_id")
    if "quantization" in kinds and isinstance(fmt, str):
        refs.add(("quantization", fmt))
    model = data.get("model")
    if isinstance(model, str):
        if "models" in kinds:
            m = catalogue.match_model(model)
            if m is not None:
                refs.add(("models", m.id))
        if "quantization" in kinds:
            named = model.lower().replace("_", "-")
            for q in catalogue.quantization.values():  # formats named in the model string
                if len(q.id) >= 4 and q.id in named:
                    refs.add(("quantization", q.id))
    return refs
