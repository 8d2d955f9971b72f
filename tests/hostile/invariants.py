"""What must hold after every hostile run, whatever the input: well-formed Markdown with the
marker intact, no live @mention, #ref or URL, nothing echoed raw, workflow commands that can't
be forged, nothing outside the repository read, nothing but git run, and a final status."""

from __future__ import annotations

import ast
import os
import re
import sys
from collections.abc import Iterable
from pathlib import Path

from roofbot.render.markdown.context import MARKER

ROOT = Path(__file__).resolve().parents[2]
TAGS = {"details", "summary", "sub"}  # the only HTML roofbot writes
HEADINGS = ("### ✅ roofcheck", "### ❌ roofcheck", "### ⚠️ roofcheck", "#### ")
FINAL = {"success", "failure", "error"}


def _outside_fences(text: str) -> str:
    out, fence = [], False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
            continue
        if not fence:
            out.append(line)
    assert not fence, "a code fence is never closed"
    return "\n".join(out)


def _cells(row: str) -> int:
    return len(re.findall(r"(?<!\\)\|", row))


#: A link roofbot writes to a file of the repository under test at the head commit: the path
#: percent-encoded (unreserved characters and `/` only), an optional line anchor, then the end
#: of the Markdown link and at most a table cell's or a sentence's punctuation.
FILE_LINK = re.compile(
    r"https://github\.com/octo-org/llm-roofline-records/blob/[0-9a-f]{40}/"
    r"[A-Za-z0-9._~%/-]+(?:#L\d+)?\)[|.,;:)]*$"
)


def check_markdown(text: str, *, allowed_urls: Iterable[str] = ()) -> None:
    """The comment or summary is well-formed GitHub Markdown, as roofbot writes it."""
    assert text.startswith(MARKER + "\n"), text[:200]
    assert text.count(MARKER) == 1, "the marker appears twice"
    prose = _outside_fences(text)
    assert prose.count("<!--") == 1 and prose.count("-->") == 1, "an HTML comment was forged"
    depth = 0
    for line in prose.splitlines():
        depth += len(re.findall(r"<details>", line)) - len(re.findall(r"</details>", line))
        assert depth >= 0, "</details> before its <details>"
        assert line.count("<summary>") == line.count("</summary>"), line
        if line.startswith("#"):
            assert line.startswith(HEADINGS), f"a heading roofbot did not write: {line[:120]!r}"
    assert depth == 0, "a <details> block is not closed"
    for name in re.findall(r"<\s*/?\s*([A-Za-z][A-Za-z0-9-]*)", prose):
        assert name.lower() in TAGS, f"raw HTML <{name}>"
    rows = prose.splitlines()
    for i, line in enumerate(rows):
        if line.startswith("|") and (i == 0 or not rows[i - 1].startswith("|")):
            width = _cells(line)
            j = i
            while j < len(rows) and rows[j].startswith("|"):
                assert _cells(rows[j]) == width, f"a table row has other cells: {rows[j][:160]!r}"
                j += 1
    assert not re.search(r"@(?=[A-Za-z0-9])", text), "a live @mention"
    assert not re.search(r"(?<!&)#(?=\d)|GH-(?=\d)", text, re.IGNORECASE), "a live #reference"
    urls = re.findall(r"[A-Za-z]+://\S*|www\.\S*", text, re.IGNORECASE)
    allowed = tuple(allowed_urls)
    for u in urls:
        if FILE_LINK.match(u):  # roofbot's own link to a file at the head: a hostile name
            continue  # in it is percent-encoded, never a URL of the contributor's choosing
        assert u.startswith(allowed) if allowed else False, f"a live URL {u[:100]!r}"
    assert not re.search("[\u0000-\u0008\u000b\u000c\u000e-\u001f\u202a-\u202e\u2066-\u2069]", text)


def check_raw_absent(texts: Iterable[str], needles: Iterable[str]) -> None:
    for text in texts:
        for needle in needles:
            assert needle not in text, f"{needle!r} echoed raw"


def check_stdout(stdout: str) -> None:
    """Every line is roofbot's log line or one of its annotations: no forged command."""
    for line in stdout.splitlines():
        ok = line.startswith("roofbot: ") or re.match(r"::(error|warning|notice)[ :]", line)
        assert ok, f"a log line roofbot did not write: {line[:160]!r}"
        assert "\r" not in line


def check_statuses(statuses: list[dict[str, object]]) -> None:
    """Never left pending: the last roofcheck status (if any could be set) is final."""
    mine = [s for s in statuses if str(s.get("context")).startswith("roofcheck")]
    if mine:
        assert mine[-1]["state"] in FINAL, [s["state"] for s in mine]


def allowed_roots(workspace: Path, files: Iterable[Path]) -> tuple[list[str], set[str]]:
    roots = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    roots |= {os.path.realpath(ROOT / "roofbot"), os.path.realpath(ROOT / "templates")}
    roots.add(os.path.realpath(workspace))
    return sorted(roots), {os.path.realpath(f) for f in files} | {"/dev/null"}


def check_audit(log: Path, workspace: Path, files: Iterable[Path]) -> None:
    """Every file opened or folder listed is inside the repository (links resolved), the
    Python installation, roofbot itself, or the runner's files; only git was run."""
    roots, exact = allowed_roots(workspace, files)
    bad = []
    for entry in log.read_text("utf-8").splitlines():
        event, _, raw = entry.partition("\t")
        value = ast.literal_eval(raw)
        if event == "exec":
            name = os.path.basename(value if isinstance(value, str) else str(value))
            assert name == "git", f"roofbot ran {value!r}"
            continue
        real = os.path.realpath(value)
        if real in exact or any(real == r or real.startswith(r + os.sep) for r in roots):
            continue
        bad.append(f"{event} {value} -> {real}")
    assert not bad, "read outside the repository:\n" + "\n".join(bad[:20])
