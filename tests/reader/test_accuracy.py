"""The reader scored against expert labels of every token-rate record of the users' corpus.

Each label in `labels/` was written by reading the record, never by running roofbot. Every
miss must be an open label or a disagreement written down, with its reason, in
`disagreements.json`; the score is printed with `pytest -s` (and in the summary's `-rA`)."""

from __future__ import annotations

import json

import pytest

from roofbot.adapters.repo import Repository
from roofbot.core.results import RecordResult
from tests.reader.accuracy import INPUTS, LABELS, disagreements, labels, score, summary


@pytest.fixture(scope="module")
def results(real_repo: Repository) -> dict[str, RecordResult]:
    from roofbot.engine import run_check

    return {r.id: r for r in run_check(real_repo, calibration=False).records}


def test_every_token_rate_record_of_the_corpus_has_a_label(
    results: dict[str, RecordResult],
) -> None:
    rate_ids = {
        i
        for i, r in results.items()
        if r.metric in ("tok_s_per_user", "decode_tok_s", "tps_aggregate", "prefill_tok_s")
    }
    labelled = {lab["id"] for lab in labels()}
    assert rate_ids <= labelled, sorted(rate_ids - labelled)
    assert len(labelled) == 87


def test_every_label_is_complete() -> None:
    for path in LABELS.glob("*.json"):
        lab = json.loads(path.read_text())
        assert lab["id"] == path.stem
        assert set(INPUTS) <= set(lab["inputs"]), path.name
        assert lab["verdicts"], path.name


def test_every_disagreement_names_a_label_and_gives_its_reason() -> None:
    ids = {lab["id"] for lab in labels()}
    for rid, d in disagreements().items():
        assert rid in ids and d["covers"] and len(d["reason"]) > 40, rid


def test_the_reader_reads_every_labelled_record_as_the_expert_did(
    results: dict[str, RecordResult], capsys: pytest.CaptureFixture[str]
) -> None:
    known = disagreements()
    scores = [score(lab, results[lab["id"]]) for lab in labels()]
    with capsys.disabled():
        print("\n" + summary(scores))
    unexplained = {
        s.id: sorted(s.misses()) for s in scores if not s.right and not s.explained(known.get(s.id))
    }
    assert not unexplained, unexplained
    stale = [rid for rid, d in known.items() if next(s for s in scores if s.id == rid).right]
    assert not stale, f"disagreements no longer needed: {stale}"
