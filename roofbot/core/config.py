"""roofbot's own configuration (`.roofbot.yml`), validated from an already-parsed mapping.

One source of truth: `CONFIG_SCHEMA` (`roofbot/core/config_schema.py`) is the JSON Schema the
loader validates with, by jsonschema, and the one `roofbot schema` publishes, so an editor and
roofbot agree on what a valid configuration is. Once valid, the values convert: sizes to bytes
(the text kept), "6.7B" to billions, verdict names to `Verdict`, calibration entries to
`CalibrationSpec`. The one check beyond the schema's: YAML's `.inf` and `.nan`, and whole
numbers too large for a float, are not numbers. jsonschema only computes here (the schema has
no remote reference): the core stays free of I/O."""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from roofbot.core.config_errors import ConfigError, config_error, shown, where
from roofbot.core.config_schema import (
    BILLIONS,
    CHECK_NAMES,
    CONFIG_SCHEMA,
    DEFAULT_CATALOGUE,
    DEFAULT_RECORDS,
    PIN_KEYS,
    PINS,
    JsonSchema,
)
from roofbot.core.results import Verdict
from roofbot.core.units import parse_size

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

__all__ = [
    "CHECK_NAMES",
    "CONFIG_SCHEMA",
    "DEFAULT_CATALOGUE",
    "DEFAULT_RECORDS",
    "PIN_KEYS",
    "CalibrationSpec",
    "Config",
    "ConfigError",
    "Pin",
    "json_schema",
    "parse_config",
]


@dataclass(frozen=True)
class CalibrationSpec:
    id: str
    check: str
    percent: float


@dataclass(frozen=True)
class Pin:
    """One pinned input: the value roofbot uses, and the text the maintainer wrote."""

    key: str
    value: float | int | str
    text: str


@dataclass(frozen=True)
class Config:
    records: tuple[str, ...] = DEFAULT_RECORDS
    catalogue: Mapping[str, tuple[str, ...]] = field(
        default_factory=lambda: dict(DEFAULT_CATALOGUE)
    )
    fail_on: frozenset[Verdict] = frozenset({Verdict.VIOLATION, Verdict.ERROR})
    deprecated_fail: bool = False
    fail_on_existing: bool = False
    tolerance_pp: float = 0.1
    calibration: tuple[CalibrationSpec, ...] = ()
    pins: Mapping[str, Mapping[str, Pin]] = field(default_factory=dict)
    traps: Mapping[str, str] = field(default_factory=dict)


def parse_config(data: Any) -> Config:
    """Validate a parsed `.roofbot.yml` against CONFIG_SCHEMA and convert its values. None (an
    empty file) means the defaults. Raises ConfigError saying where and what to write."""
    error = next(_validator().iter_errors(data), None)
    if error is not None:
        raise config_error(error)
    if data is None:
        return Config()
    cfg: dict[str, Any] = {}
    if "records" in data:
        cfg["records"] = _globs(data["records"])
    if "catalogue" in data:
        given = {kind: _globs(globs) for kind, globs in data["catalogue"].items()}
        cfg["catalogue"] = {**DEFAULT_CATALOGUE, **given}
    if "fail_on" in data:
        cfg["fail_on"] = frozenset(Verdict(v) for v in data["fail_on"])
    for flag in ("deprecated_fail", "fail_on_existing"):
        if flag in data:
            cfg[flag] = data[flag]
    cal = data.get("calibration") or {}
    if "tolerance_pp" in cal:
        cfg["tolerance_pp"] = float(cal["tolerance_pp"])
    if cal.get("records") is not None:
        cfg["calibration"] = tuple(
            CalibrationSpec(e["id"], e["check"], float(e["percent"])) for e in cal["records"]
        )
    if data.get("pins") is not None:
        cfg["pins"] = {
            rid: {key: _pin(rid, key, raw) for key, raw in inputs.items()}
            for rid, inputs in data["pins"].items()
        }
    if data.get("traps") is not None:
        cfg["traps"] = dict(data["traps"])
    return Config(**cfg)


def json_schema() -> JsonSchema:
    """The JSON Schema (draft-07) of `.roofbot.yml`: a copy of CONFIG_SCHEMA."""
    return copy.deepcopy(CONFIG_SCHEMA)


def _globs(raw: str | list[str]) -> tuple[str, ...]:
    """One glob stands for a list of one."""
    return (raw,) if isinstance(raw, str) else tuple(raw)


def _pin(rid: str, key: str, raw: Any) -> Pin:
    """A valid pin's value, converted as its schema says: a size to bytes (with the text as
    the maintainer wrote it), billions from "6.7B", whole numbers to int, numbers to float."""
    node = PINS[key]
    ref = str(node.get("allOf", [{}])[0].get("$ref", ""))
    if ref.endswith("/size"):
        size = parse_size(raw)
        if size is None:  # the pattern's digits overflow a float
            raise ConfigError(f"{where(('pins', rid, key))}: too large a size, got {shown(raw)}")
        return Pin(key, size.bytes, size.text)
    value: float | int | str = raw
    if ref.endswith("/billions"):
        value = float(raw.strip()[:-1]) if isinstance(raw, str) else float(raw)
        if not math.isfinite(value):
            raise ConfigError(f"{where(('pins', rid, key))}: {BILLIONS}, got {shown(raw)}")
    elif node.get("type") == "integer":
        value = int(raw)
    elif node.get("type") == "number":
        value = float(raw)
    return Pin(key, value, str(raw))


def _finite(value: object) -> bool:
    """A JSON number that is a number to roofbot too: not a boolean, not YAML's .inf or .nan,
    not an integer too large for a float."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


@cache
def _validator() -> Validator:
    """Draft-07 validation of CONFIG_SCHEMA, where a number is finite (imported on first use:
    a command that reads no configuration never loads jsonschema)."""
    from jsonschema import Draft7Validator, validators

    types = Draft7Validator.TYPE_CHECKER
    checker = types.redefine_many(
        {
            "number": lambda _, value: _finite(value),
            "integer": lambda c, value: _finite(value) and types.is_type(value, "integer"),
        }
    )
    extend: Any = validators.extend  # jsonschema leaves it untyped
    v: Validator = extend(Draft7Validator, type_checker=checker)(CONFIG_SCHEMA)
    return v
