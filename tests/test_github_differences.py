"""Where the loopback GitHub once differed from github.com, and roofbot with it: the API
version header, the rate limits an Actions token meets, the review's life over many pushes,
the bot's login, the status context's length. Each test runs the adapter (or the action's
code) against tests/github_server.py, which holds these rules as GitHub does."""

from __future__ import annotations

import json
import re
import tomllib
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import yaml
from github_server import FakeGitHub, fake_github_fixture
from prkit import PR, make_pull, run_action, violating_copy
from test_github_api import settings_for

from roofbot.adapters.github.client import GitHubClient
from roofbot.adapters.github.errors import GitHubRateLimited

ROOT = Path(__file__).resolve().parents[1]
MPT = "data/benchmarks/new-record.json"
fake_github = fake_github_fixture()


# ------------------------------------------------------------------ the API version


def test_every_request_names_the_api_version(fake_github: FakeGitHub) -> None:
    pull = fake_github.add_pull(5, files=["data/a.json"])
    blob = fake_github.add_blob(b"{}")
    with GitHubClient(settings_for(fake_github)) as client:
        client.get_pull(5)
        client.upsert_sticky_comment(5, "<!-- m -->", "report")
        client.set_status(pull.head_sha, "pending", "checking")
        client.get_blob(blob)  # the raw download too
        client.list_review_comments(5)
    assert fake_github.requests
    assert {r.header("X-GitHub-Api-Version") for r in fake_github.requests} == {"2022-11-28"}


def test_the_fake_refuses_a_request_without_the_version(fake_github: FakeGitHub) -> None:
    request = urllib.request.Request(
        f"{fake_github.repo_url}/pulls/1", headers={"Authorization": f"token {fake_github.token}"}
    )
    try:
        urllib.request.urlopen(request, timeout=5)
        raise AssertionError("the fake answered a request without X-GitHub-Api-Version")
    except urllib.error.HTTPError as e:
        assert e.code == 400


def test_pygithub_is_at_least_2_9_everywhere() -> None:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["dependencies"]
    assert "PyGithub>=2.9" in deps
    for lock in ("requirements.lock", "requirements-plot.lock"):
        pinned = re.search(r"^pygithub==(\d+)\.(\d+)", (ROOT / lock).read_text("utf-8"), re.M)
        assert pinned is not None and (int(pinned[1]), int(pinned[2])) >= (2, 9), lock


# ------------------------------------------------------------------ the outputs


