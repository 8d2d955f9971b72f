"""Scoring the reader against expert labels: for each labelled record, which inputs, traps and
verdict roofbot reads as the expert did. Three sets are scored: the users' corpus (`labels/`,
the token-rate records of the records repository), and the two halves of the corpus of public
statements (`corpus/dev/`, `corpus/test/`), whose records are checked against the users'
catalogue.

Run as `python -m tests.reader.accuracy [RECORDS_REPO] [--misses]`: three figures, the test
half's the one that counts; `--misses` lists every miss first."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from roofbot.core.results import RecordResult

if TYPE_CHECKING:
    from roofbot.adapters.repo import Repository

LABELS = Path(__file__).resolve().parent / "labels"
CORPUS = Path(__file__).resolve().parent / "corpus"
HALVES = ("dev", "test")
DISAGREEMENTS = Path(__file__).resolve().parent / "disagreements.json"
INPUTS = (
    "rate", "part", "count", "parallelism", "bandwidth_gbps", "compute_precision", "batch",
    "params_b", "active_params_b", "weight_bytes", "speculative",
)  # fmt: skip
_RATE = {"per-sequence": "per_sequence", "aggregate": "aggregate", "prefill": "prefill"}
_TWINS = {"bf16": "fp16", "fp4_block_scaled": "fp4"}
_CLOSE = {"bandwidth_gbps": 0.01, "params_b": 0.02, "active_params_b": 0.02, "weight_bytes": 0.02}


def labels() -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(LABELS.glob("*.json"))]


def disagreements() -> dict[str, dict[str, Any]]:
    """Where roofbot's reading and the label differ on purpose: record id -> the misses it
    covers ("count", "count basis", "trap:<id>", "verdict") and the reason."""
    return dict(json.loads(DISAGREEMENTS.read_text()))


def read_as(result: RecordResult) -> dict[str, Any]:
    """What roofbot read of a record, in the labels' terms."""
    got = dict(result.inputs)

    def value(name: str) -> Any:
        i = got.get(name)
        return None if i is None else i.value

    precision = value("compute_precision") if value("peak_tflops") is not None else None
    return {
        "rate": _RATE.get(getattr(value("rate"), "value", "")),
        "part": value("part"),
        "count": value("count"),
        "count_assumed": bool(got.get("count") and got["count"].assumed),
        "parallelism": value("parallelism"),
        "bandwidth_gbps": value("bandwidth_gbps"),
        "compute_precision": precision,
        "batch": value("batch"),
        "params_b": value("params_b"),
        "active_params_b": value("active_params_b"),
        "weight_bytes": value("weight_bytes"),
        "speculative": value("speculative") is not None,
    }


def _same(name: str, want: Any, got: Any) -> bool:
    if want is None or got is None:
        return want is None and got is None
    if name in _CLOSE:
        return abs(float(got) - float(want)) <= _CLOSE[name] * abs(float(want))
    if name == "compute_precision":
        return _TWINS.get(str(got), str(got)) == _TWINS.get(str(want), str(want))
    return bool(got == want)


@dataclass
class Score:
    """One record's score: the inputs read wrong (name -> (expert, roofbot)), traps missed."""

    id: str
    wrong: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    missed_traps: tuple[str, ...] = ()
    verdict: tuple[tuple[str, ...], str] | None = None  # (accepted, got) when not accepted
    open: str | None = None

    @property
    def right(self) -> bool:
        return not self.misses()

    def misses(self) -> set[str]:
        """Every miss, named as a disagreement names it."""
        out = set(self.wrong) | {f"trap:{t}" for t in self.missed_traps}
        return out | ({"verdict"} if self.verdict else set())

    def explained(self, covered: dict[str, Any] | None) -> bool:
        """Every miss is an open label or a disagreement written down with its reason."""
        return bool(self.open) or (covered is not None and self.misses() <= set(covered["covers"]))


def score(label: Mapping[str, Any], result: RecordResult) -> Score:
    got = read_as(result)
    out = Score(label["id"], open=label.get("open"))
    verdict = result.verdict.value
    accepted = tuple(label.get("verdicts") or ())
    if verdict in ("error", "skipped"):
        # nothing was read: only the verdict can be scored
        if verdict not in accepted:
            out.verdict = (accepted, verdict)
        return out
    for name in INPUTS:
        spec = label["inputs"].get(name) or {}
        wants = [spec.get("value"), *spec.get("also_accept", ())]
        if not any(_same(name, w, got[name]) for w in wants):
            out.wrong[name] = (spec.get("value"), got[name])
        if name == "count" and name not in out.wrong:
            assumed = spec.get("basis") == "assumed"
            if assumed != got["count_assumed"] and not spec.get("also_accept"):
                out.wrong["count basis"] = (
                    spec.get("basis"),
                    "assumed" if got["count_assumed"] else "stated",
                )
    out.missed_traps = tuple(t for t in label.get("traps") or () if t not in result.traps)
    if verdict not in accepted:
        out.verdict = (accepted, verdict)
    return out


