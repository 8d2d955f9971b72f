"""roofbot.adapters.github against a real loopback GitHub (tests/github_server.py).

PyGithub talks HTTP to 127.0.0.1 exactly as it would to api.github.com; nothing is mocked or
monkeypatched. Request counts are read from the server's request log.
"""

from __future__ import annotations

import logging
import math
import subprocess
import sys
import time
import traceback
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from roofbot.adapters.github.client import GitHubClient
from roofbot.adapters.github.errors import (
    GitHubConfigError,
    GitHubError,
    GitHubFileTooLarge,
    GitHubForbidden,
    GitHubNotFound,
    GitHubRateLimited,
    GitHubTooLong,
    GitHubUnavailable,
)
from roofbot.adapters.github.models import MAX_COMMENT_CHARS, GitHubSettings

try:  # tests/ is a rootdir-style folder today; keep working if it becomes a package
    from github_server import FakeGitHub, FileState, fake_github_fixture
except ImportError:  # pragma: no cover
    from tests.github_server import FakeGitHub, FileState, fake_github_fixture

MARKER = "<!-- roofbot:sticky -->"
SECRET = "s3cr3t-roofbot-token-value"  # does not look like a GitHub token: only exact redaction

fake_github = fake_github_fixture()


def settings_for(gh: FakeGitHub, **overrides: object) -> GitHubSettings:
    values: dict[str, object] = {
        "api_url": gh.base_url,
        "token": gh.token,
        "repository": gh.full_name,
        "timeout": 2,
        "retries": 3,
        "backoff_factor": 0.01,
    }
    values.update(overrides)
    return GitHubSettings(**values)  # type: ignore[arg-type]


@pytest.fixture
def client(fake_github: FakeGitHub) -> Iterator[GitHubClient]:
    with GitHubClient(settings_for(fake_github)) as c:
        yield c


def routes(gh: FakeGitHub) -> list[str]:
    return [f"{r.method} {r.route}" for r in gh.requests]


# ------------------------------------------------------------------------ sticky comment


def test_sticky_comment_is_created_then_edited_in_place(
    fake_github: FakeGitHub, client: GitHubClient
) -> None:
    fake_github.add_pull(7)
    fake_github.add_comment(7, "LGTM, thanks!")

    first = client.upsert_sticky_comment(7, MARKER, "3 records checked, 0 violations")
    assert first.body == f"{MARKER}\n3 records checked, 0 violations"
    assert (first.author_login, first.author_type) == ("github-actions[bot]", "Bot")
    assert first.html_url.endswith(f"/pull/7#issuecomment-{first.id}")
    repo = f"/repos/{fake_github.full_name}"
    assert routes(fake_github) == [
        f"GET {repo}/issues/7/comments",
        f"POST {repo}/issues/7/comments",
    ]
    assert fake_github.requests[0].query == {"per_page": "100"}

    fake_github.clear_requests()
    second = client.upsert_sticky_comment(7, MARKER, f"{MARKER}\n4 records checked, 1 violation")
    assert second.id == first.id
    assert routes(fake_github) == [
        f"GET {repo}/issues/7/comments",
        f"PATCH {repo}/issues/comments/{first.id}",
    ]
    bodies = [c.body for c in fake_github.comments_on(7)]
    assert bodies == ["LGTM, thanks!", f"{MARKER}\n4 records checked, 1 violation"]

    # a fresh client (the next workflow run) finds the same comment
    with GitHubClient(settings_for(fake_github)) as next_run:
        found = next_run.find_sticky_comment(7, MARKER)
    assert found is not None and found.id == first.id


def test_unchanged_body_costs_one_request(fake_github: FakeGitHub, client: GitHubClient) -> None:
    fake_github.add_pull(7)
    client.upsert_sticky_comment(7, MARKER, "same")
    fake_github.clear_requests()
    client.upsert_sticky_comment(7, MARKER, "same")
    assert fake_github.count() == 1 and fake_github.count("GET", r"/issues/7/comments$") == 1


