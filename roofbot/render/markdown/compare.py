"""The comment's one table of records: each record once, with its verdict at the base and at
the head, its binding roof, what moved it (with a link to the catalogue line that changed)
and, in its details, the arithmetic. Only the records the pull request moved are rows; the
others are counted. A record a catalogue edit made worse is told what the edit did first."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from roofbot.core.compare import Comparison, Delta
from roofbot.core.results import RecordResult, Verdict
from roofbot.render.findings import line_of
from roofbot.render.markdown.escape import Safe, md, md_code, pct
from roofbot.render.markdown.levels import Options, cap, keeps_details
from roofbot.render.markdown.records import EMOJI, Links, Move, link, record_view

MOVED_MAX = 4  # inputs named per row
_KIND_ORDER = {"worse": 0, "new": 1, "better": 2, "same": 3}
_FAILING = (Verdict.ERROR, Verdict.VIOLATION, Verdict.SUSPECT)


def _state(r: RecordResult | None) -> Safe:
    if r is None:
        return Safe("new")
    b = r.binding()
    where = f" {pct(b.percent)}" if b is not None else f" {r.verdict.value}"
    return Safe(f"{EMOJI[r.verdict]}{where}")


def _base_state(m: Move) -> Safe:
    emoji = next((e for v, e in EMOJI.items() if v.value == m.verdict), "")
    where = pct(m.percent) if m.percent is not None else md(m.verdict)
    return Safe(f"{emoji} {where}")


def _stem(path: str) -> str:
    return path.rsplit("/", 1)[-1].removesuffix(".json")


def _moved_text(d: Delta, links: Links) -> Safe:
    if d.after.verdict is Verdict.ERROR and d.before is not None:
        if d.before.verdict is Verdict.ERROR:  # the PR edited a file already invalid: now its
            return Safe("edited by this PR, which makes its finding the PR's")
        return Safe("the file no longer reads")  # its inputs did not move: they are gone
    parts = []
    for m in d.moved[:MOVED_MAX]:
        text = f"{md_code(f'`{m.name}`')} {md(m.before if m.before is not None else '–')} → "
        text += str(md(m.after if m.after is not None else "–"))
        if m.path and m.path != d.path:
            line = line_of(links.text(m.path), m.name) if links.read else None
            target = link(m.path, links, line)
            name = md(_stem(m.path))
            text += f" in [{name}]({target})" if target else f" in {name}"
        parts.append(text)
    if len(d.moved) > MOVED_MAX:
        parts.append(f"and {len(d.moved) - MOVED_MAX} more")
    return Safe("; ".join(parts) if parts else ("added" if d.kind == "new" else "–"))


def catalogue_cause(d: Delta | None, notes: Mapping[tuple[str, str], str]) -> str | None:
    """What a catalogue edit that made the record worse did, in the edit's terms: "this PR
    set `memory_bandwidth_gbps` 960 → 400 in `amd-radeon-rx-7900-xtx`: cite a source or
    revert", and the field beside it that disagrees (`notes`, by record and field)."""
    if d is None or d.before is None or d.after.verdict is Verdict.ERROR or not _worse(d):
        return None
    m = next((m for m in d.moved if m.path and m.path != d.path and m.after is not None), None)
    if m is None:
        return None
    part = _stem(m.path or "")
    text = (
        f"this PR set `{m.name}` {m.before or '–'} → {m.after or '–'} in `{part}`: "
        "cite a source or revert"
    )
    if note := notes.get((part, m.name)):
        text += f" ({note})"
    return text


def _worse(d: Delta) -> bool:
    if d.kind == "worse":
        return True
    b, a = d.before_percent, d.after_percent
    return d.kind == "same" and b is not None and a is not None and a > b + 0.05


def _order(d: Delta | None) -> tuple[int, bool]:
    return (_KIND_ORDER[d.kind], not d.moved) if d is not None else (0, False)


def _moved(d: Delta | None) -> bool:
    return d is None or d.kind != "same" or bool(d.moved)


def rows_view(
    records: Sequence[RecordResult],
    comparison: Comparison | None,
    traps: Mapping[str, str | None],
    links: Links,
    opts: Options,
    notes: Mapping[tuple[str, str], str],
    moves: Mapping[str, Move],
) -> dict[str, Any]:
    """The table: the records the PR moved and those that fail, worst first (every record
    where there is no comparison), capped at `opts.max_rows`; `unmoved` counts the rest."""
    chosen: list[tuple[RecordResult, Delta | None]] = []
    unmoved = 0
    for r in records:
        d = comparison.of(r.id) if comparison is not None else None
        if (
            comparison is not None
            and not _moved(d)
            and r.verdict not in _FAILING
            and r.id not in moves
        ):
            unmoved += 1
            continue
        chosen.append((r, d))
    # worst first; within a kind, the records whose inputs moved (a catalogue edit's dependents)
    chosen.sort(key=lambda x: (x[0].verdict.rank, _order(x[1]), x[0].id))
    shown, hidden = cap(chosen, opts.max_rows)
    rows = []
    for r, d in shown:
        row = record_view(r, traps, links, keeps_details(r, opts))
        cause = catalogue_cause(d, notes) if row["failing"] else None
        if cause is not None:  # the edit first; the record's own causes after it
            row["other_causes"] = [x for x in (row["fix"],) if x] + row["other_causes"]
            row["fix"] = md_code(cause, 1000)
        row["before"] = _state(d.before) if d is not None else None
        row["after"] = _state(r)
        row["worse"] = d is not None and _worse(d)
        row["moved"] = _moved_text(d, links) if d is not None else None
        move = moves.get(r.id)
        # a record new to the base branch: its verdict under the base's instrument (a record
        # on the base already has it in its "base" column)
        new = d is None or d.before is None
        row["under_base"] = _base_state(move) if move is not None and new else None
        row["held"] = move is not None and move.held
        rows.append(row)
    return {
        "rows": rows,
        "hidden": hidden,
        "unmoved": unmoved,
        "compare": comparison is not None,
        "fixes": [row for row in rows if row["fix"]],
    }
