"""One pull request checked and reported, start to end: gather, evaluate, publish, and the
final status whatever happens."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, TextIO

from roofbot.action.approval_lookup import find_approval
from roofbot.action.chart import NO_CHART
from roofbot.action.evaluate import Outcome, evaluate
from roofbot.action.event import UsageError
from roofbot.action.gather import Gathered, gather_api, gather_git
from roofbot.action.publish import (
    dry_run_output,
    post_comment,
    post_inline_review,
    status_guard,
    write_unfinished,
)
from roofbot.action.settings import Settings, host_path, report_file
from roofbot.action.tree_diff import ListingIncomplete
from roofbot.adapters import actions as A
from roofbot.adapters.git import GitError, has_commit
from roofbot.adapters.git_tree import GitTree
from roofbot.adapters.github.client import GitHubClient
from roofbot.adapters.github.errors import GitHubError
from roofbot.adapters.github.protocol import GitHub
from roofbot.core.config import ConfigError
from roofbot.core.results import Verdict


def make_client(env: Mapping[str, str]) -> GitHubClient:
    """The GitHub client for this run (UsageError when the environment lacks a token...)."""

    try:
        return GitHubClient.from_env(env)
    except GitHubError as e:
        raise UsageError(str(e)) from None


NO_BASE_STATUS = "the base commit is not in the workspace: roofbot can't check (see the job log)"


def no_base(base_sha: str) -> str:
    """Why API mode refuses to run: it reads the base's configuration and catalogue at the
    base commit, and that commit is not in the workspace's git objects."""
    return (
        f"the pull request's head is not in the workspace (API mode), and neither is its base "
        f"commit {base_sha[:12]}: roofbot reads the base's configuration and catalogue at that "
        "commit, never from the checked-out folder (on pull_request it is the merge commit, "
        "which already holds the pull request's edits; on issue_comment it is the default "
        "branch). Check out the base with fetch-depth: 0 (or fetch the base commit) in the "
        "workflow. Nothing was checked."
    )


@dataclass(frozen=True)
class Checked:
    code: int  # the exit code: 0 ok, 1 not ok or not finished, 2 usage or configuration error
    state: Literal["success", "failure", "error"]  # the final status roofbot set (or meant to)


def check_pull(
    s: Settings,
    env: Mapping[str, str],
    client: GitHub | None,
    out: TextIO,
    *,
    dry_run: bool = False,
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
            A.write_outputs(env, {"ok": "false"})  # never empty: a later step reads it
    if landed == ["failed"]:
        A.log(out, f"the final {s.event.context} status was not set: this job fails so that "
                   "it shows (rerun it, or comment /roofcheck)")  # fmt: skip
        return Checked(max(code, 1), result.state)
    return result


def _run(
    s: Settings, env: Mapping[str, str], client: GitHub | None, out: TextIO, dry_run: bool
) -> tuple[int, Outcome | None, str]:
    """(exit code, the outcome, or why there is none)."""

    git_mode = has_commit(s.workspace, s.event.base_sha) and has_commit(
        s.workspace, s.event.head_sha
    )
    inputs: Gathered | None = None
    try:
        if git_mode:
            inputs = gather_git(s)
        else:
            if client is None:
                A.log(
                    out, "the PR's commits are not in the workspace and --dry-run makes no API call"
                )
                return 2, None, "the pull request's commits are not in the workspace"
            if not has_commit(s.workspace, s.event.base_sha):
                A.log(out, no_base(s.event.base_sha))
                write_unfinished(env, "the base commit is not in the workspace",
                                 no_base(s.event.base_sha))  # fmt: skip
                return 2, None, NO_BASE_STATUS
            base = GitTree(s.workspace, s.event.base_sha)
            try:
                inputs = gather_api(s, client, base, out)
            except BaseException:
                base.close()
                raise
        A.log(out, f"changed files from {inputs.source}: {len(inputs.files)}")
        outcome = evaluate(s, inputs, lambda: find_approval(client, s, out))
        if outcome.report is not None and any(m.text == NO_CHART for m in outcome.report.messages):
            A.log(out, NO_CHART)
        if not dry_run and client is not None:
            outcome = post_inline_review(client, s, inputs, outcome, out)
    except ConfigError as e:
        A.log(out, f"configuration error: {e}")
        write_unfinished(env, "configuration error", str(e))
        return 2, None, "roofbot configuration error (see the job log)"
    except GitHubError as e:
        A.log(out, f"could not read the pull request from GitHub: {e}")
        write_unfinished(env, "GitHub did not answer", str(e))
        return 1, None, f"GitHub did not answer ({type(e).__name__}); rerun with /roofcheck"
    except ListingIncomplete as e:
        A.log(out, f"{e}: fetch the pull request's head in the workflow (git mode)")
        write_unfinished(env, "the change could not be listed", str(e))
        return 1, None, "too many changed files to list through the API: fetch the PR head"
    except GitError as e:
        A.log(out, f"could not read the pull request from git: {e}")
        write_unfinished(env, "git failed", str(e))
        return 1, None, "roofbot could not read the pull request's commits (see the job log)"
    finally:
        if inputs is not None:
            for t in (inputs.tree, inputs.base_tree):
                if isinstance(t, GitTree):
                    t.close()
    report_path = report_file(env)
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
            "report-path": host_path(env, report_path),
            "plot-path": host_path(env, outcome.plot) if outcome.plot else "",
        },
    )
    if dry_run:
        A.log(out, f"dry run: status would be {outcome.state}: {outcome.description}")
        dry_run_output(env, outcome, out)
    elif client is not None and s.comment == "update" and s.event.number > 0:  # no PR: a group
        post_comment(client, s, outcome, env, out)
    A.log(out, f"{outcome.state}: {outcome.description}")
    return (0 if outcome.state == "success" else 1), outcome, ""
