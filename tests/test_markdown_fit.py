"""Shortening the comment never breaks it: cuts fall between blocks (never inside a
`<details>` element, a code fence or a table), long lists are capped with a count, and issue
references are neutralised however they are written."""

from __future__ import annotations

import re

from roofbot.core.changes import Changes, FileChange, InstrumentChange
from roofbot.core.results import Calibration, Message, RecordResult, Report, Verdict
from roofbot.render.markdown import render_report
from roofbot.render.markdown.context import MARKER
from roofbot.render.markdown.escape import html_text, md
from roofbot.render.markdown.fit import cut_points, fit


def _balanced(text: str) -> None:
    assert text.startswith(MARKER + "\n")
    assert text.count("<details>") == text.count("</details>")
    assert text.count("<summary>") == text.count("</summary>")
    assert sum(1 for line in text.splitlines() if line.startswith("```")) % 2 == 0


def _doc() -> str:
    parts = [MARKER, "### title", ""]
    for i in range(40):
        parts += [f"<details><summary>record {i}</summary>", "", "| a | b |", "|---|---|"]
        parts += [f"| {j} | {'x' * 50} |" for j in range(10)]
        parts += ["", "```mermaid", "xychart-beta", "```", "", "</details>", ""]
    return "\n".join(parts) + "\n"


def test_fit_cuts_only_between_blocks() -> None:
    text = _doc()
    for limit in (200, 700, 1500, 5000, 20000):
        out = fit(text, limit, "https://github.com/o/r/actions/runs/1")
        assert len(out) <= limit
        _balanced(out)
        assert "Cut here to fit GitHub's limit" in out
        assert "[job summary](https://github.com/o/r/actions/runs/1)" in out
    assert fit(text, len(text)) == text


def test_cut_points_skip_details_fences_and_tables() -> None:
    text = _doc()
    for point in cut_points(text):
        _balanced(text[:point] if text[:point].startswith(MARKER) else MARKER + "\n")
        before = text[:point].splitlines()
        after = text[point:].splitlines()
        assert not (before and after and before[-1].startswith("|") and after[0].startswith("|"))


def test_long_lists_are_capped_with_a_count() -> None:
    files = tuple(FileChange("added", f"data/benchmarks/r{i:05d}.json") for i in range(3500))
    pins = tuple(
        InstrumentChange("pin", f"other-{i}: weight_bytes", None, "1 GB") for i in range(400)
    )
    hiding = InstrumentChange("pin", "hidden-one: bandwidth_gbps", None, "99999")
    notes = tuple(Message("warning", f"catalogue note {i} " + "y" * 80) for i in range(2000))
    report = Report(
        (RecordResult("hidden-one", "data/benchmarks/hidden-one.json", Verdict.PASS, pinned=True),),
        Calibration(False, 0.1),
        messages=notes,
    )
    out = render_report(
        report, {}, changes=Changes(files, (), (*pins, hiding), "git"), max_chars=60000
    )
    assert len(out) <= 60000
    _balanced(out)
    assert "more changes to the instrument" in out and "more (see the job summary)" in out
    assert "hidden-one: bandwidth\\_gbps" in out  # the pin on a reported record stays
    assert "| hidden-one (pinned) |" in out  # no repository given: named, not linked
    assert "data/benchmarks/r00001.json" not in out  # changed files are counted, not listed


def test_references_are_neutralised_in_every_spelling() -> None:
    for text in ("#1", "owner/repo#12", "x#3", "GH-4", "gh-5", "see(#6)"):
        assert not re.search(r"#\d|GH-\d", md(text), re.IGNORECASE), text
    for text in ("https://github.com/o/r/issues/1", "www.github.com/o/r/pull/2", "HTTP://x"):
        assert "://" not in md(text) and "www." not in md(text).lower(), text
        assert "://" not in html_text(text), text
    assert html_text("a|b") == "a&#124;b"  # our own entities stay whole
    assert html_text("&#124;") == "&amp;#\u200b124;"  # a record's stay inert
