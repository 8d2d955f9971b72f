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
from roofbot.action.gather import Gathered
from roofbot.action.instrument_review import (
    MAX_FIELD_CHANGES,
    Review,
    catalogue_changes,
    compare,
    field_changes,
    new_parts,
    view,
)
from roofbot.action.plan import Plan, plan_run
from roofbot.action.policy import merge_config
from roofbot.action.settings import COMMENT_BUDGET, SUMMARY_BUDGET, SUMMARY_BYTES, Settings
from roofbot.adapters import actions as A
from roofbot.adapters.jsonfile import MAX_BYTES
from roofbot.adapters.repo import Repository
from roofbot.adapters.schemas import Schemas
from roofbot.adapters.tree import read_or_none
from roofbot.catalogue_check import with_catalogue_errors
from roofbot.core.changes import Changes
from roofbot.core.compare import Comparison
from roofbot.core.config import Config
from roofbot.core.provenance import clip
from roofbot.core.results import Message, Report, Verdict
from roofbot.engine import run_check
from roofbot.links import gotcha_paths
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
    plan = plan_run(s, inputs)
    if plan.empty:
        text = (
            f"{MARKER}\n### ✅ roofcheck: nothing to check\n\n"
            "This pull request changes no benchmark record, catalogue record or roofbot pin.\n"
        )
        return Outcome(None, plan.changes, "success", describe(None, plan.changes), text, text, (),
                       "{}\n")  # fmt: skip
    report = _check(s, inputs, plan)
    under_base: list[Report] = []  # the check-twice's results, reused by before and after
    review = review_instrument(s, inputs, plan, report, under_base)
    ok = report.ok and plan.config_problem is None
    approval = _approval(s, review, ok, approval_lookup)
    held = review if review is not None and review.held and ok and approval is None else None
    links = gotcha_paths(plan.config, plan.repo.catalogue())
    report, chart = _with_chart(report, plan.config, s.plot_dir)
    comparison = _before_after(s, inputs, plan, report, under_base)
    common = _context(s, plan.changes, comparison, chart, review, approval)
    common["read"] = lambda path: read_or_none(inputs.tree, path, MAX_BYTES)
    comment, summary, rerender = _rendered(s, report, links, common, approval)
    return Outcome(
        report,
        plan.changes,
        "success" if ok and held is None else "failure",
        _description(s, plan, report, held, approval),
        comment,
        summary,
        tuple(annotations_for(report, inputs.tree)),
        json_report.report_text(report, links),
        chart,
        comparison,
        rerender,
    )


def _check(s: Settings, inputs: Gathered, plan: Plan) -> Report:
    """The run's report: the planned records checked, with calibration; the rows of the failing
    catalogue files; the gathering's notes and the PR configuration's problem as messages."""
    plan.repo.prefetch_checks(plan.paths, [c.id for c in plan.config.calibration])
    report = run_check(plan.repo, plan.paths, calibration=True)
    report = with_catalogue_errors(report, plan.repo, plan.invalid)
    extra = [Message("warning", n) for n in inputs.notes]
    if plan.config_problem:
        extra.append(Message("error", f"the PR's {s.config_path}: {plan.config_problem}"))
    if extra:
        report = dataclasses.replace(report, messages=(*report.messages, *extra))
    return report


def _approval(
    s: Settings,
    review: Review | None,
    ok: bool,
    lookup: Callable[[], Approval | None] | None,
) -> Approval | None:
    """The approval of this head, looked up only where a passing run is held."""
    if review is None or not review.held or not ok:
        return None
    return valid_for(s.approval or (lookup() if lookup else None),
                     s.event.approval_sha or s.event.head_sha)  # fmt: skip


def _with_chart(report: Report, config: Config, folder: Path | None) -> tuple[Report, Path | None]:
    """The roofline chart, or the report with a note where the optional extra is missing (a
    note, never a failure)."""
    try:
        return report, draw_chart(report, config, folder)
    except ChartUnavailable:
        return dataclasses.replace(
            report, messages=(*report.messages, Message("warning", NO_CHART))
        ), None


