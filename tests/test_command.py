"""`/roofcheck` from a pull-request comment: the pure decisions (which comments are commands,
who may run them), then `roofbot pr` end to end on real issue_comment payloads (on a pull
request, on a plain issue, an edited one, the 2017 payload without author_association, a
comment by the fork author of the PR in the same sample set) against the loopback GitHub."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from github_server import FakeGitHub
from prkit import (
    MPT,
    PR,
    Pull,
    comment_event,
    drop_head,
    git,
    make_pull,
    run_roofbot,
    sample,
    violating_copy,
)

from roofbot.action.command_rules import (
    HELP,
    NOT_ALLOWED,
    REPLY_MARKER,
    UNKNOWN,
    Ignored,
    Kind,
    Request,
    authorize,
    parse_command,
    read_event,
    triage,
)
from roofbot.render.markdown.context import MARKER

STICKY = MARKER


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server
    assert not server.errors, server.errors


# ------------------------------------------------------------------ pure decisions


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        ("/roofcheck", Kind.RERUN),
        ("/roofcheck\r\nplease", Kind.RERUN),
        ("  /roofcheck  ", Kind.RERUN),
        ("/ROOFCHECK", Kind.RERUN),
        ("\ufeff/roofcheck", Kind.RERUN),
        ("/roofcheck all", Kind.ALL),
        ("/roofcheck ALL\nthe whole corpus", Kind.ALL),
        ("/roofcheck help", Kind.HELP),
        ("/roofcheck everything now", Kind.UNKNOWN),
        ("/roofcheck <script>", Kind.UNKNOWN),
    ],
)
def test_commands_are_read_from_the_first_line(body: str, kind: Kind) -> None:
    command = parse_command(body)
    assert command is not None and command.kind is kind


@pytest.mark.parametrize(
    "body",
    [
        "",
        "LGTM",
        "> /roofcheck",
        "please /roofcheck",
        "/roofchecks",
        "thanks\n/roofcheck",
        "`/roofcheck`",
    ],
)
def test_other_comments_are_not_commands(body: str) -> None:
    assert parse_command(body) is None


def _event(**changes: Any) -> Any:
    payload = sample("issue_comment.created.json")
    payload["comment"]["body"] = "/roofcheck"
    for key, value in changes.items():
        target, _, field = key.partition("__")
        if field:
            payload[target][field] = value
        else:
            payload[target] = value
    return read_event(payload)


def test_triage_ignores_edits_plain_issues_and_bots() -> None:
    assert isinstance(triage(_event()), Request)
    assert isinstance(triage(_event(action="edited")), Ignored)
    assert isinstance(triage(_event(action="deleted")), Ignored)
    plain = read_event({**sample("issue_comment.created.on-issue.json"),
                        "comment": {**sample("issue_comment.created.on-issue.json")["comment"],
                                    "body": "/roofcheck"}})  # fmt: skip
    assert isinstance(triage(plain), Ignored) and "not a pull request" in triage(plain).reason  # type: ignore[union-attr]
    bot_user = {"login": "renovate[bot]", "type": "Bot", "id": 1}
    assert isinstance(triage(_event(comment__user=bot_user)), Ignored)
    spoof = {"login": "someone[bot]", "type": "User", "id": 2}  # a login can't end in [bot]
    assert isinstance(triage(_event(comment__user=spoof)), Ignored)
    app = {"id": 1, "slug": "some-app"}
    assert isinstance(triage(_event(comment__performed_via_github_app=app)), Ignored)
    assert isinstance(triage(_event(comment__body="LGTM")), Ignored)


def test_authorization_fast_path_and_permission() -> None:
    def never() -> str:
        raise AssertionError("the association alone decides")

    assert authorize("OWNER", never).allowed  # the only fast path
    for level, allowed in [("admin", True), ("maintain", True), ("write", True),
                           ("triage", False), ("read", False), ("none", False)]:  # fmt: skip
        for association in ("MEMBER", "COLLABORATOR", "CONTRIBUTOR", "FIRST_TIME_CONTRIBUTOR",
                            "NONE", None):  # fmt: skip
            result = authorize(association, lambda level=level: level)  # type: ignore[misc]
            assert result.allowed is allowed, (association, level)
            assert result.via == f"permission {level}"


def test_replies_are_fixed_text_without_mentions() -> None:
    for text in (HELP, UNKNOWN, NOT_ALLOWED):
        assert text.startswith(REPLY_MARKER) and not text.startswith(STICKY)
        assert "@" not in text
        assert not text.splitlines()[0].startswith("/roofcheck")  # never a command itself
    assert "write, maintain or admin" in NOT_ALLOWED


# ------------------------------------------------------------------ end to end


def _setup(
    tmp: Path, gh: FakeGitHub, *, login: str = "zhouzhuojie", association: str = "OWNER"
) -> tuple[Pull, int]:
    pull = make_pull(tmp, {MPT: violating_copy()})
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    command = gh.add_comment(PR, "/roofcheck", login=login, author_association=association)
    return pull, command.id


def _comment(tmp: Path, gh: FakeGitHub, pull: Pull, payload: dict[str, Any], **env: str) -> Any:
    return run_roofbot(tmp, pull.repo, gh, "issue_comment", payload, **env)


def _reactions(gh: FakeGitHub, comment_id: int) -> list[str]:
    return [r.content for r in gh.reactions if r.comment_id == comment_id]


def _bot_comments(gh: FakeGitHub, marker: str) -> list[Any]:
    return [c for c in gh.comments_on(PR) if c.user_login == gh.bot_login and
            c.body.startswith(marker)]  # fmt: skip


def test_owner_reruns_the_check_on_the_current_head(tmp_path: Path, gh: FakeGitHub) -> None:
    pull, cid = _setup(tmp_path, gh)
    run = _comment(tmp_path, gh, pull, comment_event(gh, "/roofcheck", comment_id=cid))
    assert run.code == 1, run.stdout  # the PR has a violation
    assert [s["state"] for s in gh.statuses[pull.head]] == ["pending", "failure"]
    assert gh.statuses[pull.head][-1]["target_url"] == (
        f"https://github.com/{gh.full_name}/actions/runs/4242"
    )
    sticky = _bot_comments(gh, STICKY)
    assert len(sticky) == 1 and "135%" in sticky[0].body
    assert _reactions(gh, cid) == ["eyes", "rocket"]
    assert gh.count("GET", rf"/pulls/{PR}$") == 1  # the head SHA comes from the API
    assert gh.count("GET", r"/collaborators/") == 0  # OWNER: no permission lookup
    assert "author association OWNER" in run.stdout

    # a second /roofcheck updates the same comment, and the statuses follow
    again = gh.add_comment(PR, "/roofcheck", login="zhouzhuojie", author_association="OWNER")
    _comment(tmp_path, gh, pull, comment_event(gh, "/roofcheck", comment_id=again.id))
    assert [c.id for c in _bot_comments(gh, STICKY)] == [sticky[0].id]
    assert [s["state"] for s in gh.statuses[pull.head]] == ["pending", "failure"] * 2
    assert _reactions(gh, again.id) == ["eyes", "rocket"]


def test_the_head_is_read_from_the_api_not_the_event(tmp_path: Path, gh: FakeGitHub) -> None:
    pull, cid = _setup(tmp_path, gh)
    # the PR moved on after the event: a new head (back to the measured 57.6 tok/s, a pass)
    git(pull.repo, "checkout", "-q", "pr")
    (pull.repo / MPT).write_text(violating_copy(57.6), "utf-8")
    git(pull.repo, "commit", "-qam", "fix")
    fixed = Pull(pull.repo, pull.base, git(pull.repo, "rev-parse", "HEAD"))
    git(pull.repo, "checkout", "-q", "main")
    gh.pulls[PR].head_sha = fixed.head
    run = _comment(tmp_path, gh, pull, comment_event(gh, "/roofcheck", comment_id=cid))
    assert run.code == 0, run.stdout
    assert pull.head not in gh.statuses
    assert [s["state"] for s in gh.statuses[fixed.head]] == ["pending", "success"]


def test_a_fork_author_gets_one_polite_reply_and_nothing_runs(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    # the sample comment's PR (#31) came from zzj-bot's fork, author_association NONE
    author = sample("pull_request.opened.with-installation.json")["pull_request"]
    pull, cid = _setup(tmp_path, gh, login=author["user"]["login"],
                       association=author["author_association"])  # fmt: skip
    payload = comment_event(gh, "/roofcheck", comment_id=cid)
    payload["comment"]["user"] = author["user"]
    payload["comment"]["author_association"] = author["author_association"]
    run = _comment(tmp_path, gh, pull, payload)
    assert run.code == 0
    replies = _bot_comments(gh, REPLY_MARKER)
    assert [c.body.startswith(NOT_ALLOWED) for c in replies] == [True]
    assert pull.head not in gh.statuses and _bot_comments(gh, STICKY) == []
    assert _reactions(gh, cid) == []
    assert gh.count("GET", r"/collaborators/zzj-bot/permission$") == 1
    assert gh.count("GET", r"/pulls/") == 0
    assert "not run: permission none" in run.stdout


@pytest.mark.parametrize(
    ("setup", "runs"),
    [
        (lambda gh: gh.set_permission_sample("l2succes", "get-collaborator-permission"), True),
        (
            lambda gh: gh.set_permission_sample("l2succes", "get-collaborator-permission.maintain"),
            True,
        ),
        (lambda gh: gh.set_permission("l2succes", "write"), True),
        (lambda gh: gh.set_permission("l2succes", "maintain", permission="write"), True),
        (lambda gh: gh.set_permission("l2succes", "triage"), False),
        (lambda gh: gh.set_permission("l2succes", "read"), False),
    ],
    ids=[
        "legacy-admin-2018",
        "maintain-2023",
        "write",
        "role-maintain-legacy-write",
        "triage",
        "read",
    ],
)
def test_without_an_association_the_permission_decides(
    tmp_path: Path, gh: FakeGitHub, setup: Any, runs: bool
) -> None:
    pull, cid = _setup(tmp_path, gh, login="l2succes", association="CONTRIBUTOR")
    setup(gh)
    payload = comment_event(gh, "/roofcheck", name="issue_comment.created.on-pull-2017.json",
                            comment_id=cid)  # fmt: skip
    assert "author_association" not in payload["comment"]
    run = _comment(tmp_path, gh, pull, payload)
    assert gh.count("GET", r"/collaborators/l2succes/permission$") == 1
    if runs:
        assert [s["state"] for s in gh.statuses[pull.head]] == ["pending", "failure"]
        assert _reactions(gh, cid) == ["eyes", "rocket"]
        assert run.code == 1
    else:
        assert pull.head not in gh.statuses
        replies = [c.body for c in _bot_comments(gh, REPLY_MARKER)]
        assert len(replies) == 1 and replies[0].startswith(NOT_ALLOWED)
        assert run.code == 0


@pytest.mark.parametrize(
    ("name", "body", "change"),
    [
        ("issue_comment.created.on-issue.json", "/roofcheck", None),
        ("issue_comment.edited.on-issue.json", "/roofcheck", None),
        ("issue_comment.created.json", "/roofcheck", {"action": "edited"}),
        (
            "issue_comment.created.json",
            "/roofcheck",
            {"comment.user": {"login": "github-actions[bot]", "type": "Bot", "id": 41898282}},
        ),
        ("issue_comment.created.json", "test a new comment", None),
        ("issue_comment.created.json", "> /roofcheck\nquoted", None),
    ],
    ids=["plain-issue", "edited-issue", "edited-pr", "bot", "not-a-command", "quoted"],
)
def test_ignored_comments_make_no_request(
    tmp_path: Path, gh: FakeGitHub, name: str, body: str, change: dict[str, Any] | None
) -> None:
    pull, cid = _setup(tmp_path, gh)
    payload = comment_event(gh, body, name=name, comment_id=cid)
    for key, value in (change or {}).items():
        if key == "comment.user":
            payload["comment"]["user"] = value
        else:
            payload[key] = value
    run = _comment(tmp_path, gh, pull, payload)
    assert run.code == 0 and "ignored" in run.stdout
    assert gh.requests == []


def test_help_and_unknown_arguments_reply_without_running(tmp_path: Path, gh: FakeGitHub) -> None:
    pull, cid = _setup(tmp_path, gh, login="stranger", association="NONE")
    _comment(tmp_path, gh, pull, comment_event(gh, "/roofcheck help", comment_id=cid))
    evil = "/roofcheck @everyone <!-- roofbot:roofcheck --> {{ 7*7 }}"
    _comment(tmp_path, gh, pull, comment_event(gh, evil, comment_id=cid))
    assert [c.body for c in _bot_comments(gh, REPLY_MARKER)] == [HELP, UNKNOWN]
    assert pull.head not in gh.statuses
    assert gh.count("GET", r"/collaborators/") == 0 and gh.count("GET", r"/pulls/") == 0


def test_roofcheck_all_sweeps_the_corpus(tmp_path: Path, gh: FakeGitHub) -> None:
    pull, cid = _setup(tmp_path, gh)
    run = _comment(tmp_path, gh, pull, comment_event(gh, "/roofcheck all", comment_id=cid))
    body = _bot_comments(gh, STICKY)[0].body
    assert "roofcheck (all records)" in body
    report = json.loads(Path(run.outputs["report-path"]).read_text("utf-8"))
    every = sorted(p.name for p in (pull.repo / "data" / "benchmarks").glob("*.json"))
    assert sorted(Path(r["path"]).name for r in report["records"]) == every
    final = gh.statuses[pull.head][-1]
    assert final["state"] == "failure" and final["description"].startswith("all records:")
    assert gh.statuses[pull.head][0]["description"] == "roofbot is checking every record"
    assert _reactions(gh, cid) == ["eyes", "rocket"]


def test_api_mode_when_the_head_was_not_fetched(tmp_path: Path, gh: FakeGitHub) -> None:
    from github_server import FileState

    pull, cid = _setup(tmp_path, gh)
    drop_head(pull)  # API mode: the base with its history, not the head
    gh.set_files(PR, [FileState(MPT)])
    gh.add_file(MPT, violating_copy(57.6).encode(), ref=pull.base)  # the base's record
    gh.add_file(MPT, violating_copy().encode(), ref=pull.head)
    run = _comment(tmp_path, gh, pull, comment_event(gh, "/roofcheck", comment_id=cid))
    assert "changed files from api: 1" in run.stdout
    assert [s["state"] for s in gh.statuses[pull.head]] == ["pending", "failure"]
    assert "135%" in _bot_comments(gh, STICKY)[0].body


def test_github_failing_is_confused_and_never_pending(tmp_path: Path, gh: FakeGitHub) -> None:
    pull, cid = _setup(tmp_path, gh)
    gh.fail_server_error("GET", rf"/pulls/{PR}$", 503, times=None)
    run = _comment(tmp_path, gh, pull, comment_event(gh, "/roofcheck", comment_id=cid),
                   ROOFBOT_API_TIMEOUT="2")  # fmt: skip
    assert run.code == 1 and "could not read pull request" in run.stdout
    assert _reactions(gh, cid) == ["eyes", "confused"]
    assert pull.head not in gh.statuses  # the head was never learnt: no status at all

    gh.faults.clear()
    gh.fail("GET", r"/collaborators/", 403, times=None,
            body=json.loads(Path(sample_api("get-collaborator-permission.403")).read_text()))  # fmt: skip
    other = gh.add_comment(PR, "/roofcheck", login="l2succes", author_association="CONTRIBUTOR")
    payload = comment_event(gh, "/roofcheck", comment_id=other.id)
    payload["comment"]["user"]["login"] = "l2succes"
    payload["comment"]["author_association"] = "CONTRIBUTOR"
    run = _comment(tmp_path, gh, pull, payload)
    assert run.code == 1 and "could not look up the permission" in run.stdout
    assert _reactions(gh, other.id) == ["confused"]
    assert pull.head not in gh.statuses and _bot_comments(gh, REPLY_MARKER) == []


def sample_api(name: str) -> Path:
    from github_server import FALLBACK_DIR, SAMPLES_DIR

    path = SAMPLES_DIR / "api" / f"{name}.json"
    return path if path.is_file() else FALLBACK_DIR / f"{name}.json"


def test_a_crash_is_confused_and_sets_an_error_status(tmp_path: Path, gh: FakeGitHub) -> None:
    pull, cid = _setup(tmp_path, gh)
    # RUNNER_TEMP is a file: writing the report raises after the check (a broken template no
    # longer crashes: it falls back to the built-in one)
    (tmp_path / "not-a-folder").write_text("", "utf-8")
    run = run_roofbot(tmp_path, pull.repo, gh, "issue_comment",
                      comment_event(gh, "/roofcheck", comment_id=cid), crash=True,
                      RUNNER_TEMP=str(tmp_path / "not-a-folder"))  # fmt: skip
    assert run.code == 1
    assert [s["state"] for s in gh.statuses[pull.head]] == ["pending", "error"]
    assert _reactions(gh, cid) == ["eyes", "confused"]


def test_dry_run_makes_no_request(tmp_path: Path, gh: FakeGitHub) -> None:
    pull, cid = _setup(tmp_path, gh)
    run = run_roofbot(tmp_path, pull.repo, gh, "issue_comment",
                      comment_event(gh, "/roofcheck", comment_id=cid), "--dry-run")  # fmt: skip
    assert run.code == 0 and "dry run" in run.stdout and gh.requests == []


def test_a_rerun_updates_the_comment_of_the_push_run(tmp_path: Path, gh: FakeGitHub) -> None:
    from prkit import run_action

    pull, cid = _setup(tmp_path, gh)
    run_action(tmp_path, pull, gh)  # the pull_request_target run of the push
    (first,) = _bot_comments(gh, STICKY)
    run = _comment(tmp_path, gh, pull, comment_event(gh, "/roofcheck all", comment_id=cid))
    (again,) = _bot_comments(gh, STICKY)
    assert again.id == first.id and "roofcheck (all records)" in again.body
    assert [s["state"] for s in gh.statuses[pull.head]] == ["pending", "failure"] * 2
    assert run.code == 1


def test_no_token_is_a_usage_error(tmp_path: Path, gh: FakeGitHub) -> None:
    pull, cid = _setup(tmp_path, gh)
    run = _comment(tmp_path, gh, pull, comment_event(gh, "/roofcheck", comment_id=cid),
                   GITHUB_TOKEN="")  # fmt: skip
    assert run.code == 2 and "no GitHub token" in run.stdout and gh.requests == []


# ------------------------------------------------------------------ issue 19, section 4


@pytest.mark.parametrize(("association", "role"), [("MEMBER", "read"), ("COLLABORATOR", "triage")])
def test_a_member_or_collaborator_without_write_can_not_rerun(
    tmp_path: Path, gh: FakeGitHub, association: str, role: str
) -> None:
    pull, cid = _setup(tmp_path, gh, login="reader", association=association)
    gh.set_permission("reader", role)
    payload = comment_event(gh, "/roofcheck all", comment_id=cid)
    payload["comment"]["user"]["login"] = "reader"
    payload["comment"]["author_association"] = association
    run = _comment(tmp_path, gh, pull, payload)
    assert gh.count("GET", r"/collaborators/reader/permission$") == 1
    assert f"not run: permission {role}" in run.stdout
    replies = [c.body for c in _bot_comments(gh, REPLY_MARKER)]
    assert len(replies) == 1 and replies[0].startswith(NOT_ALLOWED)
    # their job ran in the PR's concurrency group, where it may have replaced the queued check
    # of a new head: the head is checked as a push checks it (not swept, nothing approved)
    assert run.code == 1 and "replaced a queued check" in run.stdout
    assert [s["state"] for s in gh.statuses[pull.head]] == ["pending", "failure"]
    assert not gh.statuses[pull.head][-1]["description"].startswith("all records")
    assert _reactions(gh, cid) == []


def test_a_stranger_gets_one_reply_per_pull_request(tmp_path: Path, gh: FakeGitHub) -> None:
    pull, _ = _setup(tmp_path, gh, login="stranger", association="NONE")
    for _ in range(3):
        again = gh.add_comment(PR, "/roofcheck", login="stranger", author_association="NONE")
        payload = comment_event(gh, "/roofcheck", comment_id=again.id)
        payload["comment"]["user"]["login"] = "stranger"
        payload["comment"]["author_association"] = "NONE"
        run = _comment(tmp_path, gh, pull, payload)
        assert run.code == 0
    replies = _bot_comments(gh, REPLY_MARKER)
    assert len(replies) == 1 and "@" not in replies[0].body and "stranger" not in replies[0].body
    assert "already answered" in run.stdout
    # another stranger still gets their one reply
    other = gh.add_comment(PR, "/roofcheck", login="someone-else", author_association="NONE")
    payload = comment_event(gh, "/roofcheck", comment_id=other.id)
    payload["comment"]["user"]["login"] = "someone-else"
    payload["comment"]["author_association"] = "NONE"
    _comment(tmp_path, gh, pull, payload)
    assert len(_bot_comments(gh, REPLY_MARKER)) == 2
    assert pull.head not in gh.statuses
