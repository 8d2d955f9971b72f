"""The reader's corpus of public statements (`corpus/`): its shape, and the test half frozen.

The test half was labelled and frozen before any reader change for it: `corpus/test.sha256`
holds each of its files' sha256, and any change fails here. The dev half (`corpus/dev/`) may be
absent in a checkout; its tests then skip, and the shared checks run on what is present."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from roofbot.adapters.repo import Repository
from tests.conftest import REAL
from tests.reader.accuracy import INPUTS

CORPUS = Path(__file__).resolve().parent / "corpus"
FROZEN = CORPUS / "test.sha256"
KINDS = ("llamacpp", "serving", "mlperf", "vendor", "community", "non-english")
PREFIX = {"test": "ct-", "dev": "cd-"}
PER_KIND = 20


def items(half: str) -> list[tuple[str, dict[str, Any]]]:
    """(file name, item) for every item of a half, in file order."""
    return [
        (p.name, item)
        for p in sorted((CORPUS / half).glob("*.json"))
        for item in json.loads(p.read_text(encoding="utf-8"))
    ]


def halves() -> list[str]:
    return [h for h in PREFIX if (CORPUS / h).is_dir() and any((CORPUS / h).glob("*.json"))]


def frozen() -> dict[str, str]:
    """path (relative to corpus/) -> sha256, from test.sha256."""
    out = {}
    for line in FROZEN.read_text(encoding="utf-8").splitlines():
        digest, path = line.split(maxsplit=1)
        out[path.strip()] = digest
    return out


def test_the_test_half_is_frozen() -> None:
    want = frozen()
    have = {f"test/{p.name}" for p in (CORPUS / "test").glob("*.json")}
    assert have == set(want), (
        f"the test half is frozen: files added or removed ({sorted(have ^ set(want))}); "
        "it was labelled before the reader changed and must not be edited"
    )
    changed = [
        path
        for path, digest in want.items()
        if hashlib.sha256((CORPUS / path).read_bytes()).hexdigest() != digest
    ]
    assert not changed, (
        f"the test half is frozen: {changed} changed since it was labelled; a reader change "
        "that needs a test label changed is a finding to write down, not an edit to make"
    )


@pytest.mark.parametrize("half", list(PREFIX))
def test_every_kind_is_present_with_enough_items(half: str) -> None:
    if half not in halves():
        pytest.skip(f"the {half} half is not in this checkout yet")
    counts = {k: 0 for k in KINDS}
    for name, item in items(half):
        kind = item["source"]["kind"]
        assert name == f"{kind}.json", f"{half}/{name}: an item of kind {kind!r}"
        assert kind in counts, f"{half}/{name}: unknown kind {kind!r}"
        counts[kind] += 1
    short = {k: n for k, n in counts.items() if n < PER_KIND}
    assert not short, f"{half} half: kinds under {PER_KIND} items: {short}"


def test_the_test_half_has_at_least_150_items() -> None:
    assert len(items("test")) >= 150


def test_ids_are_unique_and_prefixed_by_their_half() -> None:
    seen: dict[str, str] = {}
    for half in halves():
        for name, item in items(half):
            rid = item["record"]["id"]
            assert rid.startswith(PREFIX[half]), f"{half}/{name}: {rid} lacks {PREFIX[half]}"
            assert item["label"]["id"] == rid, f"{half}/{name}: label id differs from {rid}"
            assert rid not in seen, f"{rid} appears in {seen[rid]} and {half}/{name}"
            seen[rid] = f"{half}/{name}"


def test_every_item_names_its_source_and_every_label_is_complete() -> None:
    for half in halves():
        for name, item in items(half):
            where = f"{half}/{name}: {item['record']['id']}"
            assert set(item) == {"source", "record", "label"}, where
            assert item["source"]["where"] and item["source"]["said"], where
            label = item["label"]
            missing = set(INPUTS) - set(label["inputs"])
            assert not missing, f"{where}: label lacks {sorted(missing)}"
            for name_, spec in label["inputs"].items():
                assert "value" in spec and "quote" in spec, f"{where}: {name_}"
            assert label["inputs"]["count"].get("basis") in ("stated", "assumed"), where
            for name_ in ("compute_precision", "weight_bytes"):  # a basis for a known value
                spec = label["inputs"][name_]
                assert spec["value"] is None or spec.get("basis"), f"{where}: {name_} basis"
            assert label["verdicts"], f"{where}: no accepted verdict"
            assert isinstance(label["traps"], list) and "open" in label, where


@pytest.fixture(scope="module")
def schema() -> Any:
    path = REAL / "schemas" / "benchmark.schema.json"
    if not path.is_file():
        pytest.skip(
            f"no records repository at {REAL} (set ROOFBOT_RECORDS_REPO to a copy of one); "
            "the corpus's schema checks skipped"
        )
    return json.loads(path.read_text(encoding="utf-8"))


def test_every_record_validates_against_the_users_benchmark_schema(schema: Any) -> None:
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema)
    bad = {
        f"{half}/{name}: {item['record'].get('id')}": [
            e.message for e in validator.iter_errors(item["record"])
        ]
        for half in halves()
        for name, item in items(half)
        if not validator.is_valid(item["record"])
    }
    assert not bad, bad


def test_every_catalogue_reference_exists_in_the_users_catalogue(schema: Any) -> None:
    data = REAL / "data"
    parts = {p.stem for p in (data / "accelerators").glob("*.json")}
    formats = {p.stem for p in (data / "quantization").glob("*.json")}
    for half in halves():
        for name, item in items(half):
            rec, where = item["record"], f"{half}/{name}: {item['record']['id']}"
            assert set(rec.get("accelerator_ids") or ()) <= parts, where
            assert rec.get("format_id") in formats | {None}, where
            part = item["label"]["inputs"]["part"]
            for value in (part["value"], *part.get("also_accept", ())):
                assert value is None or value in parts, f"{where}: label part {value}"


def test_the_accuracy_prints_three_figures_and_reads_every_corpus_record(
    real_repo: Repository, capsys: pytest.CaptureFixture[str]
) -> None:
    """No floor yet: the figures are printed (`-s`), and every corpus record is read as a
    record of the users' repository (none is an `error`), so each label is scored."""
    from tests.reader.accuracy import corpus_items, figures, report_lines

    scored = figures(real_repo)
    lines = report_lines(scored)
    with capsys.disabled():
        print("\n" + "\n".join(lines))
    assert len(lines) == 3 and "the figure that counts" in lines[2]
    for half in ("dev", "test"):
        assert len(scored[half]) == len(corpus_items(half))
        errors = [s.id for s in scored[half] if s.verdict and s.verdict[1] == "error"]
        assert not errors, f"{half} records read as errors: {errors}"
    assert len(scored["users"]) == 87
