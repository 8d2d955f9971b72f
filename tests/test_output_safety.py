"""Issue 19, section 5: logs, comments and templates. End to end: `roofbot pr` on a real git
repository with the real pull_request payload against the loopback GitHub, and `roofbot check`
as a subprocess."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from github_server import FakeGitHub
from prkit import FIXTURES, PR, drop_head, git, make_pull, run_action

from roofbot.render.markdown.context import MARKER

SOURCE = "data/benchmarks/comm-5090-wsl2-qwen3-14b-awq-decode-tok-s.json"
#: LRM, RLM, ALM, ZWJ, ZWNJ, word joiner, U+180E, soft hyphen, CGJ, Hangul fillers, a tag
INVISIBLE = (
    "\u200e\u200f\u061c\u200d\u200c\u2060\u180e\u00ad\u034f\u115f\u1160\u3164\uffa0\U000e0041"
)


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server
    assert not server.errors, server.errors


def _record(rid: str, **fields: object) -> str:
    data = json.loads((FIXTURES / SOURCE).read_text("utf-8"))
    data.update(id=rid, **fields)
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _sticky(gh: FakeGitHub) -> str:
    (body,) = [c.body for c in gh.comments_on(PR) if c.user_login == gh.bot_login]
    return body


def test_a_file_name_can_not_stop_the_annotations(tmp_path: Path, gh: FakeGitHub) -> None:
    name = "data/benchmarks/x ##[stop-commands]pwnd.json"
    pull = make_pull(tmp_path, {name: _record("x ##[stop-commands]pwnd", value=9999)})
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    run = run_action(tmp_path, pull, gh)
    assert run.code == 1
    assert "::error file=data/benchmarks/x " in run.stdout  # the annotation is there
    assert "##[" not in run.stdout and "##[" not in run.stderr


def test_a_config_key_can_not_stop_the_log_of_roofbot_check(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES, repo, ignore=shutil.ignore_patterns("broken"))
    (repo / ".roofbot.yml").write_text('"x ##[stop-commands]t0k3n y::z": 1\n', "utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "roofbot", "check", "--repo", str(repo)],
        capture_output=True, text=True, env={**os.environ, "GITHUB_ACTIONS": "true"},
    )  # fmt: skip
    assert proc.returncode == 2
    assert "stop-commands" in proc.stderr  # the key is quoted ...
    assert "##[" not in proc.stdout + proc.stderr  # ... but can't be read as a command
    assert "y::z" not in proc.stdout + proc.stderr


def test_invisible_characters_are_stripped_and_a_homoglyph_id_written_out(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    homoglyph = "nvidi\u0430-rtx-5090"  # a Cyrillic а
    hidden = f"nvidia{INVISIBLE}-rtx-5090"
    record = _record("tricky", accelerator_ids=[homoglyph, hidden])
    pull = make_pull(tmp_path, {"data/benchmarks/tricky.json": record})
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    run_action(tmp_path, pull, gh)
    body = _sticky(gh)
    for c in INVISIBLE:
        assert c not in body, hex(ord(c))
    assert "nvidi\\\\u0430-rtx-5090" in body  # escaped once for Markdown: shows nvidi\u0430
    assert "\\\\u200e" in body  # the hidden characters are written out too
    assert homoglyph in body and "unresolved" in body


def _with_template(tmp: Path, gh: FakeGitHub, text: str, extra: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    def hook(repo: Path) -> None:
        pass

    pull = make_pull(
        tmp,
        {
            "data/benchmarks/a<img src=x onerror=alert(1)>.json": _record(
                "a<img src=x onerror=alert(1)>"
            )
        },
        base_edit={".github/roofcheck.md.j2": text, **(extra or {})},
        hook=hook,
    )
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    return pull, run_action(tmp, pull, gh, INPUT_TEMPLATE=".github/roofcheck.md.j2")


def test_safe_in_a_template_prints_escaped_text(tmp_path: Path, gh: FakeGitHub) -> None:
    template = "{{ marker }}\n{% for f in changes.files %}- {{ f.path | safe }}\n{% endfor %}"
    _with_template(tmp_path, gh, template)
    body = _sticky(gh)
    assert body.startswith(MARKER)
    assert "<img" not in body and "&lt;img src=x onerror=alert(1)&gt;" in body, body


def test_a_template_outside_its_folder_or_unsafe_falls_back(tmp_path: Path, gh: FakeGitHub) -> None:
    outside = tmp_path / "outside.j2"
    outside.write_text("SECRET-OUTSIDE-7f3a {{ marker }}", "utf-8")
    template = '{{ marker }}\n{% include "leak.j2" %}\n'

    def link(repo: Path) -> None:
        os.symlink(outside, repo / ".github" / "leak.j2")

    pull = make_pull(
        tmp_path,
        {"data/benchmarks/plain.json": _record("plain")},
        base_edit={".github/roofcheck.md.j2": template},
    )
    git(pull.repo, "checkout", "-q", "main")
    link(pull.repo)  # in the base checkout, beside the template
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
    run = run_action(tmp_path, pull, gh, INPUT_TEMPLATE=".github/roofcheck.md.j2")
    body = _sticky(gh)
    assert "SECRET-OUTSIDE-7f3a" not in body + run.summary + run.stdout
    assert "could not be rendered" in body and "built-in template" in body
    assert "| base → this PR |" in body and "calibration ok" in body  # the built-in report
    assert gh.statuses[pull.head][-1]["state"] in ("success", "failure")

    # a sandbox SecurityError: the same fallback, not a crash
    (pull.repo / ".github" / "roofcheck.md.j2").write_text(
        "{{ marker }}{{ ''.__class__.__mro__[1].__subclasses__() }}", "utf-8"
    )
    run = run_action(tmp_path, pull, gh, INPUT_TEMPLATE=".github/roofcheck.md.j2")
    body = _sticky(gh)
    assert "SecurityError" in body and "built-in template" in body
    assert gh.statuses[pull.head][-1]["state"] in ("success", "failure")


def test_a_file_name_logged_when_its_fetch_fails_is_neutralised(
    tmp_path: Path, gh: FakeGitHub
) -> None:
    from github_server import FileState

    name = "data/benchmarks/x ##[stop-commands]pwnd.json"
    data = _record("x ##[stop-commands]pwnd")
    pull = make_pull(tmp_path, {name: data})
    drop_head(pull)  # API mode: the base with its history, not the head
    gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base, files=[FileState(name, "added")])
    gh.add_file(name, data.encode(), ref=pull.head)
    for route in (r"/git/blobs/", r"/contents/"):  # whichever way the file is read, it fails
        gh.fail_server_error("GET", route, 503, times=None)
    run = run_action(tmp_path, pull, gh)
    assert "stop-commands" in run.stdout  # the failure is logged, with the name ...
    assert "##[" not in run.stdout  # ... which can't stop the annotations after it
