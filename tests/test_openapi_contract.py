"""The loopback GitHub is held to GitHub's REST description (tests/openapi_contract.py runs
over every exchange of every test when a server stops). These tests hold the holder: the
subset in the repository is the one scripts/openapi_subset.py makes from npm @octokit/openapi,
every endpoint the server answers is in it, and a request or an answer GitHub's description
forbids is caught."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from github_server import FakeGitHub, Response
from openapi_contract import SPEC_FILE, contract

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "build" / "octokit" / "node_modules" / "@octokit" / "openapi"


def _request(gh: FakeGitHub, method: str, path: str, body: object | None = None) -> int:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        gh.base_url + path, data=data, method=method,
        headers={"Authorization": f"token {gh.token}", "X-GitHub-Api-Version": "2022-11-28",
                 "Content-Type": "application/json"},
    )  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return int(response.status)
    except urllib.error.HTTPError as e:
        return e.code


def test_the_subset_is_the_packages() -> None:
    source = PACKAGE / "generated" / "api.github.com.json"
    if not source.is_file():
        pytest.skip(f"{source.relative_to(ROOT)} is missing: .ci/run installs @octokit/openapi "
                    "(npm install --no-save --prefix build/octokit @octokit/openapi@23.0.2)")  # fmt: skip
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "openapi_subset", ROOT / "scripts" / "openapi_subset.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    made = module.subset(json.loads(source.read_text("utf-8")))
    kept = json.loads(SPEC_FILE.read_text("utf-8"))
    assert made["paths"] == kept["paths"] and made["components"] == kept["components"], (
        "tests/github_openapi.json is stale: run python scripts/openapi_subset.py"
    )


def test_every_endpoint_the_server_answers_is_githubs() -> None:
    c = contract()
    assert c is not None
    with FakeGitHub() as gh:
        routes = gh._routes()
    assert routes
    for verb, pattern, _ in routes:
        sample = re.sub(r"\([^)]*\)", "x1", pattern.replace("\\.\\.\\.", "...")).replace("/?", "/")
        ops, _ = c.match(f"/repos/{gh.full_name}{sample}")
        assert any(o.method == verb for o in ops), f"{verb} {pattern}: not in GitHub's description"


def test_a_request_github_would_refuse_is_caught() -> None:
    with FakeGitHub() as gh:
        pull = gh.add_pull(5)
        _request(gh, "POST", f"/repos/{gh.full_name}/statuses/{pull.head_sha}", {"context": "x"})
        _request(gh, "GET", f"/repos/{gh.full_name}/pulls/5/files?per_page=100&sort=name")
        _request(gh, "POST", f"/repos/{gh.full_name}/issues/5/comments", {"bdy": "typo"})
        found = gh.contract_violations()
        gh.errors.clear()  # these were meant: the server must not fail on them
    text = "\n".join(found)
    assert "'state' is a required property" in text
    assert "query parameter 'sort' is not GitHub's" in text
    assert "'body' is a required property" in text


def test_an_answer_github_never_gives_is_caught() -> None:
    c = contract()
    assert c is not None
    ops, _ = c.match("/repos/o/r/statuses/" + "a" * 40)
    (op,) = [o for o in ops if o.method == "POST"]
    assert c.check_response(op, 201, {"id": 1, "state": "success"})  # most fields missing
    assert c.check_response(op, 200, {}) == ["POST /repos/{owner}/{repo}/statuses/{sha} -> 200: "
                                             "GitHub does not answer this status"]  # fmt: skip
    assert not Response(201).faulted
