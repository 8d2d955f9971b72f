"""The policy of a run: the base branch's configuration merged with the PR's, the instrument
changes (catalogue or configuration) a maintainer must approve, and the paths to check."""

from __future__ import annotations

import os

from roofbot.action import instrument as instr
from roofbot.adapters.repo import Repository, dependents
from roofbot.core.changes import FileChange, InstrumentChange, changed_references, matches_any
from roofbot.core.config import Config
from roofbot.core.results import Verdict


def merge_config(base: Config, head: Config, fail_on: frozenset[Verdict] | None) -> Config:
    """The whole instrument from the base branch (roofbot.action.instrument.run_config, with no record
    added: the PR's pins are not used). The action's `fail-on` input overrides `fail_on`."""
    return instr.run_config(base, head, frozenset(), fail_on)


def instrument_changes(base: Config, head: Config) -> list[InstrumentChange]:
    out: list[InstrumentChange] = []
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