def _before_after(
    s: Settings, inputs: Gathered, plan: Plan, report: Report, under_base: list[Report]
) -> Comparison | None:
    """The PR's results beside the base's (none on a sweep, or without the base's tree)."""
    if inputs.base_tree is None or s.sweep:
        return None
    renames = {f.path: f.old_path for f in plan.relevant if f.old_path}
    base_config = merge_config(plan.base_cfg, plan.base_cfg, s.fail_on)
    # a dependent's file is the base's: the check-twice already has its base result
    dep_paths = set(plan.deps)
    known = {r.path: r for rep in under_base for r in rep.records if r.path in dep_paths}
    return compare_with_base(
        report, inputs.base_tree, base_config, s.workspace / "schemas", plan.paths, renames,
        known,
    )  # fmt: skip


def _context(
    s: Settings,
    changes: Changes,
    comparison: Comparison | None,
    chart: Path | None,
    review: Review | None,
    approval: Approval | None,
) -> dict[str, Any]:
    """What the comment and the summary templates read besides the report."""
    return {
        "comparison": comparison,
        "changes": changes,
        "head_sha": s.event.head_sha,
        "repo_url": s.repo_url,
        "template": s.template,
        "title": s.title,
        "chart_url": f"{s.summary_url}#artifacts" if chart and s.summary_url else None,
        "extra": {"instrument": view(review, approval) if review is not None else None},
    }


def _rendered(
    s: Settings,
    report: Report,
    links: Mapping[str, str | None],
    common: dict[str, Any],
    approval: Approval | None,
) -> tuple[str, str, Callable[[Mapping[str, Any]], tuple[str, str]]]:
    """The sticky comment, the job summary, and a way to render both again with a note."""
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

    return comment, _summary(report, links, common), rerender


def _description(
    s: Settings, plan: Plan, report: Report, held: Review | None, approval: Approval | None
) -> str:
    """The commit status's description: the counts, or why the run fails or is held."""
    description = describe(report, plan.changes)
    if s.sweep:
        description = ("all records: " + description)[:139]
    if plan.config_problem:
        description = f"the PR's {s.config_path} is invalid"
    if held is not None:
        return held.description()
    if approval is not None:
        return clip(f"{description}; instrument approved by {approval.by}", 139)
    return description


def review_instrument(
    s: Settings, inputs: Gathered, plan: Plan, report: Report, keep: list[Report] | None = None
) -> Review | None:
    """Check twice where the PR moves the instrument: the same records under the base's
    catalogue and pins (appended to `keep`, where given). None: the PR leaves the instrument
    alone."""
    config, base_cfg = plan.config, plan.base_cfg
    skipped = tuple(instr.not_applied(plan.instrument, plan.added, base_cfg))
    catalogue = catalogue_changes(plan.relevant, base_cfg)
    pr_pins = tuple(sorted(instr.pr_pinned_ids(config, base_cfg)))
    if not catalogue and not pr_pins:
        return Review(not_applied=skipped) if skipped else None
    if inputs.base_tree is None:
        return Review(not_applied=skipped, pr_pins=pr_pins)
    base_view = instr.BaseCatalogueTree(inputs.tree, inputs.base_tree, config.catalogue)
    base_repo = Repository(
        base_view, dataclasses.replace(config, pins=base_cfg.pins), Schemas(s.workspace / "schemas")
    )
    base_report = run_check(base_repo, plan.paths, calibration=False)
    if keep is not None:
        keep.append(base_report)
    parts = new_parts(catalogue, config, inputs.tree)
    fields = field_changes(catalogue, config, inputs.tree, inputs.base_tree)
    shown = fields[:MAX_FIELD_CHANGES]
    return Review(
        field_changes=tuple(shown),
        field_changes_hidden=len(fields) - len(shown),
        new_parts=tuple(parts),
        moves=tuple(compare(report, base_report, new_part=bool(parts))),
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