def test_outputs_are_host_paths_a_later_step_can_read(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    """In the container RUNNER_TEMP is /github/runner_temp, a mount of the host's runner.temp:
    the outputs name the host's folder, which action.yml passes in."""
    action = yaml.safe_load((ROOT / "action.yml").read_text("utf-8"))
    assert action["runs"]["env"]["ROOFBOT_HOST_RUNNER_TEMP"] == "${{ runner.temp }}"
    pull = make_pull(tmp_path, {MPT: violating_copy()})
    fake_github.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    host = "/home/runner/work/_temp"
    run = run_action(tmp_path, pull, fake_github, ROOFBOT_HOST_RUNNER_TEMP=host)
    assert run.code == 1
    assert run.outputs["report-path"] == f"{host}/roofbot-report.json"
    assert (tmp_path / "roofbot-report.json").is_file()  # written where the container sees it
    assert run.outputs["ok"] == "false"


@pytest.mark.parametrize("case", ["usage", "configuration", "crash"])
def test_ok_is_false_on_every_error_path(
    tmp_path: Path, fake_github: FakeGitHub, case: str
) -> None:
    broken = {".roofbot.yml": "fail_on: [nonsense]\n"} if case == "configuration" else None
    pull = make_pull(tmp_path, {MPT: violating_copy()}, base_edit=broken)
    fake_github.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    extra: dict[str, str] = {}
    if case == "usage":
        extra["INPUT_FAIL-ON"] = "everything"
    elif case == "crash":  # RUNNER_TEMP is a file: writing the report raises
        (tmp_path / "not-a-folder").write_text("", "utf-8")
        extra["RUNNER_TEMP"] = str(tmp_path / "not-a-folder")
    run = run_action(tmp_path, pull, fake_github, crash=case == "crash", **extra)
    assert run.code == (1 if case == "crash" else 2), run.stdout
    assert run.outputs.get("ok") == "false", (run.outputs, run.stdout)


# ------------------------------------------------------------------ statuses, defaults, logins


def test_a_status_context_over_255_characters_is_clipped(fake_github: FakeGitHub) -> None:
    pull = fake_github.add_pull(5)
    context = "roofcheck/" + "release-" * 40  # a long base branch's name
    with GitHubClient(settings_for(fake_github)) as client:
        client.set_status(pull.head_sha, "pending", "checking", context=context)
        client.set_status(pull.head_sha, "success", "ok", context=context)
    contexts = [s["context"] for s in fake_github.statuses[pull.head_sha]]
    assert len(contexts) == 2 and contexts[0] == contexts[1]  # the final replaces the pending
    assert len(contexts[0]) == 255 and contexts[0].startswith("roofcheck/release-")


def test_the_plot_default_is_action_ymls(tmp_path: Path) -> None:
    """The `docker://` form reads no action.yml: the code's default must be the same."""
    from prkit import pull_event

    from roofbot.action.settings import settings_from_env

    action = yaml.safe_load((ROOT / "action.yml").read_text("utf-8"))
    default = action["inputs"]["plot"]["default"]
    event = tmp_path / "event.json"
    with FakeGitHub() as gh:
        pull = make_pull(tmp_path, {MPT: violating_copy()})
        event.write_text(json.dumps(pull_event(pull, gh)), "utf-8")
    env = {"GITHUB_EVENT_NAME": "pull_request_target", "GITHUB_EVENT_PATH": str(event),
           "GITHUB_WORKSPACE": str(pull.repo), "RUNNER_TEMP": str(tmp_path)}  # fmt: skip
    s = settings_from_env(env)
    assert s is not None
    assert (s.plot_dir is not None) == (default == "true")


def test_an_app_token_finds_its_own_sticky_comment() -> None:
    """A GitHub App's installation token starts with ghs_ like the Actions token, and writes
    as `<app>[bot]`: the comment an earlier run left is edited, not posted again."""
    with FakeGitHub(bot_login="roofcheck-app[bot]", bot_type="Bot") as gh:
        pull = gh.add_pull(3)
        old = gh.add_comment(3, "<!-- m -->\nold report", login="roofcheck-app[bot]",
                             user_type="Bot")  # fmt: skip
        with GitHubClient(settings_for(gh)) as client:
            client.set_status(pull.head_sha, "pending", "checking")
            assert client.sticky_login() == "roofcheck-app[bot]"
            assert client.upsert_sticky_comment(3, "<!-- m -->", "new report").id == old.id
        assert len(gh.comments_on(3)) == 1 and not gh.errors
        assert gh.count("GET", r"^/(user|app)$") == 0  # GitHub answers neither to it


# ------------------------------------------------------------------ the hour's budget


def test_the_fake_holds_the_actions_tokens_hourly_budget(fake_github: FakeGitHub) -> None:
    """1,000 requests an hour per repository for GITHUB_TOKEN; past it GitHub's primary limit
    until the hour resets, and the client sends nothing more."""
    pull = fake_github.add_pull(5)
    assert fake_github.rate_limit == 1000
    fake_github.rate_used = 999  # the hour's first 999 requests
    with GitHubClient(settings_for(fake_github)) as client:
        client.get_pull(5)  # the 1,000th
        assert fake_github.requests[-1].header("Authorization")
        with pytest.raises(GitHubRateLimited) as excinfo:
            client.get_pull(5)
        assert excinfo.value.primary and excinfo.value.status == 403
        assert 0 < excinfo.value.wait <= 3601
        with pytest.raises(GitHubRateLimited):
            client.set_status(pull.head_sha, "error", "not sent")
    assert fake_github.count() == 2