def test_a_human_quoting_the_marker_is_not_hijacked(
    fake_github: FakeGitHub, client: GitHubClient
) -> None:
    fake_github.add_pull(7)
    human = fake_github.add_comment(7, f"{MARKER}\nI copied the bot's marker", login="alice")
    quoted = fake_github.add_comment(7, f"> {MARKER}\n> old report\nwhy?", login="bob")
    other_bot = fake_github.add_comment(
        7, f"{MARKER}\nnot ours", login="renovate[bot]", user_type="Bot"
    )
    # only the bot's own login counts (github-actions[bot] unless configured), never "any Bot"
    assert client.find_sticky_comment(7, MARKER) is None
    found = client.find_sticky_comment(7, MARKER, bot_login="renovate[bot]")
    assert found is not None and found.id == other_bot.id
    with GitHubClient(settings_for(fake_github, bot_login="renovate[bot]")) as configured:
        assert configured.find_sticky_comment(7, MARKER) == found

    with GitHubClient(settings_for(fake_github, bot_login="github-actions[bot]")) as strict:
        created = strict.upsert_sticky_comment(7, MARKER, "report")
        assert created.id not in (human.id, quoted.id, other_bot.id)
        again = strict.upsert_sticky_comment(7, MARKER, "report v2")
    assert again.id == created.id
    assert fake_github.comments[human.id].body == f"{MARKER}\nI copied the bot's marker"
    assert fake_github.comments[other_bot.id].body == f"{MARKER}\nnot ours"
    assert len(fake_github.comments_on(7)) == 4


def test_comment_pagination_over_250_comments(
    fake_github: FakeGitHub, client: GitHubClient
) -> None:
    fake_github.add_pull(9)
    for i in range(250):
        fake_github.add_comment(9, f"comment {i}")

    assert client.find_sticky_comment(9, MARKER) is None
    pages = fake_github.matching("GET", r"/issues/9/comments$")
    assert len(pages) == math.ceil(250 / 100) == 3
    assert pages[0].path.startswith("/repos/")  # then the Link header's /repositories/{id} form
    assert [p.query.get("page") for p in pages] == [None, "2", "3"]
    assert all(p.query["per_page"] == "100" for p in pages)

    fake_github.clear_requests()
    created = client.upsert_sticky_comment(9, MARKER, "report")  # 3 pages + POST
    assert fake_github.count() == 4
    fake_github.clear_requests()
    assert client.upsert_sticky_comment(9, MARKER, "report v2").id == created.id
    assert fake_github.count("GET") == 3 and fake_github.count("PATCH") == 1
    assert len(fake_github.comments_on(9)) == 251


def test_file_pagination_over_3000_files(
    fake_github: FakeGitHub, client: GitHubClient, caplog: pytest.LogCaptureFixture
) -> None:
    fake_github.add_pull(11, files=3000)
    with caplog.at_level(logging.WARNING):
        files = client.list_pull_files(11)
    assert len(files) == 3000
    assert len({f.filename for f in files}) == 3000
    assert fake_github.count("GET", r"/pulls/11/files$") == math.ceil(3000 / 100) == 30
    assert fake_github.count() == 30  # no GET of the pull request itself
    assert "may be truncated" in caplog.text


def test_pull_files_carry_renames_and_removals(
    fake_github: FakeGitHub, client: GitHubClient
) -> None:
    fake_github.add_pull(
        3,
        files=[
            FileState("records/new.yaml", status="added"),
            FileState("records/b.yaml", status="renamed", previous_filename="records/a.yaml"),
            FileState("records/old.yaml", status="removed", patch=None),
        ],
    )
    files = {f.filename: f for f in client.list_pull_files(3)}
    assert files["records/b.yaml"].previous_filename == "records/a.yaml"
    assert files["records/new.yaml"].previous_filename is None
    assert files["records/old.yaml"].status == "removed"
    assert files["records/new.yaml"].sha == fake_github.pulls[3].files[0].sha
    assert fake_github.count() == 1


