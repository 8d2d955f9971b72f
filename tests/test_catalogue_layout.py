"""A repository whose catalogue lives where its `.roofbot.yml` says, not in data/: the report
names the files the catalogue records were read from (provenance), and judges as it would with
the default layout."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES

from roofbot.adapters.repo import Repository
from roofbot.core.results import Report
from roofbot.engine import run_check

MOVED = {  # the default layout's folder -> where this repository keeps it
    "data/accelerators": "hardware/gpus",
    "data/models": "hardware/llms",
    "data/quantization": "hardware/formats",
}
JSON_FILE = re.compile(r"[\w./-]+\.json")


@pytest.fixture(scope="module")
def moved_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixtures repository with its catalogue moved under hardware/, globs to match."""
    root = tmp_path_factory.mktemp("layout") / "repo"
    shutil.copytree(FIXTURES, root)
    config = (root / ".roofbot.yml").read_text(encoding="utf-8")
    for old, new in MOVED.items():
        (root / new).parent.mkdir(parents=True, exist_ok=True)
        (root / old).rename(root / new)
        assert f'["{old}/*.json"]' in config
        config = config.replace(f'["{old}/*.json"]', f'["{new}/*.json"]')
    (root / ".roofbot.yml").write_text(config, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def moved_report(moved_root: Path) -> Report:
    return run_check(Repository.open(moved_root))


def sources(report: Report) -> dict[str, list[tuple[str, str]]]:
    return {r.path: [(name, i.source) for name, i in r.inputs] for r in report.records}


def test_provenance_names_the_files_the_catalogue_was_read_from(
    moved_root: Path, moved_report: Report
) -> None:
    named = [
        (path, m[0])
        for path, inputs in sources(moved_report).items()
        for _, source in inputs
        for m in JSON_FILE.finditer(source)
    ]
    catalogue = [f for _, f in named if f.startswith("hardware/")]
    assert {f.split("/")[1] for f in catalogue} == {"gpus", "llms", "formats"}
    missing = sorted({(p, f) for p, f in named if not (moved_root / f).is_file()})
    assert missing == []


def test_the_moved_catalogue_judges_as_the_default_one(
    moved_report: Report, fixtures_report: Report
) -> None:
    def moved(text: str) -> str:
        for old, new in MOVED.items():
            text = text.replace(f"{old}/", f"{new}/")
        return text

    expected = {
        path: [(name, moved(source)) for name, source in inputs]
        for path, inputs in sources(fixtures_report).items()
    }
    assert sources(moved_report) == expected
    assert [(r.path, r.verdict) for r in moved_report.records] == [
        (r.path, r.verdict) for r in fixtures_report.records
    ]


def test_a_check_on_an_invalid_moved_part_names_its_file(moved_root: Path, tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shutil.copytree(moved_root, root)
    part = root / "hardware/gpus/nvidia-a100-40gb-sxm4.json"
    part.write_text(part.read_text(encoding="utf-8").replace("{", '{"colour": "green",', 1))
    report = run_check(
        Repository.open(root), ["data/benchmarks/mpt7b-a100-bs1-per-user-decode-tps.json"]
    )
    (record,) = [r for r in report.records if r.id == "mpt7b-a100-bs1-per-user-decode-tps"]
    assert [m.text.split(",")[0] for m in record.messages if "rests on" in m.text] == [
        "rests on hardware/gpus/nvidia-a100-40gb-sxm4.json"
    ]
