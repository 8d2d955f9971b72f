"""`roofbot pr`: the GitHub Action. Reads the Actions environment and the pull-request event,
finds the changed records (git when base and head are in the workspace, else the API), checks
them on the PR's version of the tree with the base branch's policy, and reports: one sticky
comment, a `roofcheck` commit status (pending first, final in a `finally`), the job summary,
annotations and step outputs. Nothing from the PR is executed. An `issue_comment` event is a
`/roofcheck` command: `roofbot.command` decides whether it runs, then calls `check_pull`."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TextIO

from roofbot import instrument as instr
from roofbot import status
from roofbot.adapters import actions as A
from roofbot.adapters.git import (
    GitTree,
    catalogue_kind,
    changed_files,
    dependents,
    has_commit,
    matches_any,
)
from roofbot.adapters.jsonfile import MAX_BYTES
from roofbot.adapters.repo import CONFIG_NAME, MAX_CONFIG_BYTES, Repository, load_config_text
from roofbot.adapters.schemas import Schemas
from roofbot.adapters.tree import FolderTree, Tree, TreeError, read_or_none
from roofbot.approval import Approval, stamp, valid_for
from roofbot.approval import parse as parse_approval
from roofbot.catalogue_check import invalid_changed_catalogue, with_catalogue_errors
from roofbot.changes import Changes, FileChange, InstrumentChange
from roofbot.core.compare import Comparison
from roofbot.core.config import Config, ConfigError
from roofbot.core.provenance import clip
from roofbot.core.results import Message, Report, Verdict
from roofbot.engine import run_check, shown_path
from roofbot.links import gotcha_paths
from roofbot.pins import pin_problems
from roofbot.render import json_report
from roofbot.render.markdown import MARKER, fit, render_report

EVENTS = ("pull_request", "pull_request_target", "merge_group")
COMMENT_EVENT = "issue_comment"  # a `/roofcheck` command (roofbot.command)
ACTIONS = ("opened", "synchronize", "reopened", "ready_for_review", "edited")
CONTEXT = "roofcheck"  # the prefix: the status is `roofcheck/<base>` (roofbot.status)
COMMENT_BUDGET = 60000
SHORT_COMMENT_BUDGET = 30000  # after GitHub answered 422 "too long" anyway
SUMMARY_BYTES = 1_000_000  # GitHub's job summary takes up to 1 MiB per step
SUMMARY_BUDGET = 900_000
MAX_API_FILES = 300  # changed files fetched one by one in API mode
FINAL_STATUS_ATTEMPTS = 3  # > 1: the final status is repeated (safe: the newest one counts)
STATUS_WAIT = 600.0  # seconds the final status may wait out GitHub, by default
COMMENT_RETRIES = 1  # the sticky comment after a 5xx, a timeout or a short rate limit
MAX_WAIT = 10.0  # seconds roofbot waits for GitHub to recover (a Retry-After, a 5xx) at most


class UsageError(Exception):
    """The environment or the event can't be used (exit 2)."""


@dataclass(frozen=True)
class PullEvent:
    number: int
    action: str
    base_sha: str
    head_sha: str
    base_ref: str
    is_fork: bool
    draft: bool
    approval_pull: int | None = None  # merge_group: the PR whose approval counts (else number)
    approval_sha: str | None = None  # merge_group: the PR head an approval must name

    @property
    def context(self) -> str:
        """The commit status's context: `roofcheck/<base>` (roofbot.status)."""
        return status.context(self.base_ref)


@dataclass(frozen=True)
class Settings:
    event_name: str
    event: PullEvent
    workspace: Path
    config_path: str
    template: Path | None
    paths: tuple[str, ...]
    comment: Literal["update", "off"]
    fail_on: frozenset[Verdict] | None
    summary_url: str | None
    sweep: bool = False  # `/roofcheck all`: every record, not only the changed ones
    plot_dir: Path | None = None  # where the roofline chart goes (input plot), None: no chart
    approval: Approval | None = None  # `/roofcheck approve`: given on this run, for this head
    status_wait: float = STATUS_WAIT  # seconds the final status may wait (ROOFBOT_STATUS_WAIT)
    review: Literal["inline", "off"] = "inline"  # findings on their diff lines (review.py)
    review_event: Literal["COMMENT", "REQUEST_CHANGES"] = "COMMENT"

    @property
    def title(self) -> str:
        return "roofcheck (all records)" if self.sweep else "roofcheck"


