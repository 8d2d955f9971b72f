"""Hypothesis fuzz targets, in process: a record file of any bytes (random bytes, any JSON
shape, a valid record with fields swapped for hostile values and its bytes mutated) under any
file name goes through the whole pipeline the action runs (the PR's tree over the fixtures,
the check, the comment, the JSON report, the annotations), beside a witness record; and any
`.roofbot.yml` text or comment body goes through its parser. Nothing may raise, the witness
keeps its verdict, and the comment holds every Markdown invariant of the campaign."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hostile_cases import FIXTURES, PAYLOAD, dump, record
from invariants import check_markdown

from roofbot.action.command_rules import parse_command
from roofbot.adapters.overlay import OverlayTree
from roofbot.adapters.repo import CONFIG_NAME, Repository, load_config_text
from roofbot.adapters.schemas import Schemas
from roofbot.adapters.tree import FolderTree
from roofbot.core.changes import Changes, FileChange
from roofbot.core.config import Config, ConfigError
from roofbot.core.results import Verdict
from roofbot.engine import run_check
from roofbot.links import gotcha_paths
from roofbot.render import json_report
from roofbot.render.github import annotations_for
from roofbot.render.markdown import render_report

RUN_URL = "https://github.com/octo-org/llm-roofline-records/actions/runs/4242"
SHA = "0123456789abcdef0123456789abcdef01234567"
WITNESS = "data/benchmarks/witness-violation.json"
WITNESS_BYTES = dump(record("witness-violation", value=record("x")["value"] * 3)).encode()
CONFIG = load_config_text((FIXTURES / CONFIG_NAME).read_text("utf-8"))
BASE = FolderTree(FIXTURES)
SCHEMAS = Schemas(FIXTURES / "schemas")
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                database=None)  # fmt: skip
LONG_HUNT = settings(  # the `slow` marker: .ci/run runs it; ROOFBOT_FUZZ_EXAMPLES sets its length
    FUZZ, max_examples=int(os.environ.get("ROOFBOT_FUZZ_EXAMPLES", "3000"))
)

hostile_text = st.one_of(
    st.text(max_size=120),
    st.sampled_from(PAYLOAD.split(" ")),
    st.just(PAYLOAD),
    st.text(alphabet="{}%#@<>!-|`*_[]()\\/:\n\r\t\u202e\u200b\x00", max_size=60),
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | hostile_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(hostile_text, inner, max_size=4),
    max_leaves=20,
)
FIELDS = sorted(record("x"))


@st.composite
def mutated_record(draw: st.DrawFn) -> bytes:
    data: dict[str, Any] = record("fuzz")
    for key in draw(st.lists(st.sampled_from([*FIELDS, "extra"]), max_size=4, unique=True)):
        data[key] = draw(json_values)
    text = json.dumps(data, indent=draw(st.sampled_from([None, 0, 2])), ensure_ascii=draw(
        st.booleans()), allow_nan=True)  # fmt: skip
    raw = text.encode("utf-8", "surrogatepass")
    for _ in range(draw(st.integers(0, 3))):
        cut = draw(st.integers(0, len(raw)))
        raw = raw[:cut] + draw(st.sampled_from(
            [b"", b"\xef\xbb\xbf", b"\x00", b"\xff", b"NaN", b"[" * 50, b'"value": 1e999,', b"}"]
        )) + raw[cut + draw(st.integers(0, 3)):]  # fmt: skip
    return raw


record_bytes = st.one_of(
    st.binary(max_size=600),
    json_values.map(lambda v: json.dumps(v, allow_nan=True).encode("utf-8", "surrogatepass")),
    mutated_record(),
)
file_names = st.one_of(
    st.just("fuzz"),
    st.text(min_size=1, max_size=40).filter(lambda n: "/" not in n and "\x00" not in n),
    st.sampled_from(["<!-- roofbot:roofcheck -->", "a|b", "`x`", "@everyone", "#1", "x\ny"]),
)


@FUZZ
@given(raw=record_bytes, name=file_names)
def test_any_record_file_goes_through_the_whole_pipeline(raw: bytes, name: str) -> None:
    through_the_pipeline(raw, name)


@pytest.mark.slow
@LONG_HUNT
@given(raw=record_bytes, name=file_names)
def test_the_long_hunt_any_record_file_goes_through_the_whole_pipeline(
    raw: bytes, name: str
) -> None:
    through_the_pipeline(raw, name)


def through_the_pipeline(raw: bytes, name: str) -> None:
    """One hostile record file beside the witness: the check, the comment, the JSON report
    and the annotations hold every invariant."""
    path = f"data/benchmarks/{name}.json"
    tree = OverlayTree(BASE, {path: raw, WITNESS: WITNESS_BYTES})
    repo = Repository(tree, CONFIG, SCHEMAS)
    report = run_check(repo, [path, WITNESS], calibration=False)
    verdicts = {r.path: r.verdict for r in report.records}
    assert verdicts[WITNESS] is Verdict.VIOLATION
    assert path in verdicts or any(r.verdict is Verdict.ERROR for r in report.records)
    links = gotcha_paths(CONFIG, repo.catalogue())
    changes = Changes((FileChange("added", path), FileChange("added", WITNESS)), (), (), "git")
    comment = render_report(report, links, changes=changes, head_sha=SHA, summary_url=RUN_URL)
    check_markdown(comment, allowed_urls=(RUN_URL,))
    assert len(comment) <= 60000
    json.loads(json_report.dumps(report, links))
    for annotation in annotations_for(report, tree):
        assert "\n" not in annotation.command() and "\r" not in annotation.command()


@settings(max_examples=200, deadline=None, database=None)
@given(st.one_of(st.text(max_size=400), st.builds(lambda v: json.dumps(v), json_values)))
def test_any_config_text_is_a_config_or_a_config_error(text: str) -> None:
    """Whatever a PR puts in .roofbot.yml: a Config, or a ConfigError that says what is
    wrong on one line (it goes into the report); never another exception."""
    try:
        config = load_config_text(text)
    except ConfigError as e:
        assert len(str(e).splitlines()) == 1, repr(str(e))
        return
    assert isinstance(config, Config)


@settings(max_examples=300, deadline=None, database=None)
@given(st.text(max_size=300))
def test_any_comment_body_parses(body: str) -> None:
    command = parse_command(body)
    assert command is None or body.lstrip("\ufeff").split("\n", 1)[0].split()[0].lower() == (
        "/roofcheck"
    )
