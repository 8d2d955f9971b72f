"""roofbot's own configuration (`.roofbot.yml`), validated from an already-parsed mapping.

One source of truth: `CONFIG_SHAPE` below is the table the loader validates with and the table
`roofbot schema` publishes as JSON Schema (`json_schema()`), so an editor and roofbot agree
on what a valid configuration is."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from roofbot.core.compound_shapes import Either, Field, ListOf, MapOf, Named, Record, definitions
from roofbot.core.results import CheckId, Verdict
from roofbot.core.shapes import Choice, ConfigError, Flag, JsonSchema, Number, Shape, Text
from roofbot.core.units import Size, parse_size

__all__ = [
    "CHECK_NAMES",
    "CONFIG_SHAPE",
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

DEFAULT_RECORDS = ("data/benchmarks/*.json",)
DEFAULT_CATALOGUE: Mapping[str, tuple[str, ...]] = {
    "accelerators": ("data/accelerators/*.json",),
    "models": ("data/models/*.json",),
    "quantization": ("data/quantization/*.json",),
    "gotchas": ("data/gotchas/*.json",),
}
CHECK_NAMES = tuple(c.value for c in CheckId)

# ------------------------------------------------------------------ the value shapes

#: A glob relative to the repository root: not absolute, no `..` segment. `(?![\s\S])` is
#: "end of string" in both Python and ECMA-262 regular expressions.
GLOB_PATTERN = r"^(?!/)(?!([\s\S]*[\\/])?\.\.([\\/]|(?![\s\S])))"
#: A byte size with its unit, greater than zero ("14 GB", "3.53 GiB"); GB = 1e9, GiB = 2^30.
SIZE_PATTERN = r"^\s*(?=[^1-9]*[1-9])\d+(\.\d+)?\s*[TtGgMm]i?[Bb]\s*$"
#: Billions of parameters written with a B ("6.7B"), greater than zero.
BILLIONS_PATTERN = r"^\s*(?=[^1-9]*[1-9])\d+(\.\d+)?\s*B\s*$"


def _size(text: str) -> Size:
    size = parse_size(text)
    if size is None:
        raise ValueError(text)
    return size


_GLOB = Named(
    "glob",
    Text(
        expect="expected a glob pattern",
        pattern=GLOB_PATTERN,
        pattern_error="{value!r} points outside the repository",
        description="A glob relative to the repository root: not absolute, no `..` segment.",
    ),
)


def _globs(what: str) -> Shape:
    return ListOf(
        _GLOB,
        expect="expected a list of glob patterns",
        single=True,
        description=f"Glob patterns, relative to the repository root, of {what}.",
    )


_POSITIVE = Number(minimum=0, exclusive=True)
_BILLIONS = Either(
    (
        _POSITIVE,
        Text(pattern=BILLIONS_PATTERN, convert=lambda s: float(s.strip()[:-1]), examples=("6.7B",)),
    ),
    expect="expected billions of parameters, e.g. 6.7 or '6.7B'",
)
_SIZE = Named(
    "size",
    Text(
        expect="expected a size with its unit, e.g. '14 GB' or '3.53 GiB'",
        pattern=SIZE_PATTERN,
        convert=_size,
        examples=("14 GB", "3.53 GiB"),
        description="A byte size with its unit: GB = 1e9 bytes, GiB = 2^30; never unit-less.",
    ),
)

#: Every input a pin can set: name -> (shape, what it means). The resolver reads these keys.
PIN_FIELDS: Mapping[str, tuple[Shape, str]] = {
    "accelerator": (Text(expect="expected a name"), "Catalogue id of the accelerator part."),
    "count": (Number(minimum=0, exclusive=True, whole=True), "Number of accelerators."),
    "parallelism": (
        Choice(("tensor", "pipeline")),
        "How a multi-accelerator run splits the model: tensor (bandwidth adds up) or pipeline.",
    ),
    "batch": (Number(minimum=0, exclusive=True, whole=True), "The decode batch size."),
    "params": (_BILLIONS, "Total parameters, in billions."),
    "active_params": (_BILLIONS, "Active parameters per token (mixture of experts), billions."),
    "weight_bytes": (_SIZE, "Size of the weights read, with its unit (GB = 1e9, GiB = 2^30)."),
    "bytes_per_token": (_SIZE, "Bytes read per generated token, with its unit; wins over weights."),
    "compute_precision": (Text(expect="expected a name"), "Precision of the math: fp16, fp8..."),
    "tokens_per_step": (_POSITIVE, "Accepted tokens per step under speculative decoding."),
    "bandwidth_gbps": (_POSITIVE, "Memory bandwidth of one accelerator, decimal GB/s."),
}
PIN_KEYS = tuple(PIN_FIELDS)

_CALIBRATION_ENTRY = Record(
    (
        Field("id", Text(description="The benchmark record's id."), required=True),
        Field("check", Choice(CHECK_NAMES, "The roof whose percent is expected."), required=True),
        Field("percent", Number(description="The expected percent of that roof."), required=True),
    ),
    description="One calibration record: id, check and the percent it must come out at.",
)

#: `.roofbot.yml`, key by key: the loader's table and the published schema's source.
CONFIG_SHAPE = Record(
    (
        Field("records", _globs("the benchmark records"), default=list(DEFAULT_RECORDS)),
        Field(
            "catalogue",
            Record(
                tuple(
                    Field(kind, _globs(f"the {kind} records"), default=list(globs))
                    for kind, globs in DEFAULT_CATALOGUE.items()
                ),
                description="Where the catalogue records live; unnamed kinds keep the default.",
            ),
        ),
        Field(
            "fail_on",
            ListOf(
                Choice(tuple(v.value for v in Verdict)),
                description="Verdicts that make the run fail (exit 1).",
            ),
            default=["violation", "error"],
        ),
        Field(
            "deprecated_fail",
            Flag("Whether records with status deprecated can fail the run."),
            default=False,
        ),
        Field(
            "fail_on_existing",
            Flag(
                "Whether a pull request fails on findings the base branch already has (false: "
                "only on those it introduces or makes worse)."
            ),
            default=False,
        ),
        Field(
            "calibration",
            Record(
                (
                    Field(
                        "tolerance_pp",
                        Number(minimum=0, description="Allowed miss, in percentage points."),
                        default=0.1,
                    ),
                    Field(
                        "records",
                        ListOf(_CALIBRATION_ENTRY, description="The calibration set."),
                        nullable=True,
                    ),
                ),
                description="The instrument's own test, run on every check: records whose "
                "percent of a roof is known by hand.",
            ),
            nullable=True,
        ),
        Field(
            "pins",
            MapOf(
                Record(
                    tuple(
                        Field(key, shape.described(text))
                        for key, (shape, text) in PIN_FIELDS.items()
                    ),
                    description="Inputs pinned for this record; a pin wins over everything.",
                ),
                key_name="record id",
                expect="expected a mapping of record id to inputs",
                description="Inputs a record can't carry, by record id.",
            ),
            nullable=True,
        ),
        Field(
            "traps",
            MapOf(
                Text(expect="expected a gotcha record id"),
                key_name="trap id",
                expect="expected a mapping of trap id to gotcha id",
                description="Trap id -> the id of the repository's gotcha record it links to.",
            ),
            nullable=True,
        ),
    ),
    nullable=True,
)


# ------------------------------------------------------------------ the loaded configuration


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
    fail_on_existing: bool = False  # a PR fails on the base's findings too
    tolerance_pp: float = 0.1
    calibration: tuple[CalibrationSpec, ...] = ()
    pins: Mapping[str, Mapping[str, Pin]] = field(default_factory=dict)
    traps: Mapping[str, str] = field(default_factory=dict)


def _pin(key: str, raw: Any, value: Any) -> Pin:
    if isinstance(value, Size):
        return Pin(key, value.bytes, value.text)
    return Pin(key, value, str(raw))


def parse_config(data: Any) -> Config:
    """Validate a parsed `.roofbot.yml` against CONFIG_SHAPE. None (an empty file) means the
    defaults. Raises ConfigError saying where and what to write instead."""
    parsed = CONFIG_SHAPE.parse(data, "")
    cfg: dict[str, Any] = {}
    if "records" in parsed:
        cfg["records"] = parsed["records"]
    if "catalogue" in parsed:
        cfg["catalogue"] = {**DEFAULT_CATALOGUE, **parsed["catalogue"]}
    if "fail_on" in parsed:
        cfg["fail_on"] = frozenset(Verdict(v) for v in parsed["fail_on"])
    if "deprecated_fail" in parsed:
        cfg["deprecated_fail"] = parsed["deprecated_fail"]
    if "fail_on_existing" in parsed:
        cfg["fail_on_existing"] = parsed["fail_on_existing"]
    cal = parsed.get("calibration", {})
    if "tolerance_pp" in cal:
        cfg["tolerance_pp"] = cal["tolerance_pp"]
    if "records" in cal:
        cfg["calibration"] = tuple(
            CalibrationSpec(e["id"], e["check"], e["percent"]) for e in cal["records"]
        )
    if "pins" in parsed:
        raw_pins = data["pins"]
        cfg["pins"] = {
            rid: {k: _pin(k, raw_pins[rid][k], v) for k, v in inputs.items()}
            for rid, inputs in parsed["pins"].items()
        }
    if "traps" in parsed:
        cfg["traps"] = dict(parsed["traps"])
    return Config(**cfg)


def json_schema() -> JsonSchema:
    """The JSON Schema (draft-07) of `.roofbot.yml`, generated from CONFIG_SHAPE."""
    body = CONFIG_SHAPE.schema()
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "roofbot configuration (.roofbot.yml)",
        "description": "Where a records repository keeps its benchmark and catalogue records, "
        "what fails a run, the calibration set, pins for inputs a record can't carry, and "
        "trap -> gotcha links. Generated by `roofbot schema` from the loader's own table.",
        **body,
        "definitions": definitions(CONFIG_SHAPE),
    }