def summary(scores: Iterable[Score]) -> str:
    scores = list(scores)
    inputs = sum(len(INPUTS) for _ in scores)
    wrong = sum(len(s.wrong) for s in scores)
    right = sum(s.right for s in scores)
    return (
        f"reader accuracy: {right} of {len(scores)} records fully right; "
        f"{inputs - wrong} of {inputs} inputs right ({100 * (inputs - wrong) / max(inputs, 1):.1f}%); "
        f"{sum(bool(s.missed_traps) for s in scores)} records miss a trap; "
        f"{sum(s.verdict is not None for s in scores)} verdicts outside the expert's"
    )


def figure(scores: Iterable[Score]) -> str:
    """Records fully right and inputs right, as "N of M"."""
    scores = list(scores)
    inputs = len(INPUTS) * len(scores)
    wrong = sum(len(s.wrong) for s in scores)
    return (
        f"{sum(s.right for s in scores)} of {len(scores)} records fully right, "
        f"{inputs - wrong} of {inputs} inputs right"
    )


def corpus_items(half: str) -> list[dict[str, Any]]:
    """Every item (source, record, label) of one half of the corpus, in file order."""
    return [
        item
        for path in sorted((CORPUS / half).glob("*.json"))
        for item in json.loads(path.read_text(encoding="utf-8"))
    ]


def records_repo(argv: list[str]) -> Path:
    """The users' records repository: the argument, ROOFBOT_RECORDS_REPO, or the copy beside
    the checkout."""
    if argv:
        return Path(argv[0])
    env = os.environ.get("ROOFBOT_RECORDS_REPO")
    return Path(env) if env else Path(__file__).resolve().parents[3] / "shared" / "records-repo"


def score_users_corpus(repo: Repository) -> list[Score]:
    from roofbot.engine import run_check

    report = run_check(repo, calibration=False)
    by_id = {r.id: r for r in report.records}
    return [score(lab, by_id[lab["id"]]) for lab in labels() if lab["id"] in by_id]


def score_half(repo: Repository, half: str) -> list[Score]:
    """Each item's record read and checked as if it were a file of the users' repository
    (schema, catalogue, config), then scored against its label."""
    from roofbot.engine import check_bytes

    catalogue = repo.catalogue()
    out = []
    for item in corpus_items(half):
        record = item["record"]
        raw = json.dumps(record).encode()
        path = f"data/benchmarks/{record['id']}.json"
        out.append(score(item["label"], check_bytes(repo, catalogue, path, raw, lambda _id: None)))
    return out


def print_misses(scores: Iterable[Score], known: Mapping[str, Any]) -> None:
    for s in scores:
        if not s.right:
            tag = (
                " [open]" if s.open else (" [disagreement]" if s.explained(known.get(s.id)) else "")
            )
            print(f"{s.id}{tag}")
            for name, (want, got) in s.wrong.items():
                print(f"    {name}: expert {want!r}, roofbot {got!r}")
            if s.missed_traps:
                print(f"    traps missed: {', '.join(s.missed_traps)}")
            if s.verdict:
                print(f"    verdict: expert {'/'.join(s.verdict[0])}, roofbot {s.verdict[1]}")


def figures(repo: Repository) -> dict[str, list[Score]]:
    """The three scored sets: "users", "dev" (empty where the half is absent) and "test"."""
    return {"users": score_users_corpus(repo), **{h: score_half(repo, h) for h in HALVES}}


def report_lines(scored: Mapping[str, list[Score]]) -> list[str]:
    known = disagreements()
    explained = sum(not s.right and s.explained(known.get(s.id)) for s in scored["users"])
    return [
        f"users' corpus:     {figure(scored['users'])} "
        f"({explained} of the misses written down in disagreements.json or open)",
        f"development half:  {figure(scored['dev'])}",
        f"test half:         {figure(scored['test'])}   <- the figure that counts",
    ]


def main(argv: list[str]) -> int:
    from roofbot.adapters.repo import Repository

    misses = "--misses" in argv
    repo = Repository.open(records_repo([a for a in argv if a != "--misses"]))
    scored = figures(repo)
    if misses:
        known = disagreements()
        for name, scores in scored.items():
            print(f"== {name}")
            print_misses(scores, known if name == "users" else {})
    print("\n".join(report_lines(scored)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
