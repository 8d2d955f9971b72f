"""`roofbot preview`: the comment a branch will get, before it is pushed. The changes between
two refs of a local git repository go through the same steps as `roofbot pr` in git mode (the
files that differ from the merge base, the head's tree, the base's policy, the PR's pins):
the same Markdown comment, the same job summary, the same status line. Nothing is posted and
no GitHub token is needed."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from roofbot.action.evaluate import Outcome, evaluate
from roofbot.action.event import PullEvent
from roofbot.action.gather import gather_git
from roofbot.action.settings import Settings
from roofbot.adapters.git import GitError, git
from roofbot.adapters.git_tree import GitTree
from roofbot.adapters.repo import CONFIG_NAME
from roofbot.core.results import Verdict


class PreviewError(ValueError):
    """The refs or the folder can't be previewed (the CLI's exit 2)."""


@dataclass(frozen=True)
class Preview:
    base: str  # the commit SHAs the refs named
    head: str
    outcome: Outcome

    @property
    def status_line(self) -> str:
        """The `roofcheck` commit status `roofbot pr` would set: its state and description."""
        return f"roofcheck: {self.outcome.state}: {self.outcome.description}"


def commit_of(root: Path, ref: str) -> str:
    """The commit SHA `ref` names in the git repository at `root`."""
    if not ref or ref.startswith("-"):
        raise PreviewError(f"{ref!r} is not a git ref")
    try:
        out = git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
    except GitError:
        raise PreviewError(f"{ref!r} names no commit in {root}") from None
    return out.decode("ascii", "replace").strip()


def git_top(root: Path) -> Path:
    try:
        out = git(root, "rev-parse", "--show-toplevel")
    except GitError:
        raise PreviewError(
            f"{root} is not in a git repository: preview compares two refs"
        ) from None
    return Path(out.decode("utf-8", "surrogateescape").strip())


def repo_url(root: Path) -> str | None:
    """Where the comment's links point: `$GITHUB_SERVER_URL/$GITHUB_REPOSITORY` where both
    are set (as in a workflow), else the `origin` remote's web address where it is an https
    or `git@` address of a forge, else None (files are named, not linked)."""
    server, repo = os.environ.get("GITHUB_SERVER_URL"), os.environ.get("GITHUB_REPOSITORY")
    if server and repo:
        return f"{server.rstrip('/')}/{repo}"
    try:
        out = subprocess.run(
            ["git", "-C", str(root), "remote", "get-url", "origin"],
            capture_output=True, text=True, check=False, timeout=10,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    remote = out.stdout.strip().removesuffix(".git")
    if m := re.fullmatch(r"git@([A-Za-z0-9.\-]+):([\w.\-]+/[\w.\-]+)", remote):
        return f"https://{m[1]}/{m[2]}"
    if re.fullmatch(r"https://[A-Za-z0-9.\-:]+/[\w.\-]+/[\w.\-]+", remote):
        return remote
    return None


def preview(
    root: Path, base_ref: str, head_ref: str, fail_on: frozenset[Verdict] | None = None
) -> Preview:
    """The outcome `roofbot pr` would reach for a pull request from `head_ref` into
    `base_ref` of the records repository at `root` (the top of its git repository)."""
    top = git_top(root)
    if top.resolve() != root.resolve():
        raise PreviewError(
            f"the records repository {root} is not the top of its git repository ({top}); "
            "preview reads the refs' trees from the top"
        )
    base, head = commit_of(root, base_ref), commit_of(root, head_ref)
    event = PullEvent(
        number=0, action="opened", base_sha=base, head_sha=head, base_ref=base_ref,
        is_fork=False, draft=False,
    )  # fmt: skip
    # `roofbot pr` asks for a chart (input plot defaults to true); drawn, it changes nothing in
    # the comment without a run to link it from, but a missing plot extra is a note in it. So
    # the preview asks for one only where matplotlib is missing: the note, and nothing drawn.
    plot_dir = None if importlib.util.find_spec("matplotlib") else Path(tempfile.gettempdir())
    settings = Settings(
        event_name="pull_request",
        event=event,
        workspace=root.resolve(),
        config_path=CONFIG_NAME,
        template=None,
        paths=(),
        comment="off",
        fail_on=fail_on,
        summary_url=None,
        plot_dir=plot_dir,
        repo_url=repo_url(root),
    )
    inputs = gather_git(settings)
    try:
        outcome = evaluate(settings, inputs)
    finally:
        if isinstance(inputs.tree, GitTree):
            inputs.tree.close()
    return Preview(base, head, outcome)
