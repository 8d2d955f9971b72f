"""`roofbot preview`: the comment a branch will get, before it is pushed. The changes between
two refs of a local git repository go through the same steps as `roofbot pr` in git mode (the
files that differ from the merge base, the head's tree, the base's policy, the PR's pins):
the same Markdown comment, the same job summary, the same status line. Nothing is posted and
no GitHub token is needed. Where the head is the commit checked out, uncommitted changes to
the files roofbot reads are part of it (the working tree is the head).

`judge_worktree` is the same judgement for a working tree against one commit: what
`roofbot check --changed` (the pre-commit hook) decides."""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from roofbot.action.evaluate import Outcome, evaluate
from roofbot.action.event import PullEvent
from roofbot.action.gather import Gathered, gather_git, head_config, is_relevant
from roofbot.action.settings import PLOT_DEFAULT, Settings
from roofbot.adapters.git import GitError, git, worktree_changes
from roofbot.adapters.git_tree import GitTree
from roofbot.adapters.repo import CONFIG_NAME, load_config_text
from roofbot.adapters.tree import FolderTree
from roofbot.core.changes import FileChange
from roofbot.core.config import Config, ConfigError
from roofbot.core.results import Verdict


class PreviewError(ValueError):
    """The refs or the folder can't be previewed (the CLI's exit 2)."""


@dataclass(frozen=True)
class Preview:
    base: str  # the commit SHAs the refs named
    head: str
    outcome: Outcome
    uncommitted: tuple[str, ...] = ()  # the uncommitted changes the head includes

    @property
    def same_commit(self) -> bool:
        return self.base == self.head

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
    `base_ref` of the records repository at `root` (the top of its git repository). Where
    `head_ref` is the commit checked out, the working tree's uncommitted changes to files
    roofbot reads are part of the head."""
    top = git_top(root)
    if top.resolve() != root.resolve():
        raise PreviewError(
            f"the records repository {root} is not the top of its git repository ({top}); "
            "preview reads the refs' trees from the top"
        )
    base, head = commit_of(root, base_ref), commit_of(root, head_ref)
    dirty = _uncommitted(root, base, head) if head == _checked_out(root) else []
    if dirty:
        merge_base = git(root, "merge-base", base, head).decode("ascii").strip()
        files = worktree_changes(root, merge_base)
        outcome = judge_worktree(root, base, files, fail_on, head_sha=head, base_ref=base_ref)
        return Preview(base, head, outcome, tuple(f.path for f in dirty))
    event = PullEvent(
        number=0, action="opened", base_sha=base, head_sha=head, base_ref=base_ref,
        is_fork=False, draft=False,
    )  # fmt: skip
    settings = _settings(root, event, fail_on)
    inputs = gather_git(settings)
    try:
        outcome = evaluate(settings, inputs)
    finally:
        if isinstance(inputs.tree, GitTree):
            inputs.tree.close()
        if isinstance(inputs.base_tree, GitTree):
            inputs.base_tree.close()
    return Preview(base, head, outcome)


def _settings(root: Path, event: PullEvent, fail_on: frozenset[Verdict] | None) -> Settings:
    # `roofbot pr` asks for a chart where the input plot (default PLOT_DEFAULT) says so; drawn,
    # it changes nothing in the comment without a run to link it from, but a missing plot
    # extra is a note in it. So the preview asks for one only where the default asks and
    # matplotlib is missing: the note, and nothing drawn.
    wants = PLOT_DEFAULT == "true" and not importlib.util.find_spec("matplotlib")
    plot_dir = Path(tempfile.gettempdir()) if wants else None
    return Settings(
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


def _checked_out(root: Path) -> str | None:
    try:
        return git(root, "rev-parse", "--verify", "--quiet", "HEAD").decode("ascii").strip()
    except GitError:
        return None


def _configs(root: Path, base: str) -> list[Config]:
    """The base's configuration and the working tree's (those that load)."""
    base_tree = GitTree(root, base)
    try:
        texts = (base_tree.text(CONFIG_NAME), _worktree_config(root))
    finally:
        base_tree.close()
    out = []
    for text in texts:
        try:
            out.append(load_config_text(text))
        except ConfigError:
            continue
    return out


def _worktree_config(root: Path) -> str | None:
    cfg = root / CONFIG_NAME
    return cfg.read_text("utf-8", "replace") if cfg.is_file() and not cfg.is_symlink() else None


def _uncommitted(root: Path, base: str, head: str) -> list[FileChange]:
    """The working tree's changes against `head` (the commit checked out) to files roofbot
    reads (under the base's configuration or the working tree's, and every schema)."""
    configs = _configs(root, base)
    return [
        f
        for f in worktree_changes(root, head)
        if f.path.startswith("schemas/")
        or any(is_relevant(f.path, c, CONFIG_NAME) for c in configs)
    ]


def judge_worktree(
    root: Path,
    base: str,
    files: list[FileChange],
    fail_on: frozenset[Verdict] | None = None,
    *,
    head_sha: str | None = None,
    base_ref: str = "",
    fail_on_existing: bool | None = None,
) -> Outcome:
    """The outcome `roofbot pr` would reach for the working tree of the git repository at
    `root` (its top) as the head of a pull request into commit `base`, `files` being what
    differs: the same plan, the same base-branch instrument, the same attribution."""
    event = PullEvent(
        number=0, action="opened", base_sha=base, head_sha=head_sha or base,
        base_ref=base_ref or base[:12], is_fork=False, draft=False,
    )  # fmt: skip
    settings = _settings(root, event, fail_on)
    if fail_on_existing is not None:
        settings = dataclasses.replace(settings, fail_on_existing=fail_on_existing)
    tree = FolderTree(root)
    base_tree = GitTree(root, base)
    try:
        present = (root / CONFIG_NAME).exists() or (root / CONFIG_NAME).is_symlink()
        head_text, problem = head_config(tree, CONFIG_NAME, present)
        inputs = Gathered(
            tree, base_tree.text(CONFIG_NAME), head_text, files, "git",
            head_config_problem=problem, base_tree=base_tree,
        )  # fmt: skip
        return evaluate(settings, inputs)
    finally:
        base_tree.close()