# ---------------------------------------------------------------------- request budgets


def test_request_counts(fake_github: FakeGitHub, client: GitHubClient) -> None:
    pull = fake_github.add_pull(5)
    client.upsert_sticky_comment(5, MARKER, "one")
    assert fake_github.count() == 2  # no comment yet: list + create
    fake_github.clear_requests()
    client.upsert_sticky_comment(5, MARKER, "two")
    assert fake_github.count() == 2  # list + patch
    fake_github.clear_requests()
    status = client.set_status(pull.head_sha, "success", "all good")
    assert routes(fake_github) == [f"POST /repos/{fake_github.full_name}/statuses/{pull.head_sha}"]
    assert status.context == "roofcheck" and status.state == "success"
    fake_github.clear_requests()
    info = client.get_pull(5)
    assert fake_github.count() == 1 and info.head_sha == pull.head_sha
    fake_github.clear_requests()
    reply = client.reply(5, "thanks")
    assert fake_github.count() == 1
    fake_github.clear_requests()
    client.react(reply.id, "+1")
    assert fake_github.count() == 1


def test_set_status_records_in_order_and_truncates_description(
    fake_github: FakeGitHub, client: GitHubClient
) -> None:
    sha = fake_github.add_pull(5).head_sha
    client.set_status(sha, "pending", "checking 12 records", target_url="https://example.com/run")
    long = "A100 decode throughput exceeds the HBM roofline by 3.2x " * 6
    client.set_status(sha, "failure", long)
    sent = [r.json for r in fake_github.matching("POST", r"/statuses/")]
    assert sent[0] == {
        "state": "pending",
        "description": "checking 12 records",
        "context": "roofcheck",
        "target_url": "https://example.com/run",
    }
    assert len(sent[1]["description"]) == 140 and sent[1]["description"].endswith("…")
    assert sent[1]["description"][:139] == long[:139]
    assert [s["state"] for s in fake_github.statuses[sha]] == ["pending", "failure"]
    exact = "x" * 140
    assert client.set_status(sha, "success", exact).description == exact
    with pytest.raises(ValueError):
        client.set_status(sha, "green", "x")  # type: ignore[arg-type]
    assert fake_github.count("POST") == 3


# ---------------------------------------------------------------------- retries & faults


def test_post_that_got_a_500_is_not_retried(fake_github: FakeGitHub, client: GitHubClient) -> None:
    sha = fake_github.add_pull(5).head_sha
    fake_github.fail("POST", r"/issues/5/comments$", 500)
    with pytest.raises(GitHubUnavailable) as excinfo:
        client.upsert_sticky_comment(5, MARKER, "report")
    assert excinfo.value.status == 500
    assert fake_github.count("POST") == 1

    fake_github.fail_server_error("POST", r"/statuses/", 502)
    with pytest.raises(GitHubUnavailable):
        client.set_status(sha, "success", "ok")
    assert fake_github.count("POST", r"/statuses/") == 1


def test_get_502_is_retried(fake_github: FakeGitHub, client: GitHubClient) -> None:
    fake_github.add_pull(5)
    fake_github.fail_server_error("GET", r"/issues/5/comments$", 502, times=1)
    client.upsert_sticky_comment(5, MARKER, "report")
    assert fake_github.count("GET") == 2 and fake_github.count("POST") == 1

    fake_github.clear_requests()
    fake_github.fail_server_error("GET", r"/pulls/5$", 503, times=None)
    with pytest.raises(GitHubUnavailable) as excinfo:
        client.get_pull(5)
    assert excinfo.value.status == 503
    assert fake_github.count("GET", r"/pulls/5$") == 1 + 3  # settings.retries


