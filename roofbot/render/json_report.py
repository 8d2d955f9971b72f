"""The JSON report, exactly as contract section 7 names its keys (keys may be added)."""

from __future__ import annotations

import codecs
import io
import json
import shutil
import tempfile
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import IO, Any, NamedTuple, TextIO

from roofbot import __version__
from roofbot.core.provenance import Input
from roofbot.core.results import (
    Calibration,
    Message,
    RecordResult,
    Report,
    RoofCheck,
    Verdict,
    fails,
    is_token_rate,
)
from roofbot.render.findings import record_fix
from roofbot.render.json_text import input_value, record_text, rounded


def input_json(i: Input[Any]) -> dict[str, Any]:
    return {"value": input_value(i.value), "from": i.source, "basis": i.basis.value}


def check_json(c: RoofCheck) -> dict[str, Any]:
    out: dict[str, Any] = {
        "check": c.check.value,
        "applies": c.applies,
        "ceiling": rounded(c.ceiling),
        "value": rounded(c.value, 6),
        "percent": rounded(c.percent),
        "formula": c.formula,
    }
    if c.why:
        out["why"] = c.why
    if c.assumed:
        out["assumed"] = list(c.assumed)
    if c.alternatives:
        out["alternatives"] = [
            {"reading": label, "ceiling": rounded(x), "percent": rounded(100 * c.value / x)}
            for label, x in c.alternatives
        ]
    return out


def record_json(r: RecordResult, gotchas: dict[str, str | None]) -> dict[str, Any]:
    binding = r.binding()
    return {
        "id": r.id,
        "path": r.path,
        "status": r.status,
        "verdict": r.verdict.value,
        "deprecated": r.deprecated,
        "metric": r.metric,
        "value": rounded(r.value, 6) if r.value is not None else None,
        "unit": r.unit,
        "inputs": {name: input_json(i) for name, i in r.inputs},
        "checks": [check_json(c) for c in r.checks],
        "binding": binding.check.value if binding else None,
        "traps": list(r.traps),
        "trap_details": [
            {"trap": t, "why": why, "gotcha": gotchas.get(t)} for t, why in r.trap_notes
        ],
        "messages": [m.text for m in r.messages],
        "lacks": list(r.lacks),
        "pinned": r.pinned,
        "fix": record_fix(r),
    }


def calibration_json(c: Calibration) -> dict[str, Any]:
    return {
        "ok": c.ok,
        "ran": c.ran,
        "tolerance_pp": c.tolerance_pp,
        "entries": [
            {
                "id": e.id,
                "check": e.check,
                "expected_percent": e.expected_percent,
                "percent": e.percent,
                "ok": e.ok,
                **({"why": e.why} if e.why else {}),
            }
            for e in c.entries
        ],
    }


def report_json(report: Report, gotchas: dict[str, str | None] | None = None) -> dict[str, Any]:
    gotchas = gotchas or {}
    counts: dict[str, int] = {}
    for r in report.records:
        counts[r.verdict.value] = counts.get(r.verdict.value, 0) + 1
    return {
        "version": __version__,
        "ok": report.ok,
        "coverage": {"token_rate_records": report.token_rate_records, "checked": report.checked},
        "verdicts": counts,
        "records": [record_json(r, gotchas) for r in report.records],
        "calibration": calibration_json(report.calibration),
        "messages": [m.text for m in report.messages],
    }


def dumps(report: Report, gotchas: dict[str, str | None] | None = None) -> str:
    """The report's JSON, by `json.dumps`: the definition the faster writers are held to."""
    return json.dumps(report_json(report, gotchas), indent=2, ensure_ascii=False) + "\n"


def report_text(report: Report, gotchas: dict[str, str | None] | None = None) -> str:
    """`dumps`, written as `stream` writes it: each record by `record_text`, where json.dumps
    with an indent runs its encoder in Python (10,000 records: 0.64 s against 2.03 s)."""
    out = io.StringIO()
    tally = Tally(report.fail_on, report.deprecated_fail)
    stream(out, report.records, lambda _kept: (report.calibration, report.messages), tally, gotchas)
    return out.getvalue()


SPOOL_IN_MEMORY = 16 * 1024 * 1024
"""Bytes of record JSON held in memory before the spool moves to a temporary file."""

SPOOL_BATCH = 256
"""Records joined into one write to the spool."""


class PreRendered(NamedTuple):
    """A record as a report format prints it, already written (by an earlier run, kept in
    the result cache: render/kept.py), with what the report's summary counts, read back from
    those bytes: streaming it builds no result objects. `result` is there for the few
    records the run needs whole (the calibration set). (A named tuple, not a dataclass: a
    warm sweep makes one a record, and a frozen dataclass's __init__ costs several times a
    tuple's.)"""

    id: str
    verdict: Verdict
    deprecated: bool
    checked: bool
    text: bytes  # what the run's format prints of the record (render/kept.py), UTF-8
    result: RecordResult | None = None  # for the records a run asked for whole

    @property
    def token_rate(self) -> bool:
        return is_token_rate(self.verdict)


