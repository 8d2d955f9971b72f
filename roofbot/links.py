"""Where each trap's gotcha record lives in this repository (built-in map, overridable)."""

from __future__ import annotations

import posixpath

from roofbot.core.catalogue import Catalogue
from roofbot.core.config import Config
from roofbot.core.traps import BY_ID, gotcha_for


def gotcha_paths(config: Config, catalogue: Catalogue) -> dict[str, str | None]:
    """trap id -> repository path of its gotcha record, or None where the repository has none."""
    folder = posixpath.dirname(config.catalogue.get("gotchas", ("data/gotchas/*.json",))[0])
    out: dict[str, str | None] = {}
    for trap in BY_ID:
        gid = gotcha_for(trap, config.traps)
        out[trap] = (
            posixpath.join(folder, f"{gid}.json") if gid and gid in catalogue.gotchas else None
        )
    return out