def test_patch_is_idempotent_and_retried(fake_github: FakeGitHub, client: GitHubClient) -> None:
    fake_github.add_pull(5)
    client.upsert_sticky_comment(5, MARKER, "v1")
    fake_github.fail("PATCH", r"/issues/comments/\d+$", 502, times=1)
    client.upsert_sticky_comment(5, MARKER, "v2")
    assert fake_github.count("PATCH") == 2
    assert [c.body for c in fake_github.comments_on(5)] == [f"{MARKER}\nv2"]


def test_read_only_fork_token_is_forbidden(fake_github: FakeGitHub, client: GitHubClient) -> None:
    pull = fake_github.add_pull(8, fork="contributor")
    info = client.get_pull(8)
    assert info.is_fork and info.head_repo_full_name == "contributor/llm-roofline-records"

    fake_github.read_only = True
    with pytest.raises(GitHubForbidden) as excinfo:
        client.upsert_sticky_comment(8, MARKER, "report")
    assert "Resource not accessible by integration" in str(excinfo.value)
    assert excinfo.value.status == 403 and not isinstance(excinfo.value, GitHubRateLimited)
    with pytest.raises(GitHubForbidden):
        client.set_status(pull.head_sha, "failure", "x")
    assert fake_github.count("POST") == 2  # a 403 is never retried

    fake_github.read_only = False
    fake_github.fail_integration_forbidden("POST", r"/reactions$")
    comment = fake_github.add_comment(8, "/roofbot recheck")
    with pytest.raises(GitHubForbidden):
        client.react(comment.id, "eyes")


def test_deleted_fork_is_a_fork(fake_github: FakeGitHub, client: GitHubClient) -> None:
    fake_github.add_pull(4, draft=True)
    fake_github.pulls[4].head_repo = None
    info = client.get_pull(4)
    assert info.head_repo_full_name is None and info.is_fork and info.draft


def test_comment_over_65536_chars_is_too_long(
    fake_github: FakeGitHub, client: GitHubClient
) -> None:
    fake_github.add_pull(5)
    with pytest.raises(GitHubTooLong) as excinfo:
        client.upsert_sticky_comment(5, MARKER, "x" * 70_000)
    assert excinfo.value.status == 422
    assert "Body is too long (maximum is 65536 characters)" in str(excinfo.value)
    assert fake_github.comments_on(5) == []

    comment = client.upsert_sticky_comment(5, MARKER, "fits")
    with pytest.raises(GitHubTooLong):
        client.upsert_sticky_comment(5, MARKER, "y" * 70_000)  # PATCH is held to it too
    assert fake_github.comments[comment.id].body == f"{MARKER}\nfits"
    limit = "z" * (MAX_COMMENT_CHARS - len(MARKER) - 1)
    assert len(client.upsert_sticky_comment(5, MARKER, limit).body) == MAX_COMMENT_CHARS


def test_primary_rate_limit_carries_the_reset_time(
    fake_github: FakeGitHub, client: GitHubClient
) -> None:
    fake_github.add_pull(5)
    fault = fake_github.fail_rate_limited("GET", r"/pulls/5$", reset_in=900)
    with pytest.raises(GitHubRateLimited) as excinfo:
        client.get_pull(5)
    expected = datetime.fromtimestamp(int(fault.headers["x-ratelimit-reset"]), UTC)
    assert excinfo.value.reset_at == expected
    assert excinfo.value.status == 403 and excinfo.value.retry_after is None
    assert fake_github.count() == 1  # not retried, not slept through


def test_secondary_rate_limit_is_not_slept_through(
    fake_github: FakeGitHub, client: GitHubClient
) -> None:
    fake_github.add_pull(5)
    fake_github.fail_rate_limited("GET", r"/comments$", status=429, secondary=True, retry_after=60)
    started = time.monotonic()
    with pytest.raises(GitHubRateLimited) as excinfo:
        client.find_sticky_comment(5, MARKER)
    assert time.monotonic() - started < 2
    assert excinfo.value.retry_after == 60 and excinfo.value.status == 429
    assert excinfo.value.reset_at is not None and excinfo.value.reset_at > datetime.now(UTC)
    assert fake_github.count() == 1


