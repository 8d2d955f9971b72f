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
