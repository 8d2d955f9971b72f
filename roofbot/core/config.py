"""roofbot's own configuration (`.roofbot.yml`), validated from an already-parsed mapping.
One source of truth: the shape below is also what `roofbot schema` publishes."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from roofbot.core.results import Verdict
from roofbot.core.units import parse_size

DEFAULT_RECORDS = ("data/benchmarks/*.json",)
DEFAULT_CATALOGUE: Mapping[str, tuple[str, ...]] = {
    "accelerators": ("data/accelerators/*.json",),
    "models": ("data/models/*.json",),
    "quantization": ("data/quantization/*.json",),
    "gotchas": ("data/gotchas/*.json",),
}

PIN_KEYS = (
    "accelerator",
    "count",
    "parallelism",
    "batch",
    "params",
    "active_params",
    "weight_bytes",
    "bytes_per_token",
    "compute_precision",
    "tokens_per_step",
    "bandwidth_gbps",
)
CHECK_NAMES = ("memory-roof", "batched-memory-roof", "compute-roof")


class ConfigError(ValueError):
    """The configuration can't be used; the message says where and what to change."""


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
    tolerance_pp: float = 0.1
    calibration: tuple[CalibrationSpec, ...] = ()
    pins: Mapping[str, Mapping[str, Pin]] = field(default_factory=dict)
    traps: Mapping[str, str] = field(default_factory=dict)


def _globs(value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ConfigError(f"{where}: expected a list of glob patterns")
    for v in value:
        if v.startswith("/") or ".." in re.split(r"[\\/]", v):
            raise ConfigError(f"{where}: {v!r} points outside the repository")
    return tuple(value)


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ConfigError(f"{where}: expected a number, got {value!r}")
    return float(value)


def _pin(key: str, raw: Any, where: str) -> Pin:
    text = str(raw)
    if key in ("accelerator", "compute_precision"):
        if not isinstance(raw, str) or not raw:
            raise ConfigError(f"{where}: expected a name")
        return Pin(key, raw, text)
    if key == "parallelism":
        if raw not in ("tensor", "pipeline"):
            raise ConfigError(f"{where}: expected tensor or pipeline")
        return Pin(key, raw, text)
    if key in ("weight_bytes", "bytes_per_token"):
        size = parse_size(raw) if isinstance(raw, str) else None
        if size is None:
            raise ConfigError(f"{where}: expected a size with its unit, e.g. '14 GB' or '3.53 GiB'")
        return Pin(key, size.bytes, size.text)
    if key in ("params", "active_params") and isinstance(raw, str):
        m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*B\s*", raw)
        if not m:
            raise ConfigError(f"{where}: expected billions of parameters, e.g. 6.7 or '6.7B'")
        raw = float(m[1])
    value = _number(raw, where)
    if value <= 0:
        raise ConfigError(f"{where}: must be positive")
    if key in ("count", "batch"):
        if value != int(value):
            raise ConfigError(f"{where}: expected a whole number")
        return Pin(key, int(value), text)
    return Pin(key, value, text)


def parse_config(data: Any) -> Config:
    """Validate a parsed `.roofbot.yml`. None (an empty file) means the defaults."""
    if data is None:
        return Config()
    if not isinstance(data, Mapping):
        raise ConfigError(".roofbot.yml: expected a mapping at the top level")
    known = {"records", "catalogue", "fail_on", "deprecated_fail", "calibration", "pins", "traps"}
    unknown = sorted(str(k) for k in data if k not in known)
    if unknown:
        raise ConfigError(f".roofbot.yml: unknown key(s) {', '.join(unknown)}")
    cfg: dict[str, Any] = {}
    if "records" in data:
        cfg["records"] = _globs(data["records"], "records")
    if "catalogue" in data:
        cat = data["catalogue"]
        if not isinstance(cat, Mapping) or not set(cat) <= set(DEFAULT_CATALOGUE):
            raise ConfigError(f"catalogue: keys are {', '.join(DEFAULT_CATALOGUE)}")
        merged = dict(DEFAULT_CATALOGUE)
        merged.update({k: _globs(v, f"catalogue.{k}") for k, v in cat.items()})
        cfg["catalogue"] = merged
    if "fail_on" in data:
        names = data["fail_on"]
        valid = {v.value: v for v in Verdict}
        if not isinstance(names, list) or not all(n in valid for n in names):
            raise ConfigError(f"fail_on: a list of {', '.join(valid)}")
        cfg["fail_on"] = frozenset(valid[n] for n in names)
    if "deprecated_fail" in data:
        if not isinstance(data["deprecated_fail"], bool):
            raise ConfigError("deprecated_fail: true or false")
        cfg["deprecated_fail"] = data["deprecated_fail"]
    if data.get("calibration") is not None:
        cfg.update(_calibration(data["calibration"]))
    if data.get("pins") is not None:
        cfg["pins"] = _pins(data["pins"])
    if data.get("traps") is not None:
        traps = data["traps"]
        if not isinstance(traps, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in traps.items()
        ):
            raise ConfigError("traps: a mapping of trap id to gotcha id")
        cfg["traps"] = dict(traps)
    return Config(**cfg)


def _calibration(cal: Any) -> dict[str, Any]:
    if not isinstance(cal, Mapping):
        raise ConfigError("calibration: expected a mapping with tolerance_pp and records")
    out: dict[str, Any] = {}
    if "tolerance_pp" in cal:
        out["tolerance_pp"] = _number(cal["tolerance_pp"], "calibration.tolerance_pp")
    entries = cal.get("records") or []
    if not isinstance(entries, list):
        raise ConfigError("calibration.records: expected a list")
    specs = []
    for i, e in enumerate(entries):
        where = f"calibration.records[{i}]"
        if not isinstance(e, Mapping) or not isinstance(e.get("id"), str):
            raise ConfigError(f"{where}: expected {{id, check, percent}}")
        if e.get("check") not in CHECK_NAMES:
            raise ConfigError(f"{where}: check is one of {', '.join(CHECK_NAMES)}")
        specs.append(CalibrationSpec(e["id"], e["check"], _number(e.get("percent"), where)))
    out["calibration"] = tuple(specs)
    return out


def _pins(pins: Any) -> dict[str, dict[str, Pin]]:
    if not isinstance(pins, Mapping):
        raise ConfigError("pins: expected a mapping of record id to inputs")
    out: dict[str, dict[str, Pin]] = {}
    for rid, entries in pins.items():
        if not isinstance(rid, str) or not isinstance(entries, Mapping):
            raise ConfigError(f"pins.{rid}: expected a mapping of input to value")
        out[rid] = {}
        for key, raw in entries.items():
            if key not in PIN_KEYS:
                raise ConfigError(f"pins.{rid}.{key}: not a pin key ({', '.join(PIN_KEYS)})")
            out[rid][key] = _pin(key, raw, f"pins.{rid}.{key}")
    return out