def test_a_hanging_server_times_out_within_bounds(fake_github: FakeGitHub) -> None:
    fake_github.add_pull(5)
    with GitHubClient(settings_for(fake_github, timeout=1)) as client:
        fake_github.hang("GET", r"/pulls/5$", 5, times=None)
        started = time.monotonic()
        with pytest.raises(GitHubUnavailable) as excinfo:
            client.get_pull(5)
        elapsed = time.monotonic() - started
        assert 1 <= elapsed < 3.5  # one retry of a timed-out GET, not three
        assert "timed out" in str(excinfo.value)
        assert fake_github.token is not None and fake_github.token not in repr(excinfo.value)
        assert fake_github.count("GET", r"/pulls/5$") == 2

        # a timed-out POST is not retried: GitHub may well have done it (here it did: the
        # fake server handles the request at once and only delays the answer)
        fake_github.hang("POST", r"/issues/5/comments$", 3)
        started = time.monotonic()
        with pytest.raises(GitHubUnavailable):
            client.reply(5, "hello")
        assert time.monotonic() - started < 2.5
        assert fake_github.count("POST") == 1
        assert [c.body for c in fake_github.comments_on(5)] == ["hello"]


def test_the_token_never_appears_in_errors(fake_github: FakeGitHub) -> None:
    fake_github.token = SECRET
    fake_github.add_pull(5)
    settings = settings_for(fake_github, token=SECRET, retries=0)
    assert SECRET not in repr(settings)
    faults = [
        lambda: fake_github.fail("GET", r"/pulls/5$", 500, body={"message": f"echo {SECRET}"}),
        lambda: fake_github.fail_integration_forbidden("GET", r"/pulls/5$", times=1),
        lambda: fake_github.fail_rate_limited("GET", r"/pulls/5$", hold=False),  # one answer
        lambda: fake_github.fail("GET", r"/pulls/5$", 502, body=f"<p>token {SECRET}</p>"),
    ]
    seen: list[GitHubError] = []
    for inject in faults:  # a client each: after a rate limit, a client sends nothing more
        inject()
        with GitHubClient(settings) as client, pytest.raises(GitHubError) as excinfo:
            client.get_pull(5)
        seen.append(excinfo.value)
    with GitHubClient(settings_for(fake_github, token="ghp_" + "A" * 36)) as wrong:
        with pytest.raises(GitHubForbidden) as excinfo:  # 401 Bad credentials
            wrong.get_pull(5)
        seen.append(excinfo.value)
    assert [type(e).__name__ for e in seen] == [
        "GitHubUnavailable",
        "GitHubForbidden",
        "GitHubRateLimited",
        "GitHubUnavailable",
        "GitHubForbidden",
    ]
    for error in seen:
        text = "".join(traceback.format_exception(error)) + repr(error) + str(vars(error))
        assert SECRET not in text and "A" * 36 not in text
    assert "***" in str(seen[0])


# ---------------------------------------------------------------------- permissions


def test_permission_from_the_recorded_payloads(
    fake_github: FakeGitHub, client: GitHubClient
) -> None:
    fake_github.set_permission_sample("jacquev6", "get-collaborator-permission")  # 2018 legacy
    fake_github.set_permission_sample("alecharp", "get-collaborator-permission.maintain")  # 2023
    fake_github.set_permission("maria", "maintain")  # documented: permission "write"
    fake_github.set_permission("tom", "triage")  # documented: permission "read"
    fake_github.set_permission("sec", "security-manager", permission="read")  # custom role
    fake_github.set_permission("bob", "read")
    assert "role_name" not in fake_github.permissions["jacquev6"]
    assert fake_github.permissions["maria"]["permission"] == "write"

    assert client.permission("jacquev6") == "admin"
    assert client.permission("alecharp") == "maintain"
    assert client.permission("maria") == "maintain"
    assert client.permission("tom") == "triage"
    assert client.permission("sec") == "read"
    assert client.permission("bob") == "read"
    assert client.permission("nobody") == "none"  # 404
    assert fake_github.count() == 7

    body = fake_github.templates["get-collaborator-permission.403"]
    fake_github.fail("GET", r"/collaborators/.+/permission$", 403, body=body)
    with pytest.raises(GitHubForbidden, match="Must have push access"):
        client.permission("jacquev6")


