"""The docs: every CLI command and option is documented, the traps page shows what roofbot
prints for each worked example, and `mkdocs build --strict` passes."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
import yaml
from conftest import ROOT

from roofbot.cli import cli
from roofbot.core.traps import BY_ID

DOCS = ROOT / "docs"


def _examples():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("doc_examples", DOCS / "examples.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def sections(text: str, level: str = "## ") -> dict[str, str]:
    out: dict[str, str] = {}
    name = None
    for line in text.splitlines():
        if line.startswith(level):
            name = line[len(level) :].strip()
            out[name] = ""
        elif name is not None:
            out[name] += line + "\n"
    return out


@pytest.mark.parametrize("name", sorted(cli.commands))
def test_every_command_and_option_is_documented(name: str) -> None:
    doc = sections((DOCS / "cli.md").read_text())
    heading = f"`roofbot {name}`"
    assert heading in doc, f"docs/cli.md has no section '## {heading}'"
    body = doc[heading]
    for param in cli.commands[name].params:
        if isinstance(param, click.Argument):
            assert (param.name or "").upper() in body, f"{name}: argument {param.name}"
        else:
            for opt in [*param.opts, *param.secondary_opts]:
                assert f"`{opt}" in body or f" {opt}`" in body or f"{opt}," in body, (
                    f"roofbot {name} {opt} is not documented in docs/cli.md"
                )


def test_every_trap_has_a_worked_example() -> None:
    examples = _examples()
    assert set(examples.EXAMPLES) == set(BY_ID)
    doc = sections((DOCS / "traps.md").read_text())
    for trap in BY_ID:
        assert trap in doc, f"docs/traps.md has no section '## {trap}'"


@pytest.mark.parametrize("trap", sorted(BY_ID))
def test_the_traps_page_shows_what_roofbot_prints(trap: str) -> None:
    examples = _examples()
    body = sections((DOCS / "traps.md").read_text())[trap]
    block = re.search(r"```text\n(.*?)```", body, re.S)
    assert block, f"no example output under '## {trap}'"
    actual = examples.explain(trap)
    shown = [line for line in block[1].splitlines() if "(abridged" not in line]
    missing = [line for line in shown if line not in actual.splitlines()]
    assert not missing, f"docs/traps.md differs from roofbot's output for {trap}: {missing}"
    assert f"trap {trap}:" in actual


def test_findings_is_linked_not_rewritten() -> None:
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"]
    pages = [next(iter(item.values())) for item in nav]
    assert "findings.md" in pages
    for page in pages:
        assert (DOCS / page).is_file(), page


def test_mkdocs_builds_with_warnings_as_errors(tmp_path: Path) -> None:
    if shutil.which("mkdocs") is None and importlib.util.find_spec("mkdocs") is None:
        pytest.skip("mkdocs is not installed: pip install -e '.[dev]'")
    out = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "traps" / "index.html").is_file()


# ------------------------------------------------------------------ what a newcomer reads

OWN_DOCS = [
    ROOT / "README.md",
    ROOT / "action.yml",
    ROOT / "mkdocs.yml",
    ROOT / ".pre-commit-hooks.yaml",
    ROOT / "scripts" / "container.sh",
    *sorted(DOCS.glob("*.md")),
    *sorted((ROOT / "examples").glob("*.yml")),
    ROOT / "examples" / "README.md",
    ROOT / "fixtures" / "README.md",
    ROOT / "fixtures" / "CALIBRATION.md",
    ROOT / "fixtures" / ".roofbot.yml",
]
OUTSIDE = re.compile(
    r"\.\./shared|shared notes|container-ci\.md|roofbot-contract|\bthe contract\b|"
    r"\bcontract section\b|\bcontract's\b|\bthe seed\b|\bseed's\b",
    re.IGNORECASE,
)


@pytest.mark.parametrize("path", OWN_DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_nothing_points_outside_the_repository(path: Path) -> None:
    """The docs describe the rules in the project's own words ([docs/rules.md]); the one
    mention of a folder beside the checkout is ROOFBOT_RECORDS_REPO's default."""
    bad = [
        line
        for line in path.read_text("utf-8").splitlines()
        if OUTSIDE.search(line) and "ROOFBOT_RECORDS_REPO" not in line
    ]
    assert not bad, bad


def test_the_rules_page_is_in_the_nav_and_the_report_and_exit_codes_refer_to_it() -> None:
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"]
    assert {"What roofbot reads, computes and reports": "rules.md"} in nav
    rules = sections((DOCS / "rules.md").read_text("utf-8"))
    for needed in ("What it reads", "The inputs, and where each comes from", "The ceilings",
                   "Verdicts", "The JSON report", "Exit codes"):  # fmt: skip
        assert needed in rules, needed
    assert "rules.md#the-json-report" in (DOCS / "cli.md").read_text("utf-8")
    assert "rules.md#exit-codes" in (DOCS / "cli.md").read_text("utf-8")
    assert "docs/rules.md" in (ROOT / "action.yml").read_text("utf-8")


def test_the_readme_opens_with_what_and_how_to_install_then_the_cli_then_configuration() -> None:
    text = (ROOT / "README.md").read_text("utf-8")
    lines = text.splitlines()
    assert lines[2:6] == [
        "```sh",
        "pip install -e . && roofbot check --repo fixtures",
        "pip install -e '.[dev]' && pytest",
        "```",
    ]
    heads = [line[3:] for line in lines if line.startswith("## ")]
    order = ["What roofbot does", "Install it on a records repository", "Command line",
             "Configuration"]  # fmt: skip
    assert heads[: len(order)] == order, heads
    doc = sections(text)
    install = doc["Install it on a records repository"]
    assert "uses: OWNER/roofbot@" in install and "examples/release.yml" in install
    assert "roofcheck" in install and "Require status checks to pass" in install
    for name in sorted(cli.commands):
        assert f"roofbot {name}" in doc["Command line"], f"README's CLI lacks roofbot {name}"
    for page, section in (("docs/performance.md", "Performance"), ("docs/security.md", "Security")):
        body = doc[section].strip()
        assert page in body and "\n\n" not in body, f"{section}: one paragraph linking {page}"
    assert "minutes" in doc["Tests"] and "ROOFBOT_RECORDS_REPO" in doc["Tests"]


def test_the_pre_commit_rev_names_a_commit_that_carries_the_hook() -> None:
    text = (DOCS / "workflows.md").read_text("utf-8")
    (rev,) = re.findall(r"^\s+rev: (\S+)", text, re.M)
    assert re.fullmatch(r"[0-9a-f]{40}", rev), f"rev {rev}: a full commit SHA"
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the rev can't be looked up")
    shallow = subprocess.run(["git", "rev-parse", "--is-shallow-repository"], cwd=ROOT,
                             capture_output=True, text=True, check=False)  # fmt: skip
    found = subprocess.run(["git", "cat-file", "-e", f"{rev}:.pre-commit-hooks.yaml"], cwd=ROOT,
                           capture_output=True, check=False)  # fmt: skip
    if found.returncode != 0 and shallow.stdout.strip() == "true":
        pytest.skip("a shallow clone: the rev's commit is not fetched")
    assert found.returncode == 0, f"{rev} is not a commit of this repository with the hook"
