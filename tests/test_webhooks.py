"""The webhook payloads roofbot reads, held to GitHub's published shapes: every payload the
tests use validates against npm @octokit/webhooks-schemas, and the event parsing runs over
every `pull_request`, `issue_comment` and `merge_group` example of npm
@octokit/webhooks-examples. Both packages are installed into the gitignored build/ folder
(.ci/run does it; by hand: `npm install --no-save --prefix build/octokit
@octokit/webhooks-schemas@7.6.1 @octokit/webhooks-examples@7.6.1`); without them these tests
skip and say so."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest
from github_server import FakeGitHub
from prkit import SAMPLES, Pull, comment_event, pull_event

from roofbot.action.command_rules import read_event, triage
from roofbot.action.event import PullEvent, parse_event

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ROOT / "build" / "octokit" / "node_modules" / "@octokit"
SCHEMA = PACKAGES / "webhooks-schemas" / "schema.json"
EXAMPLES = PACKAGES / "webhooks-examples" / "api.github.com" / "index.json"
EVENTS = ("pull_request", "issue_comment", "merge_group")
#: Recordings made before GitHub added fields the schemas now require (`reactions`,
#: `topics`, `visibility`, `custom_properties`, ...): every field they have must still have
#: the schema's type and value; only a field added since may be missing.
OLDER_SHAPES = {
    "issue_comment.created.json",
    "issue_comment.created.on-pull-2017.json",
    "pull_request.opened.with-installation.json",
    "pull_request.synchronize.with-installation.json",
    "prkit.comment_event",  # built from issue_comment.created.json
}


def _need(path: Path) -> Path:
    if not path.is_file():
        pytest.skip(f"{path.relative_to(ROOT)} is missing: .ci/run installs it with npm "
                    "(npm install --no-save --prefix build/octokit @octokit/webhooks-schemas "
                    "@octokit/webhooks-examples)")  # fmt: skip
    return path


@functools.cache
def _validator(event: str) -> Any:
    from jsonschema import Draft7Validator

    schema = json.loads(_need(SCHEMA).read_text("utf-8"))
    schema.pop("oneOf")
    return Draft7Validator({**schema, "$ref": f"#/definitions/{event}_event"})


def _invalid(event: str, payload: Any, older: bool = False) -> list[str]:
    found = [u for e in _validator(event).iter_errors(payload) for u in _unforgiven(e, older)]
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:160]}" for e in found][:5]


def _unforgiven(error: Any, older: bool) -> list[Any]:
    """The errors that count: in a oneOf/anyOf, those of its best branch (none if one branch
    holds); a missing field only when the payload is not an older recording."""
    if error.validator == "required" and older:
        return []
    if error.validator in ("oneOf", "anyOf") and error.context:
        branches: dict[Any, list[Any]] = {}
        for sub in error.context:
            branches.setdefault(sub.schema_path[0], []).append(sub)
        left = [[u for s in subs for u in _unforgiven(s, older)] for subs in branches.values()]
        if len(left) < len(error.schema[error.validator]) or any(not x for x in left):
            return []  # a branch without any error at all, or one with only forgiven ones
        return min(left, key=len)
    return [error]


def _examples() -> list[tuple[str, int, dict[str, Any]]]:
    if not EXAMPLES.is_file():
        return []
    index = json.loads(EXAMPLES.read_text("utf-8"))
    return [(e["name"], i, x) for e in index if e["name"] in EVENTS
            for i, x in enumerate(e["examples"])]  # fmt: skip


def _used_payloads() -> list[tuple[str, str, dict[str, Any]]]:
    """The recorded payloads under events/ and the ones the tests build from them."""
    out = []
    if SAMPLES.is_dir():
        for path in sorted(SAMPLES.glob("*.json")):
            event = path.name.split(".")[0]
            if event in EVENTS:
                out.append((event, path.name, json.loads(path.read_text("utf-8"))))
    if not out:
        return out
    with FakeGitHub() as gh:
        pull = Pull(ROOT, "a" * 40, "b" * 40)
        out.append(("pull_request", "prkit.pull_event", pull_event(pull, gh)))
        out.append(("issue_comment", "prkit.comment_event", comment_event(gh, "/roofcheck")))
    return out


@pytest.mark.parametrize(("event", "name", "payload"), _used_payloads(),
                         ids=lambda v: v if isinstance(v, str) else "")  # fmt: skip
def test_every_payload_the_tests_use_is_githubs_shape(
    event: str, name: str, payload: dict[str, Any]
) -> None:
    assert _invalid(event, payload, name in OLDER_SHAPES) == [], name


@pytest.mark.parametrize(("event", "index", "payload"), _examples() or [("none", 0, {})],
                         ids=lambda v: v if isinstance(v, str | int) else "")  # fmt: skip
def test_every_published_example_parses(event: str, index: int, payload: dict[str, Any]) -> None:
    _need(EXAMPLES)  # (the examples span years of GitHub: not all have today's fields)
    if event == "issue_comment":
        comment = read_event(payload)
        assert comment.issue_number == payload["issue"]["number"]
        triage(comment)  # a command, or the reason it is ignored: never a crash
        return
    for name in (event,) if event == "merge_group" else (event, "pull_request_target"):
        parsed = parse_event(name, payload)
        assert parsed is None or isinstance(parsed, PullEvent)
        if parsed is not None and event == "pull_request":
            assert parsed.head_sha == payload["pull_request"]["head"]["sha"]
            assert parsed.number == payload["number"]
        if parsed is not None and event == "merge_group":
            assert parsed.head_sha == payload["merge_group"]["head_sha"]


def test_a_wrong_type_fails_even_in_an_older_recording() -> None:
    _need(SCHEMA)
    payloads = {name: p for _, name, p in _used_payloads()}
    if "pull_request.opened.with-installation.json" not in payloads:
        pytest.skip(f"{SAMPLES} is missing")
    payload = json.loads(json.dumps(payloads["pull_request.opened.with-installation.json"]))
    payload["pull_request"]["head"]["sha"] = 42
    assert _invalid("pull_request", payload, older=True)
    del payload["pull_request"]["head"]
    assert _invalid("pull_request", payload, older=False)
