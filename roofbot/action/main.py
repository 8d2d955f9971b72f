"""`roofbot pr`: the GitHub Action's entrypoint. Routes the event: a pull request (or a merge
queue's group) to roofbot.action.pull, an `issue_comment` (a `/roofcheck` command) to
roofbot.action.command. Nothing from the PR is executed."""

from __future__ import annotations

import os
import sys
import tempfile
import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from roofbot.action.command import run_comment
from roofbot.action.event import COMMENT_EVENT, UsageError
from roofbot.action.pull import check_pull, make_client
from roofbot.action.settings import settings_from_env
from roofbot.adapters import actions as A


def run_pr(env: Mapping[str, str], *, dry_run: bool = False, out: TextIO = sys.stdout) -> int:
    """The action. Exit code: 0 ok, 1 not ok, 2 usage or configuration error (then the
    output `ok` is `false`, as after a crash: never empty)."""
    code = _run_pr(env, dry_run, out)
    if code == 2:
        A.write_outputs(env, {"ok": "false"})
    return code


def _run_pr(env: Mapping[str, str], dry_run: bool, out: TextIO) -> int:
    if env.get("GITHUB_EVENT_NAME") == COMMENT_EVENT:
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
    env = run_env(os.environ, out_dir)
    try:
        return run_pr(env, dry_run=dry_run)
    except Exception:
        traceback.print_exc()
        A.write_outputs(env, {"ok": "false"})
        return 1
