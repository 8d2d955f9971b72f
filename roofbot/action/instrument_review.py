"""What the check-twice found where a pull request moves the instrument (see
roofbot/action/instrument.py for whose instrument judges it): the catalogue fields the PR edits,
old -> new; the catalogue parts it adds, with the figures every roof will rest on; the records
whose verdict or percent moves between the base's instrument and the PR's, and which of them are
held until a maintainer approves; and the `Review` that gathers them for the comment and the
status. Pure functions over configs, trees and results."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from roofbot.action.instrument import stem
from roofbot.adapters.jsonfile import MAX_BYTES
from roofbot.adapters.tree import Tree, TreeError
from roofbot.core.changes import FileChange, InstrumentChange, catalogue_kind
from roofbot.core.config import Config
from roofbot.core.results import RecordResult, Report, fails

HELD = "changes the instrument: a maintainer must approve"
HELD_EDIT = "edits roofbot's configuration, schemas or calibration: a maintainer must approve"
REFERABLE_KINDS = ("accelerators", "models", "quantization")
MAX_FIELD_CHANGES = 60  # catalogue fields listed old -> new, at most


@dataclass(frozen=True)
class FieldChange:
    record: str  # "accelerators/nvidia-rtx-4090"
    field: str  # "memory_bandwidth_gbps", "flops[1].tflops"
    before: str
    after: str
    disagrees: str | None = None  # the field beside it that still says the old figure


@dataclass(frozen=True)
class NewPart:
    """A catalogue record the PR adds, with the figures every roof will rest on."""

    kind: str
    id: str
    path: str
    figures: tuple[tuple[str, str], ...]  # (name, value as written)
    problem: str | None = None  # it can't be read


@dataclass(frozen=True)
class Move:
    """A record whose verdict or percent differs between the base's instrument and the PR's."""

    id: str
    path: str
    base_verdict: str
    base_percent: float | None
    pr_verdict: str
    pr_percent: float | None
    held: bool  # passes under the PR's instrument only


@dataclass(frozen=True)
class Review:
    """What the check-twice found, for the comment and the status."""

    field_changes: tuple[FieldChange, ...] = ()
    field_changes_hidden: int = 0
    new_parts: tuple[NewPart, ...] = ()
    moves: tuple[Move, ...] = ()
    not_applied: tuple[InstrumentChange, ...] = ()
    pr_pins: tuple[str, ...] = ()  # ids of added records pinned from the PR
    checked_twice: bool = False

    @property
    def held(self) -> tuple[Move, ...]:
        return tuple(m for m in self.moves if m.held)

    @property
    def holds(self) -> bool:
        """Whether the status waits for a maintainer: a record passes only under the PR's
        instrument, or the PR edits the instrument itself (a setting, a schema, a pin of a
        record on the base, the calibration set or one of its records)."""
        return bool(self.held or self.not_applied)

    def description(self) -> str:
        """The status description while held (a new part is named)."""
        if self.new_parts and self.held:
            names = ", ".join(p.id for p in self.new_parts)
            return f"rests on a new catalogue record ({names}): a maintainer must approve"
        if self.held:
            return HELD
        return HELD_EDIT


def catalogue_changes(files: Iterable[FileChange], cfg: Config) -> list[FileChange]:
    return [
        f
        for f in files
        if catalogue_kind(f.path, cfg.catalogue) in REFERABLE_KINDS
        or (f.old_path and catalogue_kind(f.old_path, cfg.catalogue) in REFERABLE_KINDS)
    ]


def _load(tree: Tree, path: str) -> Any:
    try:
        return json.loads(tree.read(path, MAX_BYTES))
    except (TreeError, ValueError, RecursionError):
        return None


def _flat(value: Any, prefix: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(value, Mapping):
        for k in sorted(value, key=str):
            yield from _flat(value[k], f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _flat(v, f"{prefix}[{i}]")
    else:
        yield prefix, json.dumps(value, ensure_ascii=False)


def field_changes(
    changed: Iterable[FileChange], cfg: Config, head: Tree, base: Tree
) -> list[FieldChange]:
    """Each field of a modified catalogue record, old -> new (a record the PR removes or can't
    be read shows as one line)."""
    out: list[FieldChange] = []
    for f in changed:
        if f.status == "added":
            continue
        old_path = f.old_path or f.path
        kind = catalogue_kind(old_path, cfg.catalogue) or catalogue_kind(f.path, cfg.catalogue)
        name = f"{kind}/{stem(f.path)}"
        before = _load(base, old_path)
        after = None if f.status == "deleted" else _load(head, f.path)
        if before is None or after is None:
            out.append(
                FieldChange(
                    name,
                    "(whole record)",
                    "present" if before is not None else "missing or unreadable",
                    "removed"
                    if f.status == "deleted"
                    else ("present" if after is not None else "unreadable"),
                )
            )
            continue
        b, a = dict(_flat(before)), dict(_flat(after))
        for key in sorted(set(b) | set(a)):
            if b.get(key) != a.get(key):
                old, new = b.get(key, "–"), a.get(key, "–")
                out.append(FieldChange(name, key, old, new, _disagrees(a, key, old, new)))
    return out


def _disagrees(fields: Mapping[str, str], key: str, old: str, new: str) -> str | None:
    """The text field beside a changed figure (`memory_bandwidth_basis` beside
    `memory_bandwidth_gbps`) that still states the old figure and not the new one."""
    if not re.fullmatch(r"-?\d+(\.\d+)?", old) or not re.fullmatch(r"-?\d+(\.\d+)?", new):
        return None
    stem = key.rsplit("_", 1)[0]
    for other, text in fields.items():
        if other == key or not other.startswith(stem) or not other.endswith("basis"):
            continue
        says = re.findall(r"(?<![\d.])(\d+(?:\.\d+)?)\s*GB/s", text) or re.findall(
            r"=\s*(\d+(?:\.\d+)?)", text
        )
        figures = {float(x) for x in says}
        if float(old) in figures and float(new) not in figures:
            return f"`{other}` still works out to {old}"
    return None


def _figures(kind: str, data: Mapping[str, Any]) -> list[tuple[str, str]]:
    def shown(key: str) -> list[tuple[str, str]]:
        return [(key, json.dumps(data[key], ensure_ascii=False))] if key in data else []

    if kind == "accelerators":
        out = shown("memory_bandwidth_gbps") + shown("vram_gb")
        flops = data.get("flops")
        if isinstance(flops, list):
            for row in flops:
                if isinstance(row, Mapping) and row.get("dense") is True:
                    out.append((f"dense {row.get('precision')} TFLOPS", str(row.get("tflops"))))
        return out
    if kind == "models":
        return shown("params_b") + shown("active_params_b") + shown("kv_cache_bytes_per_token")
    return shown("bits") + shown("scheme")


def new_parts(changed: Iterable[FileChange], cfg: Config, head: Tree) -> list[NewPart]:
    out: list[NewPart] = []
    for f in changed:
        if f.status not in ("added", "copied", "renamed"):
            continue
        kind = catalogue_kind(f.path, cfg.catalogue) or "catalogue"
        data = _load(head, f.path)
        if not isinstance(data, Mapping):
            out.append(NewPart(kind, stem(f.path), f.path, (), "it can't be read as JSON"))
            continue
        out.append(NewPart(kind, str(data.get("id") or stem(f.path)), f.path,
                           tuple(_figures(kind, data))))  # fmt: skip
    return out


def _percent(r: RecordResult) -> float | None:
    b = r.binding()
    return round(b.percent, 1) if b is not None else None


def compare(pr: Report, base: Report, *, new_part: bool = False) -> list[Move]:
    """The records whose verdict or binding percent moved between the two instruments. A move
    is held when the record passes under the PR's instrument and fails under the base's, or,
    where the PR adds a catalogue record (`new_part`), whenever it passes only because of it."""
    by_path = {r.path: r for r in base.records}
    out: list[Move] = []
    for r in pr.records:
        b = by_path.get(r.path)
        if b is None:
            continue
        if b.verdict is r.verdict and _percent(b) == _percent(r):
            continue
        passes = not fails(r, pr.fail_on, pr.deprecated_fail)
        held = passes and (new_part or fails(b, pr.fail_on, pr.deprecated_fail))
        out.append(
            Move(r.id, r.path, b.verdict.value, _percent(b), r.verdict.value, _percent(r), held)
        )
    return out


def view(review: Review, approval: Any) -> dict[str, Any]:
    """The review as the template reads it (`instrument` in comment.md.j2)."""
    return {
        "held": [dataclasses.asdict(m) for m in review.held],
        "holds": review.holds,
        "approval": None if approval is None else {"sha": approval.sha, "by": approval.by},
        "not_applied": [dataclasses.asdict(c) for c in review.not_applied],
        "pr_pins": list(review.pr_pins),
        "new_parts": [
            {
                "kind": p.kind,
                "id": p.id,
                "path": p.path,
                "problem": p.problem,
                "figures": [{"name": n, "value": v} for n, v in p.figures],
            }
            for p in review.new_parts
        ],
        "field_changes": [dataclasses.asdict(c) for c in review.field_changes],
        "field_changes_hidden": review.field_changes_hidden,
        "checked_twice": review.checked_twice,
        "moves": [dataclasses.asdict(m) for m in review.moves],
    }
