"""Where the loopback GitHub once differed from github.com, and roofbot with it: the API
version header, the rate limits an Actions token meets, the review's life over many pushes,
the bot's login, the status context's length. Each test runs the adapter (or the action's
code) against tests/github_server.py, which holds these rules as GitHub does."""

from __future__ import annotations

import re
import tomllib
import urllib.error
import urllib.request
from pathlib import Path

from github_server import FakeGitHub, fake_github_fixture
from test_github_api import settings_for

from roofbot.adapters.github.client import GitHubClient

ROOT = Path(__file__).resolve().parents[1]
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
