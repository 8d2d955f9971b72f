"""Pins that point at nothing: a pin under a record id no record has (a typo, or a record
renamed or deleted), or a pinned accelerator the catalogue lacks. Either makes the pin a lie
about the record it was written for, so each is a configuration error: exit 2 on the command
line; in `roofbot pr` the PR's configuration is invalid (failure, the comment says which pin)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from roofbot.locate import did_you_mean, record_ids

if TYPE_CHECKING:
    from roofbot.adapters.repo import Repository
    from roofbot.core.catalogue import Catalogue


def pin_problems(repository: Repository) -> list[str]:
    """What is wrong with the config's pins in this version of the repository, one line
    each (empty: nothing). The catalogue is built only when an accelerator is pinned."""
    out: list[str] = []
    catalogue: Catalogue | None = None
    ids: list[str] | None = None  # listed only when a pin names no record
    for rid, inputs in repository.config.pins.items():
        if repository.path_for_id(rid) is None:
            ids = record_ids(repository) if ids is None else ids
            out.append(
                f"pins: {rid!r} is not the id of any benchmark record{did_you_mean(rid, ids)}"
            )
        pin = inputs.get("accelerator")
        if pin is None:
            continue
        catalogue = catalogue or repository.catalogue()
        if str(pin.value) not in catalogue.accelerators:
            hint = did_you_mean(str(pin.value), catalogue.accelerators)
            out.append(f"pins: {rid}: accelerator {str(pin.value)!r} is not in the catalogue{hint}")
    return out