def parse_event(name: str, payload: Mapping[str, Any]) -> PullEvent | None:
    """The pull request of a supported event, or None for an action roofbot does not handle."""
    if name not in EVENTS:
        raise UsageError(
            f"event {name!r} is not supported: use pull_request, pull_request_target or merge_group"
        )
    if name == "merge_group":
        return _queue_event(payload)
    if payload.get("action") not in ACTIONS:
        return None
    if payload.get("action") == "edited" and not status.base_changed(payload):
        return None  # a new title or body: nothing roofbot checks changed
    pr = payload.get("pull_request")
    if not isinstance(pr, Mapping):
        raise UsageError("the event payload has no pull_request")
    try:
        head, base = pr["head"], pr["base"]
        head_repo = (head.get("repo") or {}).get("full_name")
        base_repo = (base.get("repo") or {}).get("full_name")
        return PullEvent(
            number=int(payload.get("number") or pr["number"]),
            action=str(payload["action"]),
            base_sha=str(base["sha"]),
            head_sha=str(head["sha"]),
            base_ref=str(base.get("ref") or ""),
            is_fork=head_repo is None or head_repo != base_repo,
            draft=bool(pr.get("draft")),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise UsageError(f"the event payload is not a pull request event: {e!r}") from None


def _queue_event(payload: Mapping[str, Any]) -> PullEvent | None:
    """A merge queue's group: checked like a pull request from the base to the group's head;
    no comment (there is no pull request), the status on the group's head."""
    if payload.get("action") != "checks_requested":
        return None
    try:
        group = status.queue_group(payload)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise UsageError(f"the event payload is not a merge_group event: {e!r}") from None
    return PullEvent(
        number=0,
        action="merge_group",
        base_sha=group.base_sha,
        head_sha=group.head_sha,
        base_ref=group.base_ref,
        is_fork=False,
        draft=False,
        approval_pull=group.pull,
        approval_sha=group.pull_head or None,
    )


def read_payload(env: Mapping[str, str]) -> tuple[str, Mapping[str, Any]]:
    """The event's name and payload (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH)."""
    name = env.get("GITHUB_EVENT_NAME", "")
    path = env.get("GITHUB_EVENT_PATH", "")
    if not name or not path:
        raise UsageError("GITHUB_EVENT_NAME and GITHUB_EVENT_PATH must be set (run in Actions)")
    try:
        with open(path, encoding="utf-8") as fh:
            payload = json.loads(fh.read(8 * 1024 * 1024))
    except (OSError, ValueError, RecursionError) as e:
        raise UsageError(f"can't read the event payload {path}: {e}") from None
    if not isinstance(payload, Mapping):
        raise UsageError("the event payload is not a JSON object")
    return name, payload


def settings_from_env(env: Mapping[str, str]) -> Settings | None:
    name, payload = read_payload(env)
    event = parse_event(name, payload)
    if event is None:
        return None
    return settings_for(env, name, event)


def settings_for(
    env: Mapping[str, str], name: str, event: PullEvent, *, sweep: bool = False
) -> Settings:
    """The run's settings: the action's inputs from the environment, for this pull request."""
    ws = A.workspace(env)
    template = A.input_value(env, "template")
    comment = A.input_value(env, "comment", "update")
    if comment not in ("update", "off"):
        raise UsageError("input comment: update or off")
    fail_on_text = A.input_value(env, "fail-on")
    fail_on = None
    if fail_on_text:
        valid = {v.value: v for v in Verdict}
        names = [n.strip() for n in fail_on_text.replace(",", " ").split()]
        if not all(n in valid for n in names):
            raise UsageError(f"input fail-on: a list of {', '.join(valid)}")
        fail_on = frozenset(valid[n] for n in names)
    server, repo, run = (
        env.get(k, "") for k in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID")
    )
    summary_url = f"{server}/{repo}/actions/runs/{run}" if server and repo and run else None
    template_path = None
    if template:
        template_path = (ws / template).resolve()
        if not template_path.is_relative_to(ws) or not template_path.is_file():
            raise UsageError(f"input template: {template} is not a file in the workspace")
    paths = tuple(p for p in A.input_value(env, "paths").replace(",", "\n").split() if p)
    plot = A.input_value(env, "plot", "true").strip().lower()
    if plot not in ("true", "false"):
        raise UsageError("input plot: true or false")
    plot_dir = _report_path(env).parent / "roofbot-plot" if plot == "true" else None
    review = A.input_value(env, "review", "inline").strip().lower()
    if review not in ("inline", "off"):
        raise UsageError("input review: inline or off")
    review_event = A.input_value(env, "review-event", "comment").strip().lower()
    if review_event not in ("comment", "request-changes"):
        raise UsageError("input review-event: comment or request-changes")
    return Settings(
        event_name=name,
        event=event,
        workspace=ws,
        config_path=A.input_value(env, "config", CONFIG_NAME),
        template=template_path,
        paths=paths,
        comment="off" if comment == "off" else "update",
        fail_on=fail_on,
        summary_url=summary_url,
        sweep=sweep,
        plot_dir=plot_dir,
        status_wait=status_wait_bound(env),
        review="off" if review == "off" else "inline",
        review_event="REQUEST_CHANGES" if review_event == "request-changes" else "COMMENT",
    )


# ------------------------------------------------------------------ the PR's tree


class OverlayTree:
    """The base checkout with the PR's changed files laid over it (API mode): `files` maps a
    path to its head bytes, or None where the PR deletes it or it can't be read as a file
    (`reasons` says why, where known)."""

    def __init__(
        self,
        base: Tree,
        files: Mapping[str, bytes | None],
        reasons: Mapping[str, str] | None = None,
    ) -> None:
        self.base = base
        self.files = dict(files)
        self.reasons = dict(reasons or {})

    def glob(self, pattern: str) -> list[str]:
        found = set(self.base.glob(pattern))
        found |= {p for p in self.files if matches_any(p, [pattern])}
        return sorted(p for p in found if self.files.get(p, b"") is not None)

    def exists(self, path: str) -> bool:
        if path in self.files:
            return self.files[path] is not None
        return self.base.exists(path)

    def read(self, path: str, limit: int) -> bytes:
        if path in self.files:
            data = self.files[path]
            if data is None:
                why = self.reasons.get(path, "it is not a regular file in the pull request")
                raise TreeError(f"{path} can't be read: {why}")
            if len(data) > limit:
                raise TreeError(f"{path} is over the {limit}-byte limit")
            return data
        return self.base.read(path, limit)


@dataclass
class Inputs:
    """What the check runs on: the PR's tree, the two configs, what changed."""

    tree: Tree
    base_config_text: str | None
    head_config_text: str | None
    files: list[FileChange]
    source: Literal["git", "api"]
    notes: tuple[str, ...] = ()  # what the report must say about how the files were read
    head_config_problem: str | None = None  # the PR's config is there but can't be read
    # the base's files: its catalogue, for the check-twice; its records, for before and after
    base_tree: Tree | None = None
    patches: Mapping[str, str | None] | None = None  # API mode: each changed file's diff


def head_config(tree: Tree, path: str, present: bool) -> tuple[str | None, str | None]:
    """(text, problem) of the PR's `.roofbot.yml`: (None, None) when there is none; a problem
    when there is something roofbot can't read (a link, too big, not UTF-8). An unreadable
    config is never taken for an absent one: that would drop every pin without saying why."""
    if not present:
        return None, None
    try:
        return tree.read(path, MAX_CONFIG_BYTES).decode("utf-8"), None
    except TreeError as e:
        if "limit" in str(e):
            return None, f"{path} is over {MAX_CONFIG_BYTES // 1024} KiB"
        return None, str(e)
    except UnicodeDecodeError as e:
        return None, f"{path} is not UTF-8 (bad byte at offset {e.start})"


def _relevant(path: str, cfg: Config, config_path: str) -> bool:
    return (
        path == config_path
        or matches_any(path, cfg.records)
        or catalogue_kind(path, cfg.catalogue) is not None
    )


def gather_git(s: Settings) -> Inputs:
    head = GitTree(s.workspace, s.event.head_sha)
    base = GitTree(s.workspace, s.event.base_sha)  # kept open: the check-twice, before/after
    try:
        base_text = base.text(s.config_path)
        files = changed_files(s.workspace, s.event.base_sha, s.event.head_sha)
    except BaseException:
        base.close()
        raise
    head_text, problem = head_config(head, s.config_path, s.config_path in head.entries)
    return Inputs(
        head, base_text, head_text, files, "git", head_config_problem=problem, base_tree=base
    )


def gather_api(s: Settings, client: Any, base_cfg: Config, out: TextIO) -> Inputs:
    """The change read through the API, pinned to the event's SHAs (roofbot.head_files): the
    comparison base...head, modes from the head's git tree, blobs by SHA."""
    from roofbot.adapters.github_api import MAX_COMPARE_FILES
    from roofbot.head_files import read_head

    base_tree = FolderTree(s.workspace)
    cfg_file = s.workspace / s.config_path
    base_text = (
        cfg_file.read_text("utf-8") if cfg_file.is_file() and not cfg_file.is_symlink() else None
    )
    files: list[FileChange] = []
    overlay: dict[str, bytes | None] = {}
    reasons: dict[str, str] = {}
    notes: list[str] = []
    status_map = {"removed": "deleted", "renamed": "renamed", "added": "added", "copied": "copied"}
    listed, full = client.compare_files(s.event.base_sha, s.event.head_sha)
    patches = {f.filename: f.patch for f in listed}
    for f in listed:
        status = status_map.get(f.status, "modified")
        files.append(FileChange(status, f.filename, f.previous_filename))  # type: ignore[arg-type]
    if full:
        notes.append(
            f"GitHub lists at most {MAX_COMPARE_FILES} changed files of a comparison: files past "
            "that were not seen. Fetch the pull request's head in the workflow (git mode) to "
            "check them all."
        )
    relevant = [f for f in files if _relevant(f.path, base_cfg, s.config_path)]
    wanted: list[str] = []
    skipped = 0
    for f in relevant:
        if f.old_path:
            overlay[f.old_path] = None
        if f.status == "deleted":
            overlay[f.path] = None
            reasons[f.path] = "the pull request deletes it"
        elif len(wanted) >= MAX_API_FILES:
            overlay[f.path] = None
            reasons[f.path] = (
                f"not fetched: the pull request changes more than {MAX_API_FILES} files roofbot "
                "reads, and without its head in the workspace each costs an API call"
            )
            skipped += 1
        else:
            wanted.append(f.path)
    head = read_head(client, s.event.head_sha, wanted, MAX_BYTES)
    for path, error in head.failures:
        A.log(out, f"{path}: {error}")
    overlay.update(head.data)
    reasons.update(head.reasons)
    files = [dataclasses.replace(f, symlink=True) if f.path in head.links else f for f in files]
    if skipped:
        A.log(out, f"more than {MAX_API_FILES} changed files: {skipped} not fetched")
        notes.append(
            f"{skipped} changed files were not fetched (more than {MAX_API_FILES} through the "
            "API): they are listed as errors. Fetch the pull request's head in the workflow "
            "to check them all."
        )
    tree = OverlayTree(base_tree, overlay, reasons)
    head_text, problem = base_text, None
    if s.config_path in overlay:
        deleted = overlay[s.config_path] is None and any(
            f.path == s.config_path and f.status == "deleted" for f in files
        )
        head_text, problem = head_config(tree, s.config_path, not deleted)
    return Inputs(
        tree, base_text, head_text, files, "api", tuple(notes), problem, base_tree, patches
    )


# ------------------------------------------------------------------ policy and instrument


def merge_config(base: Config, head: Config, fail_on: frozenset[Verdict] | None) -> Config:
    """The whole instrument from the base branch (roofbot.instrument.run_config, with no record
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
    changed_refs: set[tuple[str, str]] = set()
    for f in files:
        for path in (f.path, f.old_path):
            kind = catalogue_kind(path, cfg.catalogue) if path else None
            if kind in ("accelerators", "models", "quantization") and path:
                changed_refs.add((kind, os.path.splitext(os.path.basename(path))[0]))
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


@dataclass(frozen=True)
class Outcome:
    report: Report | None
    changes: Changes
    state: Literal["success", "failure"]
    description: str
    comment: str
    summary: str
    annotations: tuple[A.Annotation, ...]
    json_text: str
    plot: Path | None = None  # the roofline chart (PNG), for the artifact upload
    comparison: Comparison | None = None  # before and after
    # the comment and the job summary again, with what the review could not post
    rerender: Callable[[Mapping[str, Any]], tuple[str, str]] | None = None


def describe(report: Report | None, changes: Changes) -> str:
    if report is None or not report.records:
        if changes.instrument:
            cal = (
                "calibration not run"
                if report is None or not report.calibration.ran
                else "calibration ok"
                if report.calibration.ok
                else "calibration broken"
            )
            return f"no benchmark record changed; the instrument did ({cal})"[:139]
        return "no benchmark record or catalogue change to check"
    parts = [f"{report.count(v)} {v.value}" for v in Verdict if report.count(v)]
    cal = (
        "calibration not run"
        if not report.calibration.ran
        else "calibration ok"
        if report.calibration.ok
        else "calibration BROKEN"
    )
    text = f"{len(report.records)} checked: {', '.join(parts)}; {cal}"
    return clip(text, 139)


def annotations_for(report: Report, tree: Tree) -> list[A.Annotation]:
    out: list[A.Annotation] = []
    failing = {r.id for r in report.failing()}
    for r in report.records:
        if r.id not in failing and r.verdict is not Verdict.SUSPECT:
            continue
        raw = read_or_none(tree, r.path, MAX_BYTES)
        text = raw.decode("utf-8", "replace") if raw is not None else ""
        b = r.binding()
        what = f" at {b.percent:.1f}% of its {b.check.value}" if b else ""
        msg = f": {r.messages[0].text}" if r.messages else ""
        message = f"{r.verdict.value}: {r.id}{what}{msg}"
        field = next((m.field for m in r.messages if m.field), None) or "value"
        out.append(
            A.Annotation(
                "error" if r.id in failing else "warning",
                message[:1000],
                file=r.path,
                line=A.line_of(text, field) or A.line_of(text, "value"),
                title=f"roofcheck {r.verdict.value}",
            )
        )
    for e in report.calibration.entries:
        if not e.ok:
            got = "no result" if e.percent is None else f"{e.percent:.2f}%"
            out.append(
                A.Annotation(
                    "error",
                    f"calibration miss: {e.id} {e.check} expected {e.expected_percent:g}%, got {got}",
                    title="roofcheck calibration",
                )
            )
    return out


def evaluate(
    s: Settings, inputs: Inputs, approval_lookup: Callable[[], Approval | None] | None = None
) -> Outcome:
    """The whole check, as data: nothing is posted here. Raises ConfigError on a bad base
    config; a bad PR config becomes a failure the comment explains. The instrument is the base
    branch's (roofbot.instrument); where the PR moves it and a record passes only under the
    PR's, the outcome is held until `approval_lookup` (called only then) finds an approval of
    this head."""
    base_cfg = load_config_text(inputs.base_config_text)
    try:
        if inputs.head_config_problem:
            raise ConfigError(inputs.head_config_problem)
        head_cfg = load_config_text(inputs.head_config_text)
        config_problem = None
    except ConfigError as e:
        head_cfg, config_problem = base_cfg, str(e)
    added = instr.added_record_ids(inputs.files, base_cfg)
    config = instr.run_config(base_cfg, head_cfg, added, s.fail_on)
    instrument = instrument_changes(base_cfg, head_cfg)
    repo = Repository(inputs.tree, config, Schemas(s.workspace / "schemas"))
    relevant = [
        f
        for f in inputs.files
        if _relevant(f.path, config, s.config_path)
        or (f.old_path and _relevant(f.old_path, config, s.config_path))
    ]
    # the PR's own pins, in the PR's tree: a pin that points at nothing would break the base
    # once merged, even where this run applies none of the PR's pins
    head_repo = Repository(inputs.tree, head_cfg, Schemas(s.workspace / "schemas"))
    if config_problem is None and (problems := pin_problems(head_repo)):
        config_problem = "; ".join(problems)
    records, deps = paths_to_check(repo, relevant, instrument, s.paths)
    invalid = invalid_changed_catalogue(repo, relevant)
    if s.sweep:  # `/roofcheck all`: the whole corpus at the PR's head
        every = repo.record_paths()
        records = [p for p in every if not s.paths or matches_any(p, s.paths)]
        deps = []
    changes = Changes(  # as the reports print them: a name that isn't UTF-8 escaped
        tuple(
            dataclasses.replace(
                f, path=shown_path(f.path), old_path=f.old_path and shown_path(f.old_path)
            )
            for f in relevant
        ),
        tuple(shown_path(d) for d in deps),
        tuple(instrument),
        inputs.source,
    )
    if not records and not deps and not instrument and config_problem is None and not invalid:
        text = (
            f"{MARKER}\n### ✅ roofcheck: nothing to check\n\n"
            "This pull request changes no benchmark record, catalogue record or roofbot pin.\n"
        )
        return Outcome(None, changes, "success", describe(None, changes), text, text, (), "{}\n")
    repo.prefetch_checks(records + deps, [c.id for c in config.calibration])
    # jobs=0: from 1,000 records (a catalogue change's dependents, /roofcheck all) on every CPU
    report = run_check(repo, records + deps, calibration=True, jobs=0)
    report = with_catalogue_errors(report, repo, invalid)
    extra = [Message("warning", n) for n in inputs.notes]
    if config_problem:
        extra.append(Message("error", f"the PR's {s.config_path}: {config_problem}"))
    if extra:
        report = dataclasses.replace(report, messages=(*report.messages, *extra))
    under_base: list[Report] = []  # the check-twice's results, reused by before and after
    review = review_instrument(s, inputs, relevant, config, base_cfg, instrument, added,
                               records + deps, report, under_base)  # fmt: skip
    ok = report.ok and config_problem is None
    approval = None
    if review is not None and review.held and ok:
        approval = valid_for(s.approval or (approval_lookup() if approval_lookup else None),
                             s.event.approval_sha or s.event.head_sha)  # fmt: skip
    held = review is not None and bool(review.held) and ok and approval is None
    links = gotcha_paths(config, repo.catalogue())
    try:
        chart = draw_chart(report, config, s.plot_dir)
    except ChartUnavailable:  # an optional extra that is missing is a note, never a failure
        chart = None
        report = dataclasses.replace(
            report, messages=(*report.messages, Message("warning", NO_CHART))
        )
    comparison = None
    if inputs.base_tree is not None and not s.sweep:
        from roofbot.before_after import compare_with_base

        renames = {f.path: f.old_path for f in relevant if f.old_path}
        base_config = merge_config(base_cfg, base_cfg, s.fail_on)
        # a dependent's file is the base's: the check-twice already has its base result
        dep_paths = set(deps)
        known = {r.path: r for rep in under_base for r in rep.records if r.path in dep_paths}
        comparison = compare_with_base(
            report, inputs.base_tree, base_config, s.workspace / "schemas", records + deps,
            renames, known,
        )  # fmt: skip
    common: dict[str, Any] = {
        "comparison": comparison,
        "changes": changes,
        "head_sha": s.event.head_sha,
        "template": s.template,
        "title": s.title,
        "chart_url": f"{s.summary_url}#artifacts" if chart and s.summary_url else None,
        "extra": {"instrument": instr.view(review, approval) if review is not None else None},
    }
    comment = stamp(
        render_report(report, links, max_chars=COMMENT_BUDGET, summary_url=s.summary_url,
                      **common),
        approval,
    )  # fmt: skip

    def rerender(note: Mapping[str, Any]) -> tuple[str, str]:
        """The comment and the summary again, saying what the inline review could not post."""
        noted = {**common, "review": note}
        text = render_report(report, links, max_chars=COMMENT_BUDGET,
                             summary_url=s.summary_url, **noted)  # fmt: skip
        return stamp(text, approval), _summary(report, links, noted)

    summary = _summary(report, links, common)
    description = describe(report, changes)
    if s.sweep:
        description = ("all records: " + description)[:139]
    if config_problem:
        description = f"the PR's {s.config_path} is invalid"
    if held and review is not None:
        ok, description = False, review.description()
    elif approval is not None:
        description = clip(f"{description}; instrument approved by {approval.by}", 139)
    return Outcome(
        report,
        changes,
        "success" if ok else "failure",
        description,
        comment,
        summary,
        tuple(annotations_for(report, inputs.tree)),
        json_report.report_text(report, links),
        chart,
        comparison,
        rerender,
    )


def review_instrument(
    s: Settings,
    inputs: Inputs,
    relevant: list[FileChange],
    config: Config,
    base_cfg: Config,
    changes: list[InstrumentChange],
    added: frozenset[str],
    paths: list[str],
    report: Report,
    keep: list[Report] | None = None,
) -> instr.Review | None:
    """Check twice where the PR moves the instrument: the same records under the base's
    catalogue and pins (appended to `keep`, where given). None: the PR leaves the instrument
    alone."""
    skipped = tuple(instr.not_applied(changes, added, base_cfg))
    catalogue = instr.catalogue_changes(relevant, base_cfg)
    pr_pins = tuple(sorted(instr.pr_pinned_ids(config, base_cfg)))
    if not catalogue and not pr_pins:
        return instr.Review(not_applied=skipped) if skipped else None
    if inputs.base_tree is None:
        return instr.Review(not_applied=skipped, pr_pins=pr_pins)
    base_view = instr.BaseCatalogueTree(inputs.tree, inputs.base_tree, config.catalogue)
    base_repo = Repository(
        base_view, dataclasses.replace(config, pins=base_cfg.pins), Schemas(s.workspace / "schemas")
    )
    base_report = run_check(base_repo, paths, calibration=False, jobs=0)
    if keep is not None:
        keep.append(base_report)
    parts = instr.new_parts(catalogue, config, inputs.tree)
    fields = instr.field_changes(catalogue, config, inputs.tree, inputs.base_tree)
    shown = fields[: instr.MAX_FIELD_CHANGES]
    return instr.Review(
        field_changes=tuple(shown),
        field_changes_hidden=len(fields) - len(shown),
        new_parts=tuple(parts),
        moves=tuple(instr.compare(report, base_report, new_part=bool(parts))),
        not_applied=skipped,
        pr_pins=pr_pins,
        checked_twice=True,
    )


NO_CHART = "no chart (install roofbot[plot]): matplotlib is not installed"
"""The note in the log and the comment of a run asked for a chart without the `plot` extra."""


class ChartUnavailable(RuntimeError):
    """A chart was asked for (input plot) and matplotlib, the `plot` extra, is missing."""


def draw_chart(report: Report, config: Config, folder: Path | None) -> Path | None:
    """The roofline chart of the checked records (PNG and SVG) for the workflow to upload as
    an artifact; None when charts are off or there is nothing to draw. ChartUnavailable when
    matplotlib (the `plot` extra, in the action's image; not in a plain `pip install .`) is
    missing: the caller says so and goes on."""
    if folder is None or not any(r.checks for r in report.records):
        return None
    from roofbot import plot  # matplotlib itself is imported only when a chart is drawn

    try:
        fig = plot.corpus_chart(report, (c.id for c in config.calibration), "roofcheck")
        return plot.save(fig, folder / "roofline")[0]
    except (ImportError, plot.PlotUnavailable):
        raise ChartUnavailable(NO_CHART) from None


def _summary(report: Report, links: Mapping[str, str | None], common: dict[str, Any]) -> str:
    """The job summary: as much as fits in GitHub's 1 MiB (bytes, not characters)."""
    budget = SUMMARY_BUDGET
    while True:
        text = render_report(report, links, max_chars=budget, **common)
        if len(text.encode("utf-8")) <= SUMMARY_BYTES or budget < 10_000:
            return text
        budget //= 2


# ------------------------------------------------------------------ posting


def _wait_for(error: Exception, attempt: int, *, insist: bool = False) -> float | None:
    """Seconds to wait before repeating a call that failed with `error`, or None: not worth
    repeating (a 4xx, or a rate limit that resets later than roofbot may wait). `insist`
    (the final status, one request that decides whether a PR stays pending): a rate limit's
    whole wait, as its headers give it (`retry-after`, else the reset time), for the caller
    to hold against its bound."""
    from roofbot.adapters.github_api import GitHubRateLimited, GitHubUnavailable

    if isinstance(error, GitHubRateLimited):
        wait = error.retry_after
        if insist:
            return limit_wait(error)
        if wait is not None and wait <= MAX_WAIT:
            return wait
        return None
    if isinstance(error, GitHubUnavailable):
        return min(float(2**attempt), MAX_WAIT)
    return None


def limit_wait(error: Any) -> float:
    """How long a rate limit lasts, from its headers: `retry-after` (a secondary limit, 60 s
    or more on GitHub), else until `x-ratelimit-reset` (a primary limit), plus a second for
    clocks; 60 s when GitHub gave neither, as its documentation says to wait."""
    from datetime import UTC, datetime

    if error.retry_after is not None:  # a secondary limit says how long, whatever the reset
        return max(float(error.retry_after), 0.0)
    if error.reset_at is not None:
        left = float((error.reset_at - datetime.now(UTC)).total_seconds()) + 1.0
        return round(max(left, 0.0), 1)
    return 60.0


def status_wait_bound(env: Mapping[str, str]) -> float:
    """Seconds the final status may wait for GitHub (ROOFBOT_STATUS_WAIT, default 600: the
    example workflows' 15-minute job timeout leaves room for it after the check)."""
    text = env.get("ROOFBOT_STATUS_WAIT", "").strip()
    try:
        return max(float(text), 0.0) if text else STATUS_WAIT
    except ValueError:
        raise UsageError(f"ROOFBOT_STATUS_WAIT: seconds, got {clip(text, 40)!r}") from None


def set_status(
    client: Any,
    sha: str,
    state: str,
    description: str,
    out: TextIO,
    *,
    target_url: str | None = None,
    attempts: int = 1,
    context: str = CONTEXT,
    wait_bound: float = 0.0,
    refused: list[bool] | None = None,
) -> bool:
    """Set the status; never raises. A status is safe to repeat (the newest one counts), so a
    final one (`attempts` > 1) is tried again while GitHub is unavailable or rate limited, for
    up to `wait_bound` seconds in all: a rate limit is waited out to the reset its headers
    give, if that falls within the bound; a 5xx is tried `attempts` times; then False."""
    from roofbot.adapters.github_api import GitHubError, GitHubRateLimited

    deadline = time.monotonic() + wait_bound
    attempt = 0
    while True:
        try:
            client.set_status(sha, state, description[:139], context, target_url)
            return True
        except GitHubError as e:
            wait = _wait_for(e, attempt, insist=attempts > 1)
            attempt += 1
            left = deadline - time.monotonic()
            limited = isinstance(e, GitHubRateLimited)  # waited out; a 5xx: `attempts` tries
            if (
                wait is None
                or attempts <= 1
                or wait > left
                or (not limited and attempt >= attempts)
            ):
                A.log(out, f"could not set the {state} status: {e}")
                if limited and wait is not None and wait > left and attempts > 1:
                    A.log(out, f"GitHub asks to wait {wait:.0f} s, past roofbot's bound "
                               f"({max(left, 0):.0f} s left of ROOFBOT_STATUS_WAIT)")  # fmt: skip
                if "forbidden" in type(e).__name__.lower():
                    A.log(out, "the token can't write statuses (a fork's read-only token?)")
                    if refused is not None:
                        refused.append(True)
                return False
            A.log(out, f"setting the {state} status failed ({e}); again in {wait:g} s")
            time.sleep(wait)


@contextmanager
def status_guard(
    client: Any, s: Settings, out: TextIO, landed: list[str] | None = None
) -> Iterator[list[tuple[str, str]]]:
    """Pending on entry (if it can't be set, the run goes on); the final state the body
    appends, or `error` if it raised. The final status is tried until GitHub takes it or
    roofbot's bound runs out; `landed` gets "set", "refused" (a read-only token: the job's
    own result is all there is) or "failed"."""
    final: list[tuple[str, str]] = []
    sha = s.event.head_sha
    if client is not None:
        what = "every record" if s.sweep else "the changed records"
        set_status(client, sha, "pending", f"roofbot is checking {what}", out,
                   target_url=s.summary_url, context=s.event.context)  # fmt: skip
    try:
        yield final
    except BaseException as e:
        final[:] = [("error", f"roofbot could not finish: {type(e).__name__}")]
        raise
    finally:
        if client is not None:
            state, desc = final[-1] if final else ("error", "roofbot stopped without a result")
            refused: list[bool] = []
            ok = set_status(client, sha, state, desc, out, target_url=s.summary_url,
                            attempts=FINAL_STATUS_ATTEMPTS, context=s.event.context,
                            wait_bound=s.status_wait, refused=refused)  # fmt: skip
            if landed is not None:
                landed.append("set" if ok else "refused" if refused else "failed")


def _report_path(env: Mapping[str, str]) -> Path:
    folder = env.get("RUNNER_TEMP") or tempfile.gettempdir()
    return Path(folder) / "roofbot-report.json"


def run_pr(env: Mapping[str, str], *, dry_run: bool = False, out: TextIO = sys.stdout) -> int:
    """The action. Exit code: 0 ok, 1 not ok, 2 usage or configuration error."""
    if env.get("GITHUB_EVENT_NAME") == COMMENT_EVENT:
        from roofbot.command import run_comment

        return run_comment(env, dry_run=dry_run, out=out)
    try:
        s = settings_from_env(env)
    except UsageError as e:
        A.log(out, f"error: {e}")
        return 2
    if s is None:
        A.log(out, f"pull request action {env.get('GITHUB_EVENT_NAME')}: nothing to do")
        return 0
    try:
        client = None if dry_run else make_client(env)
    except UsageError as e:
        A.log(out, f"error: {e}")
        return 2
    try:
        return check_pull(s, env, client, out, dry_run=dry_run).code
    finally:
        if client is not None:
            client.close()


def make_client(env: Mapping[str, str]) -> Any:
    """The GitHub client for this run (UsageError when the environment lacks a token...)."""
    from roofbot.adapters.github_api import GitHubClient, GitHubError

    try:
        return GitHubClient.from_env(env)
    except GitHubError as e:
        raise UsageError(str(e)) from None


@dataclass(frozen=True)
class Checked:
    code: int  # the exit code: 0 ok, 1 not ok or not finished, 2 usage or configuration error
    state: Literal["success", "failure", "error"]  # the final status roofbot set (or meant to)


def check_pull(
    s: Settings, env: Mapping[str, str], client: Any, out: TextIO, *, dry_run: bool = False
) -> Checked:
    """Check one pull request and report it: pending status, the check, the sticky comment,
    the summary, annotations, outputs, and the final status whatever happens."""
    landed: list[str] = []
    with status_guard(client, s, out, landed) as final:
        code, outcome, problem = _run(s, env, client, out, dry_run)
        if outcome is not None:
            final.append((outcome.state, outcome.description))
            result = Checked(code, outcome.state)
        else:
            final.append(("error", problem))
            result = Checked(code, "error")
    if landed == ["failed"]:
        A.log(out, f"the final {s.event.context} status was not set: this job fails so that "
                   "it shows (rerun it, or comment /roofcheck)")  # fmt: skip
        return Checked(max(code, 1), result.state)
    return result


def _unfinished(env: Mapping[str, str], title: str, detail: str) -> None:
    """The job summary of a run that could not check anything."""
    from roofbot.render.markdown import md

    A.write_summary(env, f"{MARKER}\n### ⚠️ roofcheck: {title}\n\n{md(detail, 2000)}\n")


def _run(
    s: Settings, env: Mapping[str, str], client: Any, out: TextIO, dry_run: bool
) -> tuple[int, Outcome | None, str]:
    """(exit code, the outcome, or why there is none)."""
    from roofbot.adapters.git import GitError
    from roofbot.adapters.github_api import GitHubError

    git_mode = has_commit(s.workspace, s.event.base_sha) and has_commit(
        s.workspace, s.event.head_sha
    )
    inputs: Inputs | None = None
    try:
        if git_mode:
            inputs = gather_git(s)
        else:
            if client is None:
                A.log(
                    out, "the PR's commits are not in the workspace and --dry-run makes no API call"
                )
                return 2, None, "the pull request's commits are not in the workspace"
            cfg_file = s.workspace / s.config_path
            base_cfg = load_config_text(
                cfg_file.read_text("utf-8")
                if cfg_file.is_file() and not cfg_file.is_symlink()
                else None
            )
            inputs = gather_api(s, client, base_cfg, out)
        A.log(out, f"changed files from {inputs.source}: {len(inputs.files)}")
        outcome = evaluate(s, inputs, lambda: _recorded_approval(client, s, out))
        if outcome.report is not None and any(m.text == NO_CHART for m in outcome.report.messages):
            A.log(out, NO_CHART)
        if not dry_run and client is not None:
            outcome = _review(client, s, inputs, outcome, out)
    except ConfigError as e:
        A.log(out, f"configuration error: {e}")
        _unfinished(env, "configuration error", str(e))
        return 2, None, "roofbot configuration error (see the job log)"
    except GitHubError as e:
        A.log(out, f"could not read the pull request from GitHub: {e}")
        _unfinished(env, "GitHub did not answer", str(e))
        return 1, None, f"GitHub did not answer ({type(e).__name__}); rerun with /roofcheck"
    except GitError as e:
        A.log(out, f"could not read the pull request from git: {e}")
        _unfinished(env, "git failed", str(e))
        return 1, None, "roofbot could not read the pull request's commits (see the job log)"
    finally:
        if inputs is not None:
            for t in (inputs.tree, inputs.base_tree):
                if isinstance(t, GitTree):
                    t.close()
    report_path = _report_path(env)
    report_path.write_text(outcome.json_text, encoding="utf-8")
    A.write_summary(env, outcome.summary)
    dropped = A.emit_annotations(list(outcome.annotations), out)
    if dropped:
        A.log(out, f"{dropped} more annotations are in the job summary")
    report = outcome.report
    A.write_outputs(
        env,
        {
            "ok": "true" if outcome.state == "success" else "false",
            "violations": str(report.count(Verdict.VIOLATION) if report else 0),
            "errors": str(report.count(Verdict.ERROR) if report else 0),
            "report-path": str(report_path),
            "plot-path": str(outcome.plot) if outcome.plot else "",
        },
    )
    if dry_run:
        A.log(out, f"dry run: status would be {outcome.state}: {outcome.description}")
        dry_run_output(env, outcome, out)
    elif s.comment == "update" and s.event.number > 0:  # a merge queue's group has no PR
        _post_comment(client, s, outcome, env, out)
    A.log(out, f"{outcome.state}: {outcome.description}")
    return (0 if outcome.state == "success" else 1), outcome, ""


def _recorded_approval(client: Any, s: Settings, out: TextIO) -> Approval | None:
    """The approval in roofbot's own sticky comment (roofbot.approval), if any."""
    from roofbot.adapters.github_api import GitHubError

    number = s.event.approval_pull or s.event.number
    if client is None or number <= 0:
        return None
    try:
        comment = client.find_sticky_comment(number, MARKER)
    except GitHubError as e:
        A.log(out, f"could not read the sticky comment for an approval: {e}")
        return None
    return parse_approval(comment.body) if comment is not None else None


def dry_run_output(env: Mapping[str, str], outcome: Outcome, out: TextIO) -> None:
    """What a dry run rendered: the comment and the summary written beside the report (in
    RUNNER_TEMP, the user's --out), and the comment printed, not posted."""
    folder = _report_path(env).parent
    comment, summary = folder / "comment.md", folder / "summary.md"
    comment.write_text(outcome.comment, encoding="utf-8")
    summary.write_text(outcome.summary, encoding="utf-8")
    A.log(out, f"dry run: comment of {len(outcome.comment)} characters not posted: {comment}")
    A.log(out, f"dry run: summary: {summary}; report: {_report_path(env)}")
    A.log(out, "dry run: the comment roofbot would post follows")
    if env.get("GITHUB_ACTIONS") == "true":  # a job log: every line roofbot's, never a command
        A.log(out, outcome.comment)
    else:  # a terminal: the Markdown as it is, to copy
        out.write(outcome.comment if outcome.comment.endswith("\n") else outcome.comment + "\n")
    A.log(out, "dry run: end of the comment")


FALLBACK = "the report is in the job summary and the annotations"


def _review(client: Any, s: Settings, inputs: Inputs, outcome: Outcome, out: TextIO) -> Outcome:
    """The findings on their diff lines (roofbot/review_post.py), on pull_request(_target)
    with `review: inline`; the sticky comment says what could not go there."""
    if s.review != "inline" or s.event_name not in ("pull_request", "pull_request_target"):
        return outcome  # a merge group or a /roofcheck command has no diff of its own to review
    from roofbot.adapters.git import GitError
    from roofbot.core.results import Calibration
    from roofbot.review_post import git_patches, post_review

    # nothing to check any more: no finding stands, and earlier line comments go
    report = outcome.report or Report((), Calibration(False, 0.0))

    patches = inputs.patches
    if patches is None:
        paths = [f.path for f in outcome.changes.files if f.status != "deleted"]
        try:
            patches = git_patches(s.workspace, s.event.base_sha, s.event.head_sha, paths)
        except GitError as e:  # no line is known: every finding stays in the sticky comment
            A.log(out, f"could not read the diff for the review: {e}")
            patches = {}
    tree = inputs.tree
    posted = post_review(
        client, s.event.number, s.event.head_sha, report, outcome.comparison, patches,
        lambda path: read_or_none(tree, path, MAX_BYTES), out, s.review_event,
    )  # fmt: skip
    if posted.note and outcome.rerender is not None:
        comment, summary = outcome.rerender({"note": posted.note})
        return dataclasses.replace(outcome, comment=comment, summary=summary)
    return outcome


def _post_comment(
    client: Any, s: Settings, outcome: Outcome, env: Mapping[str, str], out: TextIO
) -> None:
    """Create or update the sticky comment. Never raises: whatever GitHub answers, the job
    summary and the annotations already hold the report, and the status follows."""
    from roofbot.adapters.github_api import GitHubError, GitHubForbidden, GitHubTooLong

    body = outcome.comment
    failures = 0
    shortened = False
    while True:
        try:
            client.upsert_sticky_comment(s.event.number, MARKER, body)
            return
        except GitHubForbidden as e:
            A.log(out, f"can't comment (read-only token, e.g. a fork PR): {e}; {FALLBACK}")
            return
        except GitHubTooLong as e:
            if shortened:
                A.log(out, f"GitHub refused even the short comment: {e}; {FALLBACK}")
                return
            A.log(out, "GitHub says the comment is too long: posting a shorter one")
            body = fit(body, min(SHORT_COMMENT_BUDGET, len(body) // 2), s.summary_url)
            shortened = True
        except GitHubError as e:
            # once more at most (the transport already retried what is safe to): upsert lists
            # the comments again first, so a POST that did land is edited, not posted twice
            wait = _wait_for(e, failures)
            failures += 1
            if wait is None or failures > COMMENT_RETRIES:
                A.log(out, f"could not comment: {e}; {FALLBACK}")
                return
            A.log(out, f"commenting failed ({e}); again in {wait:g} s")
            time.sleep(wait)


def run_env(env: Mapping[str, str], out_dir: Path | None) -> dict[str, str]:
    """The environment a run writes its files by: RUNNER_TEMP is the user's folder (`--out`),
    else the runner's, else a new temporary folder, never a fixed name in /tmp."""
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        return {**env, "RUNNER_TEMP": str(out_dir.resolve())}
    if env.get("RUNNER_TEMP"):
        return dict(env)
    return {**env, "RUNNER_TEMP": tempfile.mkdtemp(prefix="roofbot-pr-")}


def main(dry_run: bool = False, out_dir: Path | None = None) -> int:
    try:
        return run_pr(run_env(os.environ, out_dir), dry_run=dry_run)
    except Exception:
        traceback.print_exc()
        return 1
