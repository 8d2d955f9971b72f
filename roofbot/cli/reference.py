"""The commands a user looks things up with: `parts` (the accelerator catalogue as roofbot
resolves it) and `schema` (the JSON Schema of `.roofbot.yml`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from roofbot.cli.common import open_repository, repo_option

if TYPE_CHECKING:
    from roofbot.core.catalogue import Accelerator


@click.command()
def schema() -> None:
    """Print the JSON Schema of `.roofbot.yml` (draft-07): the one roofbot validates it with.

    Example: roofbot schema > .roofbot.schema.json, then start .roofbot.yml with
    `# yaml-language-server: $schema=.roofbot.schema.json` so editors check it as you type.
    """
    import json

    from roofbot.core.config import json_schema

    click.echo(json.dumps(json_schema(), indent=2))


@click.command()
@click.argument("query", required=False, default="")
@repo_option
def parts(query: str, repo: Path) -> None:
    """List the accelerator catalogue as roofbot resolves it: each part's bandwidth and, per
    precision, the largest dense peak (the one the compute roof uses), in TFLOPS. QUERY
    matches the start of a word of the part's id or name (`h100`, `mi355`).

    Example: roofbot parts --repo fixtures a100
    """
    import re

    from roofbot.core.catalogue import slug

    cat = open_repository(repo, records=False)[1].catalogue()
    q = slug(query)
    word = re.compile(rf"(?:^|-){re.escape(q)}") if q else None
    rows = [
        a
        for a in sorted(cat.accelerators.values(), key=lambda a: a.id)
        if word is None or word.search(a.id) or word.search(slug(a.name))
    ]
    click.echo(f"{'part':<40} {'bandwidth':>14}  dense peak per precision (TFLOPS)")
    for a in rows:
        click.echo(_part_line(a))
    click.echo(f"{len(rows)} part{'' if len(rows) == 1 else 's'}")


def _part_line(a: Accelerator) -> str:
    """One part: its bandwidth, its largest dense peak per precision, its sparse-only ones."""
    bw = f"{a.bandwidth_gbps:g} GB/s" if a.bandwidth_gbps else "bandwidth ?"
    best: dict[str, float] = {}
    for r in a.flops:  # one figure a precision: its largest dense row, as the roof uses
        if r.dense and r.tflops > best.get(r.precision, 0.0):
            best[r.precision] = r.tflops
    dense = sorted(best.items(), key=lambda x: (-x[1], x[0]))
    peaks = ", ".join(f"{p} {t:g}" for p, t in dense) or "no dense flops"
    sparse_only = sorted({r.precision for r in a.flops if not r.dense} - set(best))
    extra = f"  (sparse only: {', '.join(sparse_only)})" if sparse_only else ""
    return f"{a.id:<40} {bw:>14}  {peaks}{extra}"
