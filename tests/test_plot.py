"""`roofbot plot`: the corpus chart and the batch sweep, written as real PNG and SVG files by
the real CLI, and the numbers they draw (the seed's B* = 23283.58 / 111.07 = 209.6)."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import FIXTURES, by_id

from roofbot.core.results import RateKind, Report
from roofbot.plot import points, sweep

pytest.importorskip("matplotlib", reason="matplotlib is not installed: pip install -e '.[plot]'")

AGG = "mpt7b-a100-bs64-aggregate-output-tps"


def roofbot(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "roofbot", *args],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


def svg_text(path: Path) -> str:
    root = ET.parse(path).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    return " ".join(t.strip() for t in root.itertext() if t.strip())


def test_plot_writes_the_corpus_chart_and_a_sweep(tmp_path: Path) -> None:
    out = roofbot("plot", "--repo", str(FIXTURES), "--out", str(tmp_path), "--record", AGG)
    assert out.returncode == 0, out.stderr
    written = {Path(line).name for line in out.stdout.split()}
    assert written == {"roofline.png", "roofline.svg", f"sweep-{AGG}.png", f"sweep-{AGG}.svg"}
    w, h = png_size(tmp_path / "roofline.png")
    assert w > 600 and h > 400
    corpus = svg_text(tmp_path / "roofline.svg")
    assert "calibration record" in corpus and "100% of the roof" in corpus
    assert "local-rtx-pro-6000-70b-q8-decode" in corpus  # labelled, a small corpus
    assert "28 checked of 30 token-rate records; 6 violation" in corpus
    swept = svg_text(tmp_path / f"sweep-{AGG}.svg")
    for words in ("batch-1 memory roof 111.1 tok/s", "compute roof 23,284 tok/s", "B* = 210",
                  "batched memory roof B x 111.1 tok/s", "11.3% of its batched-memory-roof"):  # fmt: skip
        assert words in swept, words
    png_size(tmp_path / f"sweep-{AGG}.png")


def test_one_format_only(tmp_path: Path) -> None:
    out = roofbot("plot", "--repo", str(FIXTURES), "--out", str(tmp_path), "--image-format", "svg")
    assert out.returncode == 0 and sorted(p.name for p in tmp_path.iterdir()) == ["roofline.svg"]


def test_a_record_with_no_roof_or_no_record_is_a_usage_error(tmp_path: Path) -> None:
    for rid, says in (("local-8gb-7b-q4-decode", "no roof could be computed"),
                      ("no-such-record", "no benchmark record")):  # fmt: skip
        out = roofbot("plot", "--repo", str(FIXTURES), "--out", str(tmp_path), "--record", rid)
        assert out.returncode == 2 and says in out.stderr and "Traceback" not in out.stderr


def test_a_wrong_record_id_fails_before_anything_is_drawn(tmp_path: Path) -> None:
    """An unknown --record is found missing first: nothing written, no matplotlib imported
    (the whole corpus used to be checked and drawn before the id was looked up)."""
    code = (
        "import sys\nfrom roofbot.cli import main\n"
        f"rc = main(['plot', '--repo', {str(FIXTURES)!r}, '--out', {str(tmp_path)!r}, "
        "'--record', 'mpt7b-a100-bs64-aggregate-output-tp'])\n"
        "print('matplotlib' in sys.modules); sys.exit(rc)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=False)  # fmt: skip
    assert out.returncode == 2, out.stderr
    assert "did you mean mpt7b-a100-bs64-aggregate-output-tps" in out.stderr
    assert out.stdout.strip() == "False"
    assert list(tmp_path.iterdir()) == []


def test_the_default_out_folder_is_outside_the_records_repository(tmp_path: Path) -> None:
    import os
    import shutil

    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES, repo, ignore=shutil.ignore_patterns("broken"))
    temp = tmp_path / "temp"
    temp.mkdir()
    out = subprocess.run(
        [sys.executable, "-m", "roofbot", "plot", "--image-format", "svg",
         "data/benchmarks/mpt7b-a100-bs1-per-user-decode-tps.json"],
        cwd=repo, env={**os.environ, "TMPDIR": str(temp)},
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [str(temp / "roofbot-plots" / "roofline.svg")]
    assert not (repo / "roofbot-plots").exists()


def test_without_matplotlib_it_says_which_extra_to_install(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['matplotlib'] = None; sys.modules['matplotlib.figure'] = None\n"
        "from roofbot.cli import main\n"
        f"sys.exit(main(['plot', '--repo', {str(FIXTURES)!r}, '--out', {str(tmp_path)!r}]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=False)  # fmt: skip
    assert out.returncode == 2 and "pip install 'roofbot[plot]'" in out.stderr


def test_the_sweep_numbers_are_the_seeds(fixtures_report: Report) -> None:
    agg = sweep(by_id(fixtures_report, AGG))
    assert agg.memory == pytest.approx(111.07, abs=0.01)
    assert agg.compute == pytest.approx(23283.58, abs=0.01)
    assert agg.b_star == pytest.approx(23283.58 / 111.07, rel=1e-3)
    assert agg.point == (64.0, 800.0) and agg.rate is RateKind.AGGREGATE
    per_user = sweep(by_id(fixtures_report, "mpt7b-a100-bs64-per-user-decode-tps"))
    assert per_user.point == (64.0, 800.0)  # 12.5 per user x 64 = the same 800 aggregate
    bs1 = sweep(by_id(fixtures_report, "mpt7b-a100-bs1-per-user-decode-tps"))
    assert bs1.point == (1.0, 57.6)
    offline = sweep(by_id(fixtures_report, "bench-mlperf-v6-1-amd-mi355x-llama2-70b-offline"))
    assert offline.point is None and offline.line is not None  # batch unknown: a level


def test_corpus_points(fixtures_report: Report) -> None:
    cal = ["mpt7b-a100-bs1-per-user-decode-tps", "comm-5090-wsl2-qwen3-14b-awq-decode-tok-s"]
    pts = points(fixtures_report, cal)
    assert len(pts) == fixtures_report.checked
    assert [p.percent for p in pts] == sorted(p.percent for p in pts)
    assert {p.id for p in pts if p.calibration} == set(cal)
    worst = pts[-1]
    assert worst.id == "local-rtx-pro-6000-70b-q8-decode" and worst.deprecated
    assert worst.percent == pytest.approx(230.09, abs=0.01)


def test_version_imports_no_heavy_module() -> None:
    code = (
        "import sys\nfrom roofbot.cli import main\n"
        "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('matplotlib', 'jinja2', 'github', 'jsonschema') if m in sys.modules]\n"
        "print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True)  # fmt: skip
    assert out.stdout.strip().endswith("[]"), out.stdout