# ---------------------------------------------------------------------- contents


def test_get_file_at_and_blobs(fake_github: FakeGitHub, client: GitHubClient) -> None:
    record = b"model: llama-3-70b\ntokens_per_s: 41.2\n"
    sha = fake_github.add_file("records/h100/llama.yaml", record)
    fake_github.add_file("records/h100/llama.yaml", b"old\n", ref="deadbeef" * 5)
    assert client.get_file_at("records/h100/llama.yaml", "main") == record
    assert client.get_file_at("/records/h100/llama.yaml", "deadbeef" * 5) == b"old\n"
    assert client.get_file_at("records/missing.yaml", "main") is None
    assert client.get_file_at("records/h100", "main") is None  # a directory
    assert client.get_file_at("records/h100/llama.yaml", "no-such-branch") is None
    assert client.get_blob(sha) == record
    assert fake_github.count() == 6
    with pytest.raises(GitHubNotFound):
        client.get_blob("0" * 40)
    raw = fake_github.matching("GET", r"/git/blobs/")[0]
    assert "raw" in (raw.header("Accept") or "")
    assert raw.header("Authorization") == f"token {fake_github.token}"


def test_files_between_1_and_5_mb_come_through_the_blob(
    fake_github: FakeGitHub, client: GitHubClient
) -> None:
    big = bytes(range(256)) * (6 * 1024)  # 1.5 MB: the contents API sends no content
    fake_github.add_file("records/big.json", big)
    assert client.get_file_at("records/big.json", "main") == big
    assert [r.route.split("/")[-2] for r in fake_github.requests] == ["records", "blobs"]


def test_size_cap_never_loads_a_50_mb_blob(fake_github: FakeGitHub, client: GitHubClient) -> None:
    huge = bytes(50 * 1024 * 1024)
    sha = fake_github.add_file("records/huge.bin", huge)
    with pytest.raises(GitHubFileTooLarge) as excinfo:
        client.get_file_at("records/huge.bin", "main")  # refused from the JSON `size`
    assert excinfo.value.size == len(huge) and excinfo.value.limit == 5 * 1024 * 1024
    assert fake_github.count("GET", r"/git/blobs/") == 0

    started = time.monotonic()
    with pytest.raises(GitHubFileTooLarge):
        client.get_blob(sha)  # refused from Content-Length
    fake_github.raw_chunked = True
    with pytest.raises(GitHubFileTooLarge):
        client.get_blob(sha)  # no Content-Length: stopped while streaming
    assert time.monotonic() - started < 3


# ---------------------------------------------------------------------- misc operations


def test_reply_react_and_login(fake_github: FakeGitHub, client: GitHubClient) -> None:
    fake_github.add_pull(6)
    command = fake_github.add_comment(6, "/roofbot explain", login="alice")
    client.react(command.id, "eyes")
    client.react(command.id, "eyes")  # GitHub answers 200 for an existing reaction
    assert [r.content for r in fake_github.reactions] == ["eyes"]
    with pytest.raises(ValueError):
        client.react(command.id, "thumbsup")  # type: ignore[arg-type]
    answer = client.reply(6, "Here is why...")
    assert answer.author_login == "github-actions[bot]"
    assert [c.body for c in fake_github.comments_on(6)] == ["/roofbot explain", "Here is why..."]
    assert client.authenticated_login() is None  # an installation token: GitHub's 403
    assert fake_github.count() == 4


