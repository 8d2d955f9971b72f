"""The Outcome of a pull request: the check, the instrument review and the before/after
comparison, rendered to a comment, a summary and annotations. Posts nothing."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from roofbot.action import instrument as instr
from roofbot.action.approval import Approval, stamp, valid_for
from roofbot.action.before_after import compare_with_base
from roofbot.action.chart import NO_CHART, ChartUnavailable, draw_chart
from roofbot.action.gather import Gathered, is_relevant
from roofbot.action.policy import instrument_changes, merge_config, paths_to_check
from roofbot.action.settings import COMMENT_BUDGET, SUMMARY_BUDGET, SUMMARY_BYTES, Settings
from roofbot.adapters import actions as A
from roofbot.adapters.git import matches_any
from roofbot.adapters.repo import Repository, load_config_text
from roofbot.adapters.schemas import Schemas
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
from roofbot.render.github import annotations_for
from roofbot.render.markdown import render_report
from roofbot.render.markdown.context import MARKER


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


def evaluate(
    s: Settings, inputs: Gathered, approval_lookup: Callable[[], Approval | None] | None = None
) -> Outcome:
    """The whole check, as data: nothing is posted here. Raises ConfigError on a bad base
    config; a bad PR config becomes a failure the comment explains. The instrument is the base
    branch's (roofbot.action.instrument); where the PR moves it and a record passes only under the
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
        if is_relevant(f.path, config, s.config_path)
        or (f.old_path and is_relevant(f.old_path, config, s.config_path))
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
    report = run_check(repo, records + deps, calibration=True)
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
    inputs: Gathered,
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
    base_report = run_check(base_repo, paths, calibration=False)
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


def _summary(report: Report, links: Mapping[str, str | None], common: dict[str, Any]) -> str:
    """The job summary: as much as fits in GitHub's 1 MiB (bytes, not characters)."""
    budget = SUMMARY_BUDGET
    while True:
        text = render_report(report, links, max_chars=budget, **common)
        if len(text.encode("utf-8")) <= SUMMARY_BYTES or budget < 10_000:
            return text
        budget //= 2


# ------------------------------------------------------------------ posting
