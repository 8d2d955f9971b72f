"""The Markdown comment: escaping, the template loader, the size budget, and golden files.

Regenerate the goldens after an intended change with ROOFBOT_UPDATE_GOLDEN=1."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from roofbot.adapters.repo import Repository
from roofbot.core.changes import Changes, FileChange, InstrumentChange
from roofbot.core.provenance import Basis, Input
from roofbot.core.results import (
    Calibration,
    CalibrationEntry,
    CheckId,
    Message,
    RecordResult,
    Report,
    RoofCheck,
    Verdict,
)
from roofbot.engine import run_check
from roofbot.links import gotcha_paths
from roofbot.render.markdown import render_report
from roofbot.render.markdown.context import MARKER
from roofbot.render.markdown.escape import html_text, md, url
from roofbot.render.markdown.levels import MIN_ROW_CHARS
from roofbot.render.markdown.records import EMOJI, Links

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
GOLDEN = Path(__file__).resolve().parent / "golden"
SHA = "0123456789abcdef0123456789abcdef01234567"
TRIO = [
    "data/benchmarks/mpt7b-a100-bs1-per-user-decode-tps.json",
    "data/benchmarks/mpt7b-a100-bs64-aggregate-output-tps.json",
    "data/benchmarks/mpt7b-a100-bs64-per-user-decode-tps.json",
]
A100 = "data/accelerators/nvidia-a100-40gb-sxm4.json"
HOSTILE = [
    "{{ 7*7 }}",
    "{% if true %}x{% endif %}",
    "<!-- roofbot:roofcheck -->",
    "@everyone",
    "| pipe |",
    "`tick` ```fence```",
    "<script>alert(1)</script>",
    "[link](javascript:alert(1))",
    "line\n# Heading\n::error::forged",
    "#1 GH-1",
    "\u202eRTL\u202c",
    "$x^2$",
]


def golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("ROOFBOT_UPDATE_GOLDEN") or not path.exists():
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{name} differs from its golden file"


def copy_fixtures(tmp: Path) -> Path:
    repo = tmp / "repo"
    shutil.copytree(FIXTURES, repo, ignore=shutil.ignore_patterns("broken"))
    return repo


REPO_URL = "https://github.com/o/r"


def render_repo(repo_dir: Path, paths: list[str], **kw: object) -> str:
    repo = Repository.open(repo_dir)
    report = run_check(repo, paths)
    links = gotcha_paths(repo.config, repo.catalogue())

    def read(path: str) -> bytes | None:
        file = repo_dir / path
        return file.read_bytes() if file.is_file() else None

    return render_report(report, links, head_sha=SHA, repo_url=REPO_URL, read=read, **kw)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------ escaping


@pytest.mark.parametrize("text", HOSTILE)
def test_md_neutralises(text: str) -> None:
    out = md(text)
    assert "\n" not in out and "<" not in out and "<!--" not in out and "-->" not in out
    assert not re.search(r"(?<!\\)[|`*\[\]$]", out)  # every special is backslash-escaped
    assert not re.search(r"@[A-Za-z]", out)  # no live mention
    assert not re.search(r"#\d|GH-\d", out)  # no issue reference
    assert "\u202e" not in out


@pytest.mark.parametrize("text", HOSTILE)
def test_html_text_neutralises(text: str) -> None:
    out = html_text(text)
    assert "<" not in out and ">" not in out and "\n" not in out and "`" not in out
    assert not re.search(r"@[A-Za-z]", out)


def test_url_never_leaves_the_repository() -> None:
    assert url("javascript:alert(1)") == "javascript%3Aalert%281%29"
    assert url("../../etc/passwd") == "etc/passwd"
    assert url("data/gotchas/a b.json") == "data/gotchas/a%20b.json"


def test_finalize_escapes_what_a_custom_template_forgets(tmp_path: Path) -> None:
    tpl = tmp_path / "mine.md.j2"
    tpl.write_text("{{ marker }}\n{% for r in records.rows %}{{ r.id }} {{ r.unit }}\n{% endfor %}")
    report = Report(
        (RecordResult("a", "data/benchmarks/a.json", Verdict.PASS, unit="@everyone <b>|"),),
        Calibration(False, 0.1),
    )
    out = render_report(report, {}, template=tpl)
    assert out.startswith(MARKER)
    assert "@\u200beveryone &lt;b&gt;\\|" in out


def test_template_is_sandboxed(tmp_path: Path) -> None:
    tpl = tmp_path / "evil.md.j2"
    tpl.write_text("{{ ''.__class__.__mro__[1].__subclasses__() }}")
    report = Report((), Calibration(False, 0.1))
    # the sandbox refuses; the comment falls back to the built-in template and says why
    out = render_report(report, {}, template=tpl)
    assert out.startswith(MARKER + "\n> [!WARNING]\n")
    assert "SecurityError" in out and "built-in template" in out
    assert "__subclasses__" not in out.split("could not be rendered", 1)[0]


# ------------------------------------------------------------------------------ goldens


def test_golden_mpt_trio() -> None:
    out = render_repo(FIXTURES, TRIO)
    assert "batch-1-roof-on-aggregate" in out
    assert f"]({REPO_URL}/blob/{SHA}/data/gotchas/" in out  # absolute: works in the summary too
    assert "../blob/" not in out
    golden("mpt-trio.md", out)


def test_golden_violation(tmp_path: Path) -> None:
    repo = copy_fixtures(tmp_path)
    path = repo / TRIO[0]
    data = json.loads(path.read_text("utf-8"))
    data["value"] = 150.0
    path.write_text(json.dumps(data, indent=2), "utf-8")
    out = render_repo(repo, [TRIO[0]])
    assert "🟥 violation" in out and "150 tok/s is 135% of its 111.1 tok/s memory roof" in out
    golden("violation.md", out)


def test_golden_bandwidth_edit_breaks_calibration(tmp_path: Path) -> None:
    repo = copy_fixtures(tmp_path)
    path = repo / A100
    path.write_text(path.read_text("utf-8").replace('"memory_bandwidth_gbps": 1555,',
                                                   '"memory_bandwidth_gbps": 1935,'))  # fmt: skip
    changes = Changes(
        files=(FileChange("modified", A100),),
        dependents=tuple(TRIO),
        instrument=(
            InstrumentChange(
                "pin", "mpt7b-a100-bs1-per-user-decode-tps: weight_bytes", "14 GB", "13 GB"
            ),
        ),
        source="git",
    )
    out = render_repo(repo, TRIO, changes=changes)
    assert "calibration **broken**" in out
    assert "This pull request changes the instrument" in out
    golden("calibration-break.md", out)


def test_golden_hostile(tmp_path: Path) -> None:
    repo = copy_fixtures(tmp_path)
    shutil.copy(FIXTURES / "broken" / "markdown-injection.json", repo / "data" / "benchmarks")
    out = render_repo(repo, ["data/benchmarks/markdown-injection.json"])
    assert out.count("<!--") == 1 and out.startswith(MARKER)
    assert "49" not in out
    assert not re.search(r"@(everyone|maintainers)", out)
    assert "<script" not in out and "<img" not in out
    assert not re.search(r"^::", out, re.MULTILINE)
    for line in out.splitlines():
        if line.startswith("|"):  # no table row broken by a pipe from the record
            assert len(re.findall(r"(?<!\\)\|", line)) in (4, 6)
    golden("hostile.md", out)


def synthetic(n: int) -> Report:
    records = []
    for i in range(n):
        value = 40.0 + (i * 7) % 90
        verdict = Verdict.VIOLATION if i % 50 == 7 else Verdict.PASS
        if verdict is Verdict.VIOLATION:
            value = 130.0
        check = RoofCheck(CheckId.MEMORY, True, 100.0, value, f"1000 GB/s / 10 GB = 100 tok/s #{i}")
        records.append(
            RecordResult(
                id=f"gen-record-{i:04d}",
                path=f"data/benchmarks/gen-record-{i:04d}.json",
                verdict=verdict,
                status="verified",
                metric="decode_tok_s",
                value=value,
                unit="tok/s",
                inputs=(("batch", Input(1, 'methodology: "batch size 1"', Basis.TEXT)),),
                checks=(check,),
            )
        )
    cal = Calibration(True, 0.1, (CalibrationEntry("gen-record-0000", "memory-roof", 40.0, 40.0,
                                                    True),))  # fmt: skip
    return Report(tuple(records), cal)


def test_golden_300_records_fits_the_budget() -> None:
    out = render_report(synthetic(300), {}, summary_url="https://github.com/o/r/actions/runs/1")
    assert len(out) <= 60000
    assert "Left out: the arithmetic of passing and skipped records" in out
    assert "[job summary](https://github.com/o/r/actions/runs/1)" in out
    assert out.count("<details>") == 6  # the six violations keep their arithmetic
    golden("300-records.md", out)


def test_no_table_row_is_shorter_than_the_bound_a_long_report_skips_by() -> None:
    """`render_report` skips the levels that keep every row when the rows alone, at
    `MIN_ROW_CHARS` each, are over the budget: no row of the built-in template is shorter."""
    records = [RecordResult(id="", path="", verdict=v, value=0) for v in Verdict]
    records += [RecordResult(id="", path="", verdict=v, status="deprecated") for v in Verdict]
    out = render_report(Report(tuple(records), Calibration(False, 0.1)), {})
    rows = [
        line
        for line in out.splitlines(keepends=True)
        if line.startswith("| ") and line[2:3] in EMOJI.values()
    ]
    assert len(rows) == 2 * len(Verdict)
    assert min(len(row) for row in rows) == MIN_ROW_CHARS


def test_a_report_whose_rows_cannot_fit_renders_what_fits() -> None:
    for n, budget in ((2000, 60000), (3000, 20000), (12000, 60000), (50, 1000), (5, 200)):
        out = render_report(synthetic(n), {}, max_chars=budget)
        assert len(out) <= budget
        assert out.startswith(MARKER)
        if budget >= 20000:
            assert "table rows past the first" in out


def test_budget_drops_rows_last() -> None:
    out = render_report(synthetic(3000), {}, max_chars=20000)
    assert len(out) <= 20000
    assert "table rows past the first" in out
    assert "<details>" not in out


def test_the_capped_level_is_rendered_only_where_it_caps_a_list(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Once the tables alone are over the budget, the level that caps the lists at 100 is
    rendered only where a list is longer than that. Elsewhere its options change nothing:
    rendered, it gives the tables' text (with the tables' note of what was left out, since
    no list entry was), so the tables' text stands in for it, at and around the boundary."""
    from roofbot.render import markdown
    from roofbot.render.markdown import environment, levels

    def report(n: int, messages: int) -> Report:
        base = synthetic(n)
        notes = tuple(Message("warning", f"note {i}") for i in range(messages))
        return Report(base.records, base.calibration, messages=notes)

    def rendered(rep: Report, changes: Changes | None, opts: object) -> str:
        omitted = levels.TABLES[1]
        return environment.load_template().render(
            real_build(rep, {}, title="t", summary_url=None, changes=changes, links=Links(),
                       opts=opts, omitted=omitted)  # type: ignore[arg-type]
        )  # fmt: skip

    files = tuple(FileChange("modified", f"data/benchmarks/r{i}.json") for i in range(101))
    renders: list[object] = []
    real_build = markdown.build_context

    def counted(*args: object, **kw: object) -> dict[str, object]:
        renders.append(kw["opts"])
        return real_build(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(markdown, "build_context", counted)
    cases = [
        (report(400, 0), None, False),
        (report(400, 100), None, False),
        (report(400, 101), None, True),
        (report(400, 0), Changes(files=files), False),  # changed files are counted, not listed
    ]
    for rep, changes, caps in cases:
        assert levels.caps_a_list(rep, changes, levels.CAPPED[0]) is caps
        same = rendered(rep, changes, levels.CAPPED[0]) == rendered(rep, changes, levels.TABLES[0])
        assert same is not caps
        renders.clear()
        out = render_report(rep, {}, max_chars=20000, changes=changes)
        assert len(out) <= 20000 and "table rows past the first" in out
        assert levels.TABLES[0] in renders
        assert (levels.CAPPED[0] in renders) is caps


# ------------------------------------------------------------------------------ the review's parts


def test_md_code_keeps_code_spans_and_escapes_the_rest() -> None:
    from roofbot.render.markdown.escape import md_code

    out = md_code("set `accelerator_ids` for @everyone <b>#1</b> and `odd")
    assert out.startswith("set `accelerator_ids` for @\u200beveryone &lt;b&gt;#\u200b1")
    assert out.count("`") == 2  # the odd backtick opens no span
    assert md_code("remove `<img src=x>`") == "remove &lt;img src=x&gt;"  # no tag, even inert
