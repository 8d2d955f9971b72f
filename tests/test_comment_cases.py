"""The comment a maintainer keeps installed, on realistic pull requests against a copy of the
users' corpus (../shared/records-repo) and the seed's MPT-7B trio, each rendered by `roofbot
preview` and then by cmark-gfm (GitHub's own Markdown library) as GitHub renders it.

Every case holds: no literal backtick or asterisk in the rendered text (markup that failed to
render), every table well formed, every `<details>` closed, every link absolute. The first
screen decides: the headline names the finding, the table lists only what the PR moved. The
golden comments are tests/golden/case-*.md (ROOFBOT_UPDATE_GOLDEN=1 rewrites them)."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

cmarkgfm = pytest.importorskip("cmarkgfm", reason="cmarkgfm (the dev extra) renders as GitHub")

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "records-repo"
FIXTURES = ROOT / "fixtures"
GOLDEN = ROOT / "tests" / "golden"
SERVER, REPOSITORY = "https://github.com", "owner/records"
BENCH = "data/benchmarks"
RTX5070 = f"{BENCH}/local-rtx-5070-13b-q4-decode.json"
XTX_RECORD = f"{BENCH}/llamacpp-rx7900xtx-gfx1100-qwen3-27b-q4-batch1-decode-tok-s.json"
XTX = "data/accelerators/amd-radeon-rx-7900-xtx.json"
AGGREGATE = f"{BENCH}/mpt7b-a100-bs64-aggregate-output-tps.json"
TRIO = [
    f"{BENCH}/mpt7b-a100-bs1-per-user-decode-tps.json",
    AGGREGATE,
    f"{BENCH}/mpt7b-a100-bs64-per-user-decode-tps.json",
]
_GIT_ENV = {
    "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
}  # fmt: skip

corpus = pytest.mark.skipif(
    not CORPUS.is_dir(), reason=f"the users' corpus is not at {CORPUS} (../shared/records-repo)"
)


def git(repo: Path, *args: str) -> str:
    out = subprocess.run(["git", *args], cwd=repo, env={**os.environ, **_GIT_ENV}, check=True,
                         capture_output=True, text=True)  # fmt: skip
    return out.stdout.strip()


@dataclass
class Case:
    repo: Path
    base: str
    head: str
    comment: str
    code: int


Edit = Callable[[Path], None]


def preview(tmp: Path, source: Path, edit: Edit, base_edit: Edit | None = None) -> Case:
    """`source` committed on main (after `base_edit`), `edit` committed on pr, and the comment
    `roofbot preview` renders for it, with the repository's address as a workflow has it."""
    repo = tmp / "records"
    shutil.copytree(source, repo, ignore=shutil.ignore_patterns(".git", "broken"))
    if base_edit is not None:
        base_edit(repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    git(repo, "checkout", "-qb", "pr")
    edit(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "the pull request")
    env = {**os.environ, "GITHUB_SERVER_URL": SERVER, "GITHUB_REPOSITORY": REPOSITORY,
           "GIT_CEILING_DIRECTORIES": str(tmp)}  # fmt: skip
    out = tmp / "comment.md"
    run = subprocess.run(
        [sys.executable, "-m", "roofbot", "preview", "--base", "main", "--head", "pr",
         "--out", str(out)],
        cwd=repo, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert run.returncode in (0, 1), run.stderr
    return Case(repo, git(repo, "rev-parse", "main"), git(repo, "rev-parse", "pr"),
                out.read_text("utf-8"), run.returncode)  # fmt: skip


def golden(name: str, case: Case) -> None:
    text = case.comment.replace(case.head, "HEAD_SHA").replace(case.base, "BASE_SHA")
    path = GOLDEN / name
    if os.environ.get("ROOFBOT_UPDATE_GOLDEN") or not path.exists():
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{name} differs from its golden file"


def set_fields(repo: Path, rel: str, **fields: object) -> None:
    path = repo / rel
    data = json.loads(path.read_text("utf-8"))
    data.update(fields)
    path.write_text(json.dumps(data, indent=2) + "\n", "utf-8")


# ------------------------------------------------------------------ as GitHub renders it

_PIPE = re.compile(r"(?<!\\)\|")
_DELIMITER = re.compile(r"^\|(\s*:?-+:?\s*\|)+$")


def rendered(text: str) -> str:
    """The comment as GitHub's Markdown library renders it (raw HTML kept, as GitHub keeps
    `<details>`)."""
    return str(
        cmarkgfm.github_flavored_markdown_to_html(text, options=cmarkgfm.Options.CMARK_OPT_UNSAFE)
    )


def visible_text(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def assert_renders_clean(text: str) -> None:
    """What a reader sees: markup that rendered, tables whole, details closed, links that
    work anywhere (the comment, the job summary, a notification e-mail)."""
    page = rendered(text)
    seen = visible_text(page)
    assert "`" not in seen, [ln for ln in seen.splitlines() if "`" in ln]
    assert "*" not in seen, [ln for ln in seen.splitlines() if "*" in ln]
    blocks: list[list[str]] = []
    previous = False
    for line in text.splitlines():
        row = line.startswith("|")
        if row and not previous:
            blocks.append([])
        if row:
            blocks[-1].append(line)
        previous = row
    for block in blocks:
        assert len(block) >= 3 and _DELIMITER.match(block[1]), block[:2]
        widths = {len(_PIPE.findall(line)) for line in block}
        assert len(widths) == 1, block
    assert page.count("<table>") == len(blocks)
    assert text.count("<details>") == text.count("</details>")
    assert page.count("<details>") == page.count("</details>")
    for target in re.findall(r'href="([^"]*)"', page):
        assert target.startswith(f"{SERVER}/{REPOSITORY}/blob/"), target
    assert "](../" not in text


def first_screen(text: str) -> str:
    """What shows before the first collapsed block."""
    return text.split("<details>", 1)[0]


# ------------------------------------------------------------------ the seven cases


@corpus
def test_a_value_raised_past_its_roof_headlines_the_finding(tmp_path: Path) -> None:
    case = preview(tmp_path, CORPUS, lambda r: set_fields(r, RTX5070, value=152.0))
    assert case.code == 1
    heading = case.comment.splitlines()[1]
    assert heading.startswith(
        "### ❌ roofcheck: `local-rtx-5070-13b-q4-decode`: 152 tok/s is 111% of its "
        "136.8 tok/s memory roof"
    )
    screen = first_screen(case.comment)
    assert "| ✅ 87.7% → **🟥 111%** | memory roof 136.8 tok/s | `value` 120 → 152 |" in screen
    # the record states batch 1: its fix checks the figure, never "an aggregate of two"
    fix = next(ln for ln in screen.splitlines() if ln.startswith("- 🟥"))
    assert "check `value`: 152 tok/s is 111% of its memory roof" in fix
    assert "aggregate" not in case.comment and "datasheet" not in fix
    assert len(case.comment) <= 3500, len(case.comment)
    assert_renders_clean(case.comment)
    golden("case-value-raised.md", case)


@corpus
def test_a_catalogue_edit_that_flips_a_dependent_is_asked_for_a_source(tmp_path: Path) -> None:
    def typo(repo: Path) -> None:
        path = repo / XTX
        text = path.read_text("utf-8")
        path.write_text(
            text.replace('"memory_bandwidth_gbps": 960', '"memory_bandwidth_gbps": 400')
        )

    case = preview(tmp_path, CORPUS, typo)
    assert case.code == 1
    screen = first_screen(case.comment)
    assert "✅ 43% → **🟥 103%**" in screen
    assert (
        "this PR set `memory_bandwidth_gbps` 960 → 400 in `amd-radeon-rx-7900-xtx`: cite a "
        "source or revert (`memory_bandwidth_basis` still works out to 960)" in screen
    )
    assert f"/blob/{case.head}/{XTX}#L" in screen  # the line that moved it
    assert_renders_clean(case.comment)
    golden("case-catalogue-flip.md", case)


@corpus
def test_a_new_part_shows_the_figures_a_maintainer_checks(tmp_path: Path) -> None:
    def new_part(repo: Path) -> None:
        data = json.loads((repo / XTX).read_text("utf-8"))
        data.update(id="amd-radeon-rx-7900-gre", name="AMD Radeon RX 7900 GRE", vram_gb=16,
                    memory_bus_bit=256, memory_bandwidth_gbps=576,
                    memory_bandwidth_basis="18 Gbps x 256-bit / 8 = 576 GB/s")  # fmt: skip
        (repo / "data/accelerators/amd-radeon-rx-7900-gre.json").write_text(
            json.dumps(data, indent=2) + "\n", "utf-8"
        )
        set_fields(repo, XTX_RECORD, accelerator_ids=["amd-radeon-rx-7900-gre"])

    case = preview(tmp_path, CORPUS, new_part)
    assert "#### New catalogue records" in case.comment
    assert "| accelerators | amd-radeon-rx-7900-gre | memory\\_bandwidth\\_gbps 576" in case.comment
    assert_renders_clean(case.comment)
    golden("case-new-part.md", case)


@corpus
def test_a_30_record_date_bump_is_green_and_keeps_mains_findings_folded(tmp_path: Path) -> None:
    """The findings the touched records already have on main are not the PR's: no row, no
    fix, nothing on the first screen but their count; the folded section names each one."""

    def bump(repo: Path) -> None:
        for path in sorted((repo / BENCH).glob("*.json"))[:30]:
            text = path.read_text("utf-8")
            path.write_text(re.sub(r'"updated": "[^"]*"', '"updated": "2026-12-05"', text, count=1))

    case = preview(tmp_path, CORPUS, bump)
    assert case.code == 0
    assert case.comment.splitlines()[1].startswith("### ✅ roofcheck: ")
    screen = first_screen(case.comment)
    assert not re.findall(r"^\| (?:❗ error|🟥 violation|🟨 suspect) \|", screen, re.M), screen
    assert "**What to fix:**" not in screen
    assert re.search(r"\(\d+ not moved by this PR; \d+ with findings already on the base", screen)
    folded = case.comment.split("Already on the base branch: ", 1)[1].split("</details>", 1)[0]
    listed = re.findall(r"^- \S+ (?:error|violation|suspect|unchecked): ", folded, re.M)
    count = re.search(r"; (\d+) with findings already on the base branch", screen)
    assert count and len(listed) == int(count.group(1))
    assert screen.count("\n| ✅ pass |") == 0  # the unmoved passes are counted, not listed
    assert_renders_clean(case.comment)
    golden("case-date-bump.md", case)


@corpus
def test_broken_json_says_what_and_where_and_every_output_agrees_on_the_line(
    tmp_path: Path,
) -> None:
    def trailing_comma(repo: Path) -> None:
        path = repo / RTX5070
        lines = path.read_text("utf-8").splitlines(keepends=True)
        last = max(i for i, ln in enumerate(lines) if ln.strip() == "]") - 1
        lines[last] = lines[last].rstrip("\n") + ",\n"
        path.write_text("".join(lines), "utf-8")

    case = preview(tmp_path, CORPUS, trailing_comma)
    text = (case.repo / RTX5070).read_text("utf-8")
    comma = next(i for i, ln in enumerate(text.splitlines(), 1) if ln.rstrip().endswith('",')
                 and text.splitlines()[i].strip() == "]")  # fmt: skip
    heading = case.comment.splitlines()[1]
    assert f"invalid JSON at line {comma} column" in heading and "a trailing comma" in heading
    assert f"- ❗ `local-rtx-5070-13b-q4-decode`: remove the comma at the end of line {comma}" in (
        case.comment
    )
    assert f"{RTX5070}#L{comma})" in case.comment  # the link lands on it
    check = subprocess.run(
        [sys.executable, "-m", "roofbot", "check", "--repo", str(case.repo), "--format",
         "github", RTX5070],
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert f"file={RTX5070},line={comma}," in check.stdout, check.stdout
    assert_renders_clean(case.comment)
    golden("case-broken-json.md", case)


@corpus
def test_a_clean_pass_is_five_lines_with_the_fact_that_makes_it_safe(tmp_path: Path) -> None:
    def note(repo: Path) -> None:
        data = json.loads((repo / AGGREGATE).read_text("utf-8"))
        set_fields(repo, AGGREGATE, notes=(data.get("notes") or "") + " Re-read.")

    case = preview(tmp_path, CORPUS, note)
    assert case.code == 0
    lines = [ln for ln in case.comment.splitlines() if ln.strip()]
    assert len(lines) <= 5, lines
    assert re.search(
        r"`mpt7b-a100-bs64-aggregate-output-tps` is legal as a batch-64 aggregate: [\d.]+% of "
        r"its batched roof; the batch-1 roof does not apply",
        lines[1],
    ), lines[1]
    assert len(case.comment) <= 2000
    assert_renders_clean(case.comment)
    golden("case-clean-pass.md", case)


@corpus
def test_a_harmless_value_edit_stays_short(tmp_path: Path) -> None:
    case = preview(tmp_path, CORPUS, lambda r: set_fields(r, AGGREGATE, value=801.0))
    assert case.code == 0
    assert len(case.comment) <= 2000, len(case.comment)
    assert_renders_clean(case.comment)


def test_the_seed_s_mpt_trio_leads_with_the_aggregate_that_passes_as_a_batch(
    tmp_path: Path,
) -> None:
    saved = {p: (FIXTURES / p).read_text("utf-8") for p in TRIO}

    def drop(repo: Path) -> None:
        for p in TRIO:
            (repo / p).unlink()

    def add(repo: Path) -> None:
        for p, text in saved.items():
            (repo / p).write_text(text, "utf-8")

    case = preview(tmp_path, FIXTURES, add, base_edit=drop)
    assert case.code == 0
    heading = case.comment.splitlines()[1]
    assert heading == (
        "### ✅ roofcheck: 3 records pass; `mpt7b-a100-bs64-aggregate-output-tps` is legal as a "
        "batch-64 aggregate: 11.3% of its batched roof; the batch-1 roof does not apply"
    )
    assert case.comment.count("| new → ✅ ") == 3
    assert_renders_clean(case.comment)
    golden("case-mpt-trio.md", case)


def test_the_checks_catch_what_they_are_for() -> None:
    """The render checks themselves fail on the defects they look for."""
    bad = [
        "a \\`literal\\` tick",
        "| a | b |\n|---|---|\n| 1 | 2 | 3 |",
        "<details><summary>x</summary>\n\nopen",
        "[file](../blob/abc/data/x.json)",
        "**unclosed bold",
    ]
    for text in bad:
        with pytest.raises(AssertionError):
            assert_renders_clean(text)


# ------------------------------------------------------------------ the terminal


def check_corpus(*flags: str) -> list[str]:
    run = subprocess.run(
        [sys.executable, "-m", "roofbot", "check", "--repo", str(CORPUS), *flags],
        capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert run.returncode == 1, run.stderr
    return run.stdout.splitlines()


@corpus
def test_check_on_the_corpus_puts_verdicts_first_and_groups_identical_catalogue_errors() -> None:
    lines = check_corpus()
    assert "error     55 accelerators: a `flops` row lacks `basis`; list with -v" in lines
    first_catalogue = lines.index(next(ln for ln in lines if ln.startswith("catalogue files (")))
    verdicts = [i for i, ln in enumerate(lines) if re.match(r"(violation|suspect) ", ln)]
    assert verdicts and max(verdicts) < first_catalogue  # the benchmark verdicts come first
    assert not any(ln.strip().startswith("data/accelerators/") for ln in lines)  # grouped
    assert len(lines) < 250, len(lines)


@corpus
def test_check_quiet_prints_only_what_fails_and_verbose_cuts_nothing() -> None:
    quiet = check_corpus("-q")
    assert not any(ln.startswith(("pass ", "unchecked ", "coverage:")) for ln in quiet)
    assert quiet[-1] == "NOT OK" and len(quiet) < 100, len(quiet)
    verbose = check_corpus("-v")
    assert sum(ln.strip().startswith("data/accelerators/") for ln in verbose) >= 55  # listed
    aqlm = next(ln for ln in verbose if "'aqlm' is not one of" in ln)
    assert aqlm.rstrip().endswith("]"), aqlm  # the schema's whole list of values
