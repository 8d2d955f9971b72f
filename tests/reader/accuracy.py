"""Scoring the reader against the expert labels in `labels/`: for each labelled record, which
inputs, traps and verdict roofbot reads as the expert did.

Run as `python -m tests.reader.accuracy [RECORDS_REPO]` for the table of every miss."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from roofbot.core.results import RecordResult

LABELS = Path(__file__).resolve().parent / "labels"
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


def main(argv: list[str]) -> int:
    from roofbot.adapters.repo import Repository
    from roofbot.engine import run_check

    repo = (
        Path(argv[0]) if argv else Path(__file__).resolve().parents[3] / "shared" / "records-repo"
    )
    report = run_check(Repository.open(repo), calibration=False)
    by_id = {r.id: r for r in report.records}
    scores = [score(lab, by_id[lab["id"]]) for lab in labels() if lab["id"] in by_id]
    known = disagreements()
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
    print(summary(scores))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
