"""The Outcome of a pull request: the check, the instrument review and the before/after
comparison, rendered to a comment, a summary and annotations. Posts nothing."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from roofbot.action import instrument as instr
from roofbot.action.approval import Approval
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
from roofbot.adapters.tree import Tree, read_or_none
from roofbot.catalogue_check import with_catalogue_errors
from roofbot.core.changes import Changes, catalogue_kind
from roofbot.core.compare import Comparison
from roofbot.core.config import Config
from roofbot.core.provenance import clip
from roofbot.core.results import Message, Report, Verdict
from roofbot.engine import run_check
from roofbot.links import gotcha_paths
from roofbot.render import json_report
from roofbot.render.github import annotations_for
from roofbot.render.markdown import render_report


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
    # the PR changes nothing roofbot reads: no new comment (an earlier one is brought up to date)
    quiet: bool = False


def describe(report: Report | None, changes: Changes, base_ref: str = "") -> str:
    cal = (
        "calibration not run"
        if report is None or not report.calibration.ran
        else "calibration ok"
        if report.calibration.ok
        else "calibration BROKEN"
    )
    if report is None or not report.records:
        if changes.instrument:
            return f"no benchmark record changed; the instrument did ({cal})"[:139]
        if changes.files:
            return f"no benchmark record to check; {cal}"
        return f"no benchmark record or catalogue change to check; {cal}"
    parts = [f"{report.count(v)} {v.value}" for v in Verdict if report.count(v)]
    text = f"{len(report.records)} checked: {', '.join(parts)}"
    if report.already:  # the counts agree with the state: the base's findings don't fail it
        text += f" ({len(report.existing())} already on {base_ref or 'the base'})"
    return clip(f"{text}; {cal}", 139)


def evaluate(
    s: Settings, inputs: Gathered, approval_lookup: Callable[[], Approval | None] | None = None
) -> Outcome:
    """The whole check, as data: nothing is posted here. Raises ConfigError on a bad base
    config; a bad PR config becomes a failure the comment explains. The instrument is the base
    branch's (roofbot.action.instrument); where the PR moves it and a record passes only under the
    PR's, the outcome is held until `approval_lookup` (called only then) finds an approval of
    this head."""
    plan = plan_run(s, inputs)
    report = _check(s, inputs, plan)  # the calibration runs on every run, whatever changed
    under_base: list[Report] = []  # the check-twice's results, reused by before and after
    review = review_instrument(s, inputs, plan, report, under_base)
    comparison = _before_after(s, inputs, plan, report, under_base)
    report = attributed(report, comparison, _fail_on_existing(s, plan))
    ok = report.ok and plan.config_problem is None
    suspects = held_suspects(report, comparison, plan, s.sweep)
    approval = _approval(s, review, suspects, ok, approval_lookup)
    held = review if review is not None and review.holds and ok and approval is None else None
    held_ids = suspects if ok and approval is None else ()
    links = gotcha_paths(plan.config, plan.repo.catalogue())
    report, chart = _with_chart(report, plan.config, s.plot_dir)
    state: Literal["success", "failure"] = (
        "success" if ok and held is None and not held_ids else "failure"
    )
    common = _context(s, plan.changes, comparison, chart, review, approval, held_ids)
    common["read"] = lambda path: read_or_none(inputs.tree, path, MAX_BYTES)
    common["extra"]["ok"] = state == "success"
    if (why := _headline(s, plan, report, held, held_ids)) is not None:
        common["extra"]["headline"] = why  # the status's own reason leads, as the status says
    comment, summary, rerender = _rendered(s, report, links, common)
    return Outcome(
        report,
        plan.changes,
        state,
        _description(s, plan, report, review, held, approval, held_ids),
        comment,
        summary,
        tuple(annotations_for(report, inputs.tree)),
        json_report.report_text(report, links),
        chart,
        comparison,
        rerender,
        quiet=plan.quiet and state == "success",
    )


def _headline(
    s: Settings, plan: Plan, report: Report, held: Review | None, held_ids: tuple[str, ...]
) -> str | None:
    """What the comment's first line says where the status fails for a reason other than a
    record's verdict (None: the template's own words, from the verdicts): it always agrees
    with the status, and a broken configuration is the first thing said."""
    if plan.config_problem:
        return f"the PR's {s.config_path} is invalid: {plan.config_problem}"
    if report.ok and held is not None:
        return held.description()
    if report.ok and held_ids:
        return f"held: {', '.join(held_ids)} passes only under some readings of its text"
    return None


def _fail_on_existing(s: Settings, plan: Plan) -> bool:
    """The input fail-on-existing, else the base's `fail_on_existing`."""
    return s.fail_on_existing if s.fail_on_existing is not None else plan.base_cfg.fail_on_existing


def attributed(report: Report, comparison: Comparison | None, fail_on_existing: bool) -> Report:
    """The report judged by what the change brings: the findings the base already has are
    reported and do not fail it (all of them fail with `fail_on_existing`, or where there is
    no base to compare with)."""
    if comparison is None or fail_on_existing:
        return report
    return dataclasses.replace(report, already=comparison.already())