def test_enterprise_base_url_with_a_path_prefix() -> None:
    with FakeGitHub(prefix="/api/v3") as ghes:
        ghes.add_pull(2, files=150)
        with GitHubClient(settings_for(ghes)) as client:
            assert client.settings.api_url.endswith("/api/v3")
            assert len(client.list_pull_files(2)) == 150
        assert all(r.path.startswith("/api/v3/") for r in ghes.requests)
        assert ghes.count() == 2 and not ghes.errors


# ---------------------------------------------------------------------- settings


def test_settings_from_the_actions_environment() -> None:
    env = {
        "GITHUB_API_URL": "https://ghe.example.com/api/v3/",
        "GITHUB_REPOSITORY": "octo-org/records",
        "GITHUB_TOKEN": "from-env",
        "INPUT_GITHUB-TOKEN": " from-input\n",
    }
    settings = GitHubSettings.from_env(env)
    assert settings.token == "from-input"  # the action input wins, whitespace stripped
    assert settings.api_url == "https://ghe.example.com/api/v3"
    assert (settings.timeout, settings.retries) == (10, 3)
    assert "from-input" not in repr(settings)
    del env["INPUT_GITHUB-TOKEN"]
    assert GitHubSettings.from_env(env).token == "from-env"
    assert GitHubSettings.from_env({**env, "GITHUB_API_URL": ""}).api_url == (
        "https://api.github.com"
    )
    with pytest.raises(GitHubConfigError, match="token"):
        GitHubSettings.from_env({"GITHUB_REPOSITORY": "o/r", "INPUT_GITHUB-TOKEN": ""})
    with pytest.raises(GitHubConfigError, match="GITHUB_REPOSITORY"):
        GitHubSettings.from_env({"GITHUB_TOKEN": "t"})
    with pytest.raises(GitHubConfigError):
        GitHubSettings(token="t", repository="not-a-repo")