pre_rendered: Callable[
    [tuple[str, Verdict, bool, bool, bytes, RecordResult | None]], PreRendered
] = partial(tuple.__new__, PreRendered)
"""A PreRendered from a tuple of all its fields, in C (its own constructor is a Python
function, and a warm sweep builds one a record)."""

_TOKEN_RATE = frozenset(v for v in Verdict if is_token_rate(v))


class Tally:
    """What the report's header needs, counted as records stream past."""

    def __init__(self, fail_on: frozenset[Verdict], deprecated_fail: bool) -> None:
        self.fail_on, self.deprecated_fail = fail_on, deprecated_fail
        self._counts: dict[Verdict, int] = {}  # by member: an enum's .value is a slow lookup
        self.token_rate = self.checked = self.failing = 0

    @property
    def counts(self) -> dict[str, int]:
        """Records per verdict, in the order the verdicts first came."""
        return {v.value: n for v, n in self._counts.items()}

    @property
    def by_verdict(self) -> dict[Verdict, int]:
        return dict(self._counts)

    def add(self, r: RecordResult | PreRendered) -> bool:
        """Count the record; returns whether it fails the run."""
        verdict = r.verdict
        self._counts[verdict] = self._counts.get(verdict, 0) + 1
        if verdict in _TOKEN_RATE:  # is_token_rate, without a call a record
            self.token_rate += 1
            self.checked += r.checked
        failing = fails(r, self.fail_on, self.deprecated_fail)
        self.failing += failing
        return failing


def stream(
    out: TextIO,
    results: Iterable[RecordResult | PreRendered],
    finish: Callable[[list[RecordResult]], tuple[Calibration, Sequence[Message]]],
    tally: Tally,
    gotchas: dict[str, str | None] | None = None,
    keep_id: Callable[[str], bool] = lambda rid: False,
) -> bool:
    """Write the same JSON as `dumps`, holding one record at a time: records are spooled to a
    temporary file while the header's counts accumulate. `finish` runs after the last record
    with the records whose ids `keep_id` chose (the calibration set): it returns the
    calibration and the run's messages. Returns whether the run is ok."""
    gotchas = gotchas or {}
    kept: list[RecordResult] = []
    with tempfile.SpooledTemporaryFile(SPOOL_IN_MEMORY, "w+b") as spool:
        n = 0
        # written SPOOL_BATCH records at a time: one write, not two a record
        batch: list[bytes] = []
        for item in results:
            tally.add(item)
            if isinstance(item, PreRendered):
                batch.append(item.text)
                if keep_id(item.id) and item.result is not None:
                    kept.append(item.result)  # (else `finish` checks it again)
            else:
                batch.append(record_text(item, gotchas).encode("utf-8"))
                if keep_id(item.id):
                    kept.append(item)
            if len(batch) == SPOOL_BATCH:
                n = _spool(spool, batch, n)
        if batch:
            n = _spool(spool, batch, n)
        calibration, messages = finish(kept)
        ok = tally.failing == 0 and calibration.ok
        head = {
            "version": __version__,
            "ok": ok,
            "coverage": {"token_rate_records": tally.token_rate, "checked": tally.checked},
            "verdicts": tally.counts,
        }
        tail = {
            "calibration": calibration_json(calibration),
            "messages": [m.text for m in messages],
        }
        out.write("{\n")
        for key, value in head.items():
            out.write(f"  {json.dumps(key)}: {_nested(value)},\n")
        if n:
            out.write('  "records": [\n')
            spool.seek(0)
            _copy_utf8(spool, out)
            out.write("\n  ],\n")
        else:
            out.write('  "records": [],\n')
        items = list(tail.items())
        for i, (key, value) in enumerate(items):
            out.write(f"  {json.dumps(key)}: {_nested(value)}{',' if i < len(items) - 1 else ''}\n")
        out.write("}\n")
    return ok


def _spool(spool: IO[bytes], batch: list[bytes], n: int) -> int:
    """Write a batch of records after the `n` already spooled (the separator apart: adding
    it to the joined batch copied every record's bytes once more); returns the new count."""
    if n:
        spool.write(b",\n")
    spool.write(b",\n".join(batch))
    n += len(batch)
    batch.clear()
    return n


def _copy_utf8(spool: IO[bytes], out: TextIO, chunk: int = 1 << 20) -> None:
    """The spooled UTF-8 onto `out`: as bytes where `out` writes UTF-8 to a byte stream (a
    sweep's records are encoded once, never decoded), else decoded chunk by chunk."""
    buffer = getattr(out, "buffer", None)
    encoding = getattr(out, "encoding", None)
    if buffer is not None and encoding and codecs.lookup(encoding).name == "utf-8":
        out.flush()
        shutil.copyfileobj(spool, buffer, chunk)
        buffer.flush()
        return
    decoder = codecs.getincrementaldecoder("utf-8")()
    while piece := spool.read(chunk):
        out.write(decoder.decode(piece))
    out.write(decoder.decode(b"", final=True))


def _nested(value: Any) -> str:
    """`value` as json.dumps(indent=2) writes it one level down."""
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n  ")