def held_suspects(
    report: Report, comparison: Comparison | None, plan: Plan, sweep: bool
) -> tuple[str, ...]:
    """The `suspect` records the change adds or makes worse (not failing by `fail_on`): held
    until the record states the input that decides, or a maintainer approves this head. A
    suspect the base already has only warns. Without a base, every suspect the change
    touches is held."""
    if sweep:
        return ()
    if comparison is not None:
        mine = [d.after for d in comparison.deltas if d.the_changes]
    else:
        mine = [r for r in report.records if r.path in plan.records]
    failing = {r.path for r in report.failing()}
    return tuple(r.id for r in mine if r.verdict is Verdict.SUSPECT and r.path not in failing)


def _check(s: Settings, inputs: Gathered, plan: Plan) -> Report:
    """The run's report: the planned records checked, with calibration; the rows of the failing
    catalogue files; the gathering's notes and the PR configuration's problem as messages."""
    plan.repo.prefetch_checks(plan.paths, [c.id for c in plan.config.calibration])
    report = run_check(plan.repo, plan.paths, calibration=True)
    report = with_catalogue_errors(report, plan.repo, plan.invalid)
    if not s.sweep:
        renames = {f.path: f.old_path or f.path for f in plan.relevant}
        report = instr.deprecation_from_base(
            report, _base_statuses(inputs.base_tree, plan.records, renames), plan.records
        )
    extra = [Message("warning", n) for n in inputs.notes]
    if plan.config_problem:
        extra.append(Message("error", f"the PR's {s.config_path}: {plan.config_problem}"))
    if extra:
        report = dataclasses.replace(report, messages=(*report.messages, *extra))
    return report


def _base_statuses(
    base: Tree | None, paths: list[str], renames: Mapping[str, str]
) -> dict[str, str | None]:
    """Each changed record's `status` on the base (None where the base has no such record, or
    no base tree was read: then no `deprecated` of the PR's counts)."""
    out: dict[str, str | None] = {}
    for path in paths:
        raw = None if base is None else read_or_none(base, renames.get(path, path), MAX_BYTES)
        try:
            data = json.loads(raw) if raw is not None else None
        except (ValueError, RecursionError):
            data = None
        status = data.get("status") if isinstance(data, dict) else None
        out[path] = status if isinstance(status, str) else None
    return out


def _approval(
    s: Settings,
    review: Review | None,
    suspects: tuple[str, ...],
    ok: bool,
    lookup: Callable[[], Approval | None] | None,
) -> Approval | None:
    """The approval of this head into this base, looked up (from the maintainer's comment,
    roofbot.action.approval_lookup) only where a passing run is held: by the instrument, or
    by suspects the change brings."""
    if not ok or lookup is None or not (suspects or (review is not None and review.holds)):
        return None
    return lookup()


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
    problems = plan.repo.catalogue_problems
    head_rows = frozenset(r.path for r in report.records if r.path in problems)
    touched = frozenset(
        f.path for f in plan.relevant if catalogue_kind(f.path, plan.config.catalogue)
    )
    return compare_with_base(
        report, inputs.base_tree, base_config, plan.repo.schemas, plan.paths, renames,
        known, head_rows=head_rows, touched=touched,
    )  # fmt: skip


def _context(
    s: Settings,
    changes: Changes,
    comparison: Comparison | None,
    chart: Path | None,
    review: Review | None,
    approval: Approval | None,
    held_ids: tuple[str, ...] = (),
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
        "extra": {  # `head`: the SHA a maintainer's `/roofcheck approve` must name
            "instrument": {**view(review, approval), "head": s.event.head_sha}
            if review is not None
            else None,
            "held_suspects": list(held_ids),
            "head": s.event.head_sha,
        },
    }


def _rendered(
    s: Settings,
    report: Report,
    links: Mapping[str, str | None],
    common: dict[str, Any],
) -> tuple[str, str, Callable[[Mapping[str, Any]], tuple[str, str]]]:
    """The sticky comment, the job summary, and a way to render both again with a note."""
    comment = render_report(report, links, max_chars=COMMENT_BUDGET, summary_url=s.summary_url,
                            **common)  # fmt: skip

    def rerender(note: Mapping[str, Any]) -> tuple[str, str]:
        """The comment and the summary again, saying what the inline review could not post."""
        noted = {**common, "review": note}
        text = render_report(report, links, max_chars=COMMENT_BUDGET,
                             summary_url=s.summary_url, **noted)  # fmt: skip
        return text, _summary(report, links, noted)

    return comment, _summary(report, links, common), rerender


def _description(
    s: Settings,
    plan: Plan,
    report: Report,
    review: Review | None,
    held: Review | None,
    approval: Approval | None,
    held_ids: tuple[str, ...] = (),
) -> str:
    """The commit status's description: the counts, or why the run fails or is held."""
    description = describe(report, plan.changes, s.event.base_ref)
    if s.sweep:
        description = ("all records: " + description)[:139]
    if plan.config_problem:
        description = f"the PR's {s.config_path} is invalid"
    if held is not None:
        return held.description()
    if held_ids:
        n = len(held_ids)
        return clip(
            f"held: {n} suspect record{'s' if n != 1 else ''} this PR adds or changes "
            f"({', '.join(held_ids)}): state the input, or a maintainer runs /roofcheck approve",
            139,
        )
    if approval is not None:
        what = "instrument" if review is not None and review.holds else "suspects"
        return clip(f"{description}; {what} approved by {approval.by}", 139)
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
        base_view, dataclasses.replace(config, pins=base_cfg.pins), plan.repo.schemas
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