def test_importing_the_adapter_does_not_import_pygithub() -> None:
    code = (
        "import sys\n"
        "from roofbot.adapters.github.client import GitHubClient\n"
        "from roofbot.adapters.github.models import GitHubSettings\n"
        "GitHubClient(GitHubSettings(token='t', repository='o/r'))\n"
        "bad = {'github', 'requests', 'urllib3'} & set(sys.modules)\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=30)


def test_fallback_bodies_work_without_the_shared_samples(tmp_path: Path) -> None:
    with FakeGitHub(samples_dir=tmp_path) as bare:  # no tmp_path/api: tests/github_server_data
        assert bare.samples_source.name == "github_server_data"
        pull = bare.add_pull(1, files=3, fork="someone")
        bare.set_permission_sample("alecharp", "get-collaborator-permission.maintain")
        with GitHubClient(settings_for(bare)) as client:
            assert client.get_pull(1).is_fork
            assert len(client.list_pull_files(1)) == 3
            created = client.upsert_sticky_comment(1, MARKER, "report")
            assert client.upsert_sticky_comment(1, MARKER, "v2").id == created.id
            assert client.set_status(pull.head_sha, "success", "ok").state == "success"
            assert client.permission("alecharp") == "maintain"
        assert not bare.errors


def test_the_server_itself_answers_like_github(fake_github: FakeGitHub) -> None:
    """The endpoints the adapter does not read, and the HTTP details, checked directly."""
    import json
    import urllib.error
    import urllib.request

    def get(path: str, **headers: str) -> tuple[int, dict[str, str], object]:
        request = urllib.request.Request(
            fake_github.base_url + path,
            headers={
                "Authorization": f"token {fake_github.token}",
                "X-GitHub-Api-Version": "2022-11-28",
                **headers,
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=5) as response:
                raw = response.read()
                return response.status, dict(response.headers), json.loads(raw) if raw else None
        except urllib.error.HTTPError as error:
            raw = error.read()
            return error.code, dict(error.headers), json.loads(raw) if raw else None

    repo = f"/repos/{fake_github.full_name}"
    pull = fake_github.add_pull(12)
    fake_github.add_issue(13)
    with GitHubClient(settings_for(fake_github)) as client:
        client.set_status(pull.head_sha, "pending", "running", context="roofcheck")
        client.set_status(pull.head_sha, "failure", "2 violations", context="roofcheck")
        client.set_status(pull.head_sha, "success", "ok", context="lint")
        comment = client.reply(12, "hi")

    status, headers, body = get(f"{repo}/commits/{pull.head_sha}/status")
    assert status == 200 and isinstance(body, dict)
    assert (body["state"], body["total_count"], body["sha"]) == ("failure", 2, pull.head_sha)
    assert headers["Content-Type"] == "application/json; charset=utf-8"
    assert int(headers["X-RateLimit-Remaining"]) < 5000 and "X-RateLimit-Reset" in headers
    status, _, body = get(f"{repo}/issues/12")
    assert status == 200 and isinstance(body, dict) and "pull_request" in body
    assert body["pull_request"]["url"] == f"{fake_github.base_url}{repo}/pulls/12"
    status, _, body = get(f"{repo}/issues/13")
    assert status == 200 and isinstance(body, dict) and "pull_request" not in body
    status, headers, body = get(f"{repo}/issues/comments/{comment.id}")
    assert status == 200 and isinstance(body, dict) and body["user"]["type"] == "Bot"
    assert (
        get(f"{repo}/issues/comments/{comment.id}", **{"If-None-Match": headers["ETag"]})[0] == 304
    )
    status, _, body = get(repo)
    assert status == 200 and isinstance(body, dict) and body["full_name"] == fake_github.full_name
    assert body["owner"]["login"] == fake_github.owner
    assert get(f"{repo}/pulls/999")[0] == 404
    assert get("/repos/someone/else")[0] == 404
    assert get(repo, Authorization="token wrong")[0] == 401
    fake_github.add_pull(14, files=5)
    status, headers, body = get(f"{repo}/pulls/14/files?per_page=2&page=2")
    assert isinstance(body, list) and len(body) == 2
    rels = [part.split('rel="')[1].rstrip('"') for part in headers["Link"].split(", ")]
    assert rels == ["prev", "next", "last", "first"]
    assert (
        f"/repositories/{fake_github.repo_id}/pulls/14/files?per_page=2&page=3" in headers["Link"]
    )


def test_a_personal_token_finds_its_own_comment_by_its_login() -> None:
    token = "ghp_" + "p" * 36
    with FakeGitHub(token=token, bot_login="release-robot", bot_type="User") as gh:
        gh.add_pull(3)
        gh.add_comment(3, f"{MARKER}\nold report by the Actions bot", login="github-actions[bot]",
                       user_type="Bot")  # fmt: skip
        with GitHubClient(settings_for(gh, token=token)) as client:
            created = client.upsert_sticky_comment(3, MARKER, "report")
            assert created.author_login == "release-robot"
            assert client.upsert_sticky_comment(3, MARKER, "v2").id == created.id
        assert gh.count("GET", r"^/user$") == 1  # asked once, then remembered
        assert not gh.errors


def test_the_bot_login_comes_from_the_environment() -> None:
    env = {"GITHUB_TOKEN": "t", "GITHUB_REPOSITORY": "o/r"}
    assert GitHubSettings.from_env(env).bot_login is None  # github-actions[bot] at use
    app = GitHubSettings.from_env({**env, "INPUT_BOT-LOGIN": "roofbot-app[bot]"})
    assert app.bot_login == "roofbot-app[bot]"
    with pytest.raises(GitHubConfigError):
        GitHubSettings.from_env({**env, "INPUT_BOT-LOGIN": "not a login"})
    assert GitHubSettings.from_env({**env, "ROOFBOT_API_TIMEOUT": "3"}).timeout == 3
    with GitHubClient(GitHubSettings.from_env(env)) as client:
        assert client.sticky_login() == "github-actions[bot]"  # no request for that
