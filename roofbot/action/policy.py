"""The policy of a run: the base branch's configuration merged with the PR's, the instrument
changes (catalogue or configuration) a maintainer must approve, and the paths to check."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Mapping

from roofbot.action import instrument as instr
from roofbot.adapters.repo import Repository, dependents
from roofbot.adapters.schemas import FOLDER as SCHEMAS
from roofbot.core.changes import FileChange, InstrumentChange, changed_references, matches_any
from roofbot.core.config import Config
from roofbot.core.results import Verdict


def merge_config(base: Config, head: Config, fail_on: frozenset[Verdict] | None) -> Config:
    """The whole instrument from the base branch (roofbot.action.instrument.run_config, with no record
    added: the PR's pins are not used). The action's `fail-on` input overrides `fail_on`."""
    return instr.run_config(base, head, frozenset(), fail_on)


_OWN_ROWS = frozenset({"pins", "calibration", "tolerance_pp"})
"""The configuration's fields compared entry by entry below; every other field is a setting,
compared whole, so a key added to Config is held without a line here."""


def _shown(value: object) -> str:
    """A setting's value as the comment's table shows it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, frozenset | set):
        return ", ".join(sorted(getattr(v, "value", str(v)) for v in value)) or "(none)"
    if isinstance(value, tuple | list):
        return ", ".join(str(v) for v in value) or "(none)"
    if isinstance(value, Mapping):
        return "; ".join(f"{k}: {_shown(v)}" for k, v in sorted(value.items())) or "(none)"
    return str(value)


def setting_changes(base: Config, head: Config) -> list[InstrumentChange]:
    """Every key of `.roofbot.yml` besides pins and calibration that the PR changes: the
    globs (the catalogue's kind by kind), `fail_on`, `deprecated_fail`, the trap links..."""
    out: list[InstrumentChange] = []
    for f in dataclasses.fields(Config):
        if f.name in _OWN_ROWS:
            continue
        b, h = getattr(base, f.name), getattr(head, f.name)
        if f.name == "catalogue":
            for kind in sorted(set(b) | set(h)):
                bk, hk = b.get(kind), h.get(kind)
                if bk != hk:
                    out.append(InstrumentChange("setting", f"catalogue.{kind}",
                                                None if bk is None else _shown(bk),
                                                None if hk is None else _shown(hk)))  # fmt: skip
        elif b != h:
            out.append(InstrumentChange("setting", f.name, _shown(b), _shown(h)))
    return out


def file_changes(files: Iterable[FileChange], base: Config) -> list[InstrumentChange]:
    """The PR's edits to the files that tell roofbot how to read: the repository's schemas, and
    the calibration records themselves (deleted or moved away from where the base has them)."""
    out: list[InstrumentChange] = []
    calibrated = {c.id for c in base.calibration}
    for f in files:
        if any(p and p.startswith(SCHEMAS + "/") for p in (f.path, f.old_path)):
            before = None if f.status == "added" else "the base's"
            out.append(InstrumentChange("schema", f.path, before, f.status))
        gone = f.old_path if f.status == "renamed" else f.path if f.status == "deleted" else None
        rid = instr.stem(gone) if gone else None
        if gone and rid in calibrated and matches_any(gone, base.records):
            after = f.path if f.status == "renamed" else None
            out.append(InstrumentChange("calibration", f"{rid}: record", gone, after))
    return out


def instrument_changes(base: Config, head: Config) -> list[InstrumentChange]:
    out: list[InstrumentChange] = setting_changes(base, head)
    for rid in sorted(set(base.pins) | set(head.pins)):
        b, h = base.pins.get(rid, {}), head.pins.get(rid, {})
        for key in sorted(set(b) | set(h)):
            bt = b[key].text if key in b else None
            ht = h[key].text if key in h else None
            if bt != ht:
                out.append(InstrumentChange("pin", f"{rid}: {key}", bt, ht))
    bc = {(c.id, c.check): c.percent for c in base.calibration}
    hc = {(c.id, c.check): c.percent for c in head.calibration}
    for ck in sorted(set(bc) | set(hc)):
        bv, hv = bc.get(ck), hc.get(ck)
        if bv != hv:
            out.append(
                InstrumentChange(
                    "calibration",
                    f"{ck[0]}: {ck[1]}",
                    None if bv is None else f"{bv:g}%",
                    None if hv is None else f"{hv:g}%",
                )
            )
    if base.tolerance_pp != head.tolerance_pp:
        out.append(
            InstrumentChange(
                "tolerance", "calibration.tolerance_pp",
                f"{base.tolerance_pp:g} pp", f"{head.tolerance_pp:g} pp",
            )
        )  # fmt: skip
    return out


def paths_to_check(
    repo: Repository,
    files: list[FileChange],
    changes: list[InstrumentChange],
    extra: tuple[str, ...],
) -> tuple[list[str], list[str]]:
    """(changed record paths, dependents re-checked through a changed catalogue record)."""
    cfg = repo.config
    records = [f.path for f in files if f.status != "deleted" and matches_any(f.path, cfg.records)]
    moved = [path for f in files for path in (f.path, f.old_path) if path]
    changed_refs = changed_references(moved, cfg.catalogue)
    deps: list[str] = []
    if changed_refs:
        catalogue = repo.catalogue()
        candidates = [p for p in repo.record_paths() if p not in records]
        deps = dependents(repo.tree, candidates, changed_refs, catalogue)
    pinned = {c.key.split(": ")[0] for c in changes if c.kind == "pin"}
    for rid in sorted(pinned):
        for pattern in cfg.records:
            candidate = os.path.join(
                os.path.dirname(pattern), os.path.basename(pattern).replace("*", rid, 1)
            )
            if repo.tree.exists(candidate) and candidate not in records and candidate not in deps:
                deps.append(candidate)
    if extra:
        records = [p for p in records if matches_any(p, extra)]
        deps = [p for p in deps if matches_any(p, extra)]
    return records, deps


# ------------------------------------------------------------------ outcome
