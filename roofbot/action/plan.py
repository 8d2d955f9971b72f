"""What one pull request's run checks, and under which configuration, before anything is
checked: the base's and the PR's `.roofbot.yml` (the base's is the instrument), the run's
configuration, the PR's files that roofbot reads, the records to check and the records that
rest on a catalogue record the PR changes (`Plan`, from `plan_run`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal

from roofbot.action import instrument as instr
from roofbot.action.gather import Gathered, is_relevant
from roofbot.action.policy import file_changes, instrument_changes, paths_to_check
from roofbot.action.settings import Settings
from roofbot.adapters.repo import Repository, load_config_text
from roofbot.adapters.schemas import FOLDER as SCHEMAS
from roofbot.adapters.schemas import Schemas
from roofbot.catalogue_check import invalid_changed_catalogue
from roofbot.core.changes import Changes, FileChange, InstrumentChange, matches_any
from roofbot.core.config import Config, ConfigError
from roofbot.engine import shown_path
from roofbot.pins import pin_problems


@dataclass(frozen=True)
class Plan:
    """What one run checks, and under which configuration, before anything is checked."""

    base_cfg: Config  # the base branch's `.roofbot.yml`: the instrument
    head_cfg: Config  # the PR's (the base's, where the PR's can't be used)
    config: Config  # the run's: the base's, plus the PR's pins on the records it adds
    config_problem: str | None  # what is wrong with the PR's `.roofbot.yml` or its pins
    added: frozenset[str]  # the ids of the records the PR adds
    instrument: list[InstrumentChange]  # the pins the PR changes
    repo: Repository  # the PR's tree under `config`
    relevant: list[FileChange]  # the PR's files that roofbot reads
    records: list[str]  # the benchmark records to check
    deps: list[str]  # the records that rest on a catalogue record the PR changes
    invalid: list[str]  # the failing catalogue files the PR adds or changes
    changes: Changes  # as the reports print them

    @property
    def paths(self) -> list[str]:
        """Every record the run checks: the PR's, then its dependents."""
        return self.records + self.deps

    @property
    def quiet(self) -> bool:
        """The PR changes nothing roofbot reads (no record, catalogue file, configuration or
        schema) and its configuration is sound: the run still calibrates and sets the status,
        but says nothing new on the pull request."""
        return not (self.relevant or self.instrument or self.records or self.deps) and (
            self.config_problem is None
        )


def configs(inputs: Gathered) -> tuple[Config, Config, str | None]:
    """The base's configuration, the PR's (the base's where the PR's is invalid), and what is
    wrong with the PR's. A bad base configuration raises ConfigError."""
    base_cfg = load_config_text(inputs.base_config_text)
    try:
        if inputs.head_config_problem:
            raise ConfigError(inputs.head_config_problem)
        return base_cfg, load_config_text(inputs.head_config_text), None
    except ConfigError as e:
        return base_cfg, base_cfg, str(e)


def run_schemas(s: Settings, inputs: Gathered) -> Schemas:
    """The schemas that judge the PR: the base commit's, read from git where the base's tree
    was read (whatever the workspace has checked out: on `pull_request` it may be the merge
    commit, which holds the PR's own edits to them), else the checked-out folder's."""
    if inputs.base_tree is not None:
        return Schemas(None, tree=inputs.base_tree)
    return Schemas(s.workspace / SCHEMAS)


def plan_run(s: Settings, inputs: Gathered) -> Plan:
    """Which configuration judges the PR, and which records it checks (every record of the
    head on `/roofcheck all`)."""
    base_cfg, head_cfg, config_problem = configs(inputs)
    added = instr.added_record_ids(inputs.files, base_cfg)
    config = instr.run_config(base_cfg, head_cfg, added, s.fail_on)
    instrument = instrument_changes(base_cfg, head_cfg) + file_changes(inputs.files, base_cfg)
    schemas = run_schemas(s, inputs)
    repo = Repository(inputs.tree, config, schemas)
    relevant = [
        f
        for f in inputs.files
        if is_relevant(f.path, config, s.config_path)
        or (f.old_path and is_relevant(f.old_path, config, s.config_path))
    ]
    # the PR's own pins, in the PR's tree: a pin that points at nothing would break the base
    # once merged, even where this run applies none of the PR's pins
    head_repo = Repository(inputs.tree, head_cfg, schemas)
    if config_problem is None and (problems := pin_problems(head_repo)):
        config_problem = "; ".join(problems)
    records, deps = paths_to_check(repo, relevant, instrument, s.paths)
    invalid = invalid_changed_catalogue(repo, relevant)
    if s.sweep:  # `/roofcheck all`: the whole corpus at the PR's head
        every = repo.record_paths()
        records = [p for p in every if not s.paths or matches_any(p, s.paths)]
        deps = []
    changes = _shown_changes(relevant, deps, instrument, inputs.source)
    return Plan(base_cfg, head_cfg, config, config_problem, added, instrument, repo, relevant,
                records, deps, invalid, changes)  # fmt: skip


def _shown_changes(
    relevant: list[FileChange],
    deps: list[str],
    instrument: list[InstrumentChange],
    source: Literal["git", "api"],
) -> Changes:
    """What the PR changes, as the reports print it: a name that isn't UTF-8 escaped."""
    return Changes(
        tuple(
            dataclasses.replace(
                f, path=shown_path(f.path), old_path=f.old_path and shown_path(f.old_path)
            )
            for f in relevant
        ),
        tuple(shown_path(d) for d in deps),
        tuple(instrument),
        source,
    )
