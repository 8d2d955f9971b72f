"""The run's settings: the action's inputs and the Actions environment, read once; the budgets
and bounds the run keeps."""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from roofbot.action.event import PullEvent, UsageError, parse_event, read_payload
from roofbot.adapters import actions as A
from roofbot.adapters.repo import CONFIG_NAME
from roofbot.core.provenance import clip
from roofbot.core.results import Verdict

COMMENT_BUDGET = 60000
SHORT_COMMENT_BUDGET = 30000  # after GitHub answered 422 "too long" anyway
SUMMARY_BYTES = 1_000_000  # GitHub's job summary takes up to 1 MiB per step
SUMMARY_BUDGET = 900_000
MAX_API_FILES = 300  # changed files fetched one by one in API mode
FINAL_STATUS_ATTEMPTS = 3  # > 1: the final status is repeated (safe: the newest one counts)
STATUS_WAIT = 600.0  # seconds the final status may wait out GitHub, by default
PLOT_DEFAULT = "false"  # action.yml's: the default image has no matplotlib
COMMENT_RETRIES = 1  # the sticky comment after a 5xx, a timeout or a short rate limit


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
    status_wait: float = STATUS_WAIT  # seconds the final status may wait (ROOFBOT_STATUS_WAIT)
    review: Literal["inline", "off"] = "inline"  # findings on their diff lines (review.py)
    review_event: Literal["COMMENT", "REQUEST_CHANGES"] = "COMMENT"
    fail_on_existing: bool | None = None  # input fail-on-existing; None: the base's config
    repo_url: str | None = None  # `<server>/<owner>/<repo>`: the comment's links are absolute

    @property
    def title(self) -> str:
        return "roofcheck (all records)" if self.sweep else "roofcheck"


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
    plot = A.input_value(env, "plot", PLOT_DEFAULT).strip().lower()
    if plot not in ("true", "false"):
        raise UsageError("input plot: true or false")
    plot_dir = report_file(env).parent / "roofbot-plot" if plot == "true" else None
    review = A.input_value(env, "review", "inline").strip().lower()
    if review not in ("inline", "off"):
        raise UsageError("input review: inline or off")
    review_event = A.input_value(env, "review-event", "comment").strip().lower()
    if review_event not in ("comment", "request-changes"):
        raise UsageError("input review-event: comment or request-changes")
    existing = A.input_value(env, "fail-on-existing").strip().lower()
    if existing not in ("", "true", "false"):
        raise UsageError("input fail-on-existing: true or false (empty: the base's .roofbot.yml)")
    return Settings(
        fail_on_existing=None if not existing else existing == "true",
        event_name=name,
        event=event,
        workspace=ws,
        config_path=A.input_value(env, "config", CONFIG_NAME),
        template=template_path,
        paths=paths,
        comment="off" if comment == "off" else "update",
        fail_on=fail_on,
        summary_url=summary_url,
        repo_url=f"{server}/{repo}" if server and repo else None,
        sweep=sweep,
        plot_dir=plot_dir,
        status_wait=status_wait_bound(env),
        review="off" if review == "off" else "inline",
        review_event="REQUEST_CHANGES" if review_event == "request-changes" else "COMMENT",
    )


# ------------------------------------------------------------------ the PR's tree


def status_wait_bound(env: Mapping[str, str]) -> float:
    """Seconds the final status may wait for GitHub (ROOFBOT_STATUS_WAIT, default 600: the
    example workflows' 15-minute job timeout leaves room for it after the check)."""
    text = env.get("ROOFBOT_STATUS_WAIT", "").strip()
    try:
        return max(float(text), 0.0) if text else STATUS_WAIT
    except ValueError:
        raise UsageError(f"ROOFBOT_STATUS_WAIT: seconds, got {clip(text, 40)!r}") from None


def report_file(env: Mapping[str, str]) -> Path:
    folder = env.get("RUNNER_TEMP") or tempfile.gettempdir()
    return Path(folder) / "roofbot-report.json"


#: The runner's temporary folder as the host sees it (action.yml sets it to `runner.temp`):
#: a container action's RUNNER_TEMP is /github/runner_temp, a mount of that folder.
HOST_TEMP = "ROOFBOT_HOST_RUNNER_TEMP"


def host_path(env: Mapping[str, str], path: Path) -> str:
    """`path` as a later step of the job (on the host, outside the container) finds it: under
    RUNNER_TEMP it moves to the host's runner temp folder when the action says where it is."""
    temp, host = env.get("RUNNER_TEMP", ""), env.get(HOST_TEMP, "").strip()
    if temp and host and path.is_relative_to(temp):
        return str(Path(host) / path.relative_to(temp))
    return str(path)
