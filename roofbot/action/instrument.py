"""Whose instrument judges a pull request: the base branch's.

The instrument is everything a verdict rests on besides the record itself: the calibration set
and its tolerance, `fail_on`, `deprecated_fail`, the trap links, the pins, and the catalogue
(accelerators, models, quantization formats). A pull request that could edit it could make its
own record pass, so:

* `run_config` takes the calibration set, tolerance, `fail_on`, `deprecated_fail`, trap links,
  record and catalogue globs, and every pin of a record that exists on the base, from the
  base's `.roofbot.yml`. The PR may add pins only for the records it adds (`added_ids`).
* Where the PR moves the instrument (a changed or added catalogue record, or a pin it adds),
  the records are checked twice: under the PR's instrument (its catalogue, its new pins) and
  under the base's (the base's catalogue files, no PR pins). `compare` lists what moved, and
  every record that passes only under the PR's instrument is *held*: the status is `failure`
  until a maintainer approves the head (`roofbot.action.approval`).

This module owns the first half: which configuration judges the PR (pure functions over
configs) and `BaseCatalogueTree`, the PR's tree with the base's catalogue files laid back over
it. What the check-twice found (the catalogue fields the PR edits, the parts it adds, the records
whose verdict moves) is roofbot/action/instrument_review.py."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Mapping, Sequence

from roofbot.adapters.tree import Tree
from roofbot.core.changes import FileChange, InstrumentChange, matches_any
from roofbot.core.config import Config
from roofbot.core.results import Message, Report, Verdict


def stem(path: str) -> str:
    """A file's name without folder or extension: the id a record in it must carry."""
    return os.path.splitext(os.path.basename(path))[0]


def added_record_ids(files: Iterable[FileChange], cfg: Config) -> frozenset[str]:
    """The ids of the benchmark records the PR adds (a new file, not a rename or a copy of a
    record the base has): only these may carry pins from the PR's `.roofbot.yml`."""
    return frozenset(
        stem(f.path) for f in files if f.status == "added" and matches_any(f.path, cfg.records)
    )


def run_config(
    base: Config, head: Config, added_ids: frozenset[str], fail_on: frozenset[Verdict] | None
) -> Config:
    """The configuration the PR is judged with: the base's, plus the PR's pins on the records it
    adds, with records looked for under the base's globs and the PR's alike (a PR that moves
    its records to a folder only its own globs name is checked there all the same). The
    action's `fail-on` input overrides `fail_on`."""
    pins = dict(base.pins)
    for rid, values in head.pins.items():
        if rid in added_ids and rid not in base.pins:
            pins[rid] = values
    return dataclasses.replace(
        base,
        records=tuple(dict.fromkeys((*base.records, *head.records))),
        pins=pins,
        fail_on=fail_on if fail_on is not None else base.fail_on,
    )


def not_applied(
    changes: Sequence[InstrumentChange], added_ids: frozenset[str], base: Config
) -> list[InstrumentChange]:
    """The PR's instrument changes that the run does not use (they come from the base; the
    records globs are used as the union of both). Each holds the status until a maintainer
    approves the head: only a pin on a record the PR adds is the PR's own to set."""
    out = []
    for c in changes:
        rid = c.key.split(": ")[0]
        if c.kind == "pin" and rid in added_ids and rid not in base.pins:
            continue
        out.append(c)
    return out


def pr_pinned_ids(run: Config, base: Config) -> frozenset[str]:
    """Records whose pins come from the PR (records it adds)."""
    return frozenset(rid for rid in run.pins if rid not in base.pins)


def deprecation_from_base(
    report: Report, base_status: Mapping[str, str | None], changed: Iterable[str]
) -> Report:
    """The report with `status: deprecated` counted only where the base's version of the
    record says it (`base_status`: a changed record's path -> its status on the base, None
    where the base has no such record). A PR can't move its own record out of the verdicts
    that fail the run by calling it deprecated."""
    changed = set(changed)
    out = []
    for r in report.records:
        if r.path in changed and r.deprecated and base_status.get(r.path) != "deprecated":
            note = Message("warning", "says status deprecated, but the base branch's version "
                           "does not: it is judged as any other record until that is merged",
                           "status")  # fmt: skip
            r = dataclasses.replace(r, status=base_status.get(r.path),
                                    messages=(*r.messages, note))  # fmt: skip
        out.append(r)
    return dataclasses.replace(report, records=tuple(out))


# ------------------------------------------------------------------ the base's catalogue


class BaseCatalogueTree:
    """The PR's tree, except that every catalogue file (and listing) is the base's: the PR's
    records read through the base's instrument."""

    def __init__(self, head: Tree, base: Tree, catalogue: Mapping[str, tuple[str, ...]]) -> None:
        self.head = head
        self.base = base
        self.patterns = [p for globs in catalogue.values() for p in globs]

    def _side(self, path: str) -> Tree:
        return self.base if matches_any(path, self.patterns) else self.head

    def glob(self, pattern: str) -> list[str]:
        return self.base.glob(pattern) if pattern in self.patterns else self.head.glob(pattern)

    def exists(self, path: str) -> bool:
        return self._side(path).exists(path)

    def read(self, path: str, limit: int) -> bytes:
        return self._side(path).read(path, limit)
