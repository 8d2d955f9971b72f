"""The JSON Schema (draft-07) of `.roofbot.yml`: what the loader validates with (jsonschema) and
what `roofbot schema` prints for editors. `roofbot/config.schema.json` is this, written out;
tests/test_config_schema.py holds the two equal.

Besides the standard keywords, a node may carry `errorMessage` (what to write there, worded
"expected ...") and `patternErrorMessage` (said after the value its pattern refused): the words
roofbot's errors use (`roofbot/core/config_errors.py`), and the annotations VS Code's JSON and
YAML language servers show in place of their own."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from roofbot.core.results import CheckId, Verdict

JsonSchema = dict[str, Any]

DEFAULT_RECORDS = ("data/benchmarks/*.json",)
DEFAULT_CATALOGUE: Mapping[str, tuple[str, ...]] = {
    "accelerators": ("data/accelerators/*.json",),
    "models": ("data/models/*.json",),
    "quantization": ("data/quantization/*.json",),
    "gotchas": ("data/gotchas/*.json",),
}
CHECK_NAMES = tuple(c.value for c in CheckId)

#: A glob relative to the repository root: not absolute, no `..` segment. `(?![\s\S])` is
#: "end of string" in both Python and ECMA-262 regular expressions.
GLOB_PATTERN = r"^(?!/)(?!([\s\S]*[\\/])?\.\.([\\/]|(?![\s\S])))"
#: A byte size with its unit, greater than zero ("14 GB", "3.53 GiB"); GB = 1e9, GiB = 2^30.
SIZE_PATTERN = r"^\s*(?=[^1-9]*[1-9])\d+(\.\d+)?\s*[TtGgMm]i?[Bb]\s*$"
#: Billions of parameters written with a B ("6.7B"), greater than zero.
BILLIONS_PATTERN = r"^\s*(?=[^1-9]*[1-9])\d+(\.\d+)?\s*B\s*$"

BILLIONS = "expected billions of parameters, e.g. 6.7 or '6.7B'"
POSITIVE: JsonSchema = {"type": "number", "exclusiveMinimum": 0}
WHOLE: JsonSchema = {"type": "integer", "exclusiveMinimum": 0}


def _ref(name: str, description: str) -> JsonSchema:
    """A named definition with a description of its own (draft-07 ignores a $ref's siblings)."""
    return {"description": description, "allOf": [{"$ref": f"#/definitions/{name}"}]}


def _globs(what: str, default: tuple[str, ...]) -> JsonSchema:
    glob = {"$ref": "#/definitions/glob"}
    return {
        "description": f"Glob patterns, relative to the repository root, of {what}.",
        "errorMessage": "expected a glob pattern or a list of them",
        "anyOf": [glob, {"type": "array", "items": glob}],
        "default": list(default),
    }


def _nullable(description: str, inner: JsonSchema) -> JsonSchema:
    """A key whose null means its default (an empty YAML value)."""
    return {"description": description, "anyOf": [inner, {"type": "null"}]}


def _text(description: str, expect: str) -> JsonSchema:
    return {"description": description, "errorMessage": expect, "type": "string", "minLength": 1}


#: Every input a pin can set, in the order the schema lists them. The resolver reads these keys.
PINS: JsonSchema = {
    "accelerator": _text("Catalogue id of the accelerator part.", "expected an accelerator id"),
    "count": {"description": "Number of accelerators.", **WHOLE},
    "parallelism": {
        "description": "How a multi-accelerator run splits the model: tensor (bandwidth adds up) "
        "or pipeline.",
        "type": "string",
        "enum": ["tensor", "pipeline"],
    },
    "batch": {"description": "The decode batch size.", **WHOLE},
    "params": _ref("billions", "Total parameters, in billions."),
    "active_params": _ref(
        "billions", "Active parameters per token (mixture of experts), billions."
    ),
    "weight_bytes": _ref("size", "Size of the weights read, with its unit (GB = 1e9, GiB = 2^30)."),
    "bytes_per_token": _ref(
        "size", "Bytes read per generated token, with its unit; wins over weights."
    ),
    "compute_precision": _text(
        "Precision of the math: fp16, fp8...", "expected a precision, e.g. fp16 or fp8"
    ),
    "tokens_per_step": {
        "description": "Accepted tokens per step under speculative decoding.",
        **POSITIVE,
    },
    "bandwidth_gbps": {
        "description": "Memory bandwidth of one accelerator, decimal GB/s.",
        **POSITIVE,
    },
}
PIN_KEYS = tuple(PINS)

_CALIBRATION_ENTRY: JsonSchema = {
    "description": "One calibration record: id, check and the percent it must come out at.",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "id": _text("The benchmark record's id.", "expected a benchmark record id"),
        "check": {
            "description": "The roof whose percent is expected.",
            "type": "string",
            "enum": list(CHECK_NAMES),
        },
        "percent": {"description": "The expected percent of that roof.", "type": "number"},
    },
    "required": ["id", "check", "percent"],
}


def _ids_to(what: str, key_name: str, value: JsonSchema) -> JsonSchema:
    """A mapping from free ids (record ids, trap ids) to `value`."""
    return {
        "errorMessage": f"expected a mapping of {key_name} to {what}",
        "type": "object",
        "propertyNames": {
            "errorMessage": f"expected each key to be a {key_name} (a non-empty string)",
            "type": "string",
            "minLength": 1,
        },
        "additionalProperties": value,
    }


CONFIG_SCHEMA: JsonSchema = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "roofbot configuration (.roofbot.yml)",
    "description": "Where a records repository keeps its benchmark and catalogue records, what "
    "fails a run, the calibration set, pins for inputs a record can't carry, and trap -> gotcha "
    "links. Printed by `roofbot schema`; roofbot validates the file with it.",
    "type": ["object", "null"],
    "additionalProperties": False,
    "properties": {
        "records": _globs("the benchmark records", DEFAULT_RECORDS),
        "catalogue": {
            "description": "Where the catalogue records live; unnamed kinds keep the default.",
            "type": "object",
            "additionalProperties": False,
            "properties": {
                kind: _globs(f"the {kind} records", globs)
                for kind, globs in DEFAULT_CATALOGUE.items()
            },
        },
        "fail_on": {
            "description": "Verdicts that make the run fail (exit 1).",
            "errorMessage": "expected a list of verdicts, e.g. [violation, error]",
            "type": "array",
            "items": {"type": "string", "enum": [v.value for v in Verdict]},
            "default": ["violation", "error"],
        },
        "deprecated_fail": {
            "description": "Whether records with status deprecated can fail the run.",
            "type": "boolean",
            "default": False,
        },
        "fail_on_existing": {
            "description": "Whether findings already on the base branch fail a pull request's "
            "run too.",
            "type": "boolean",
            "default": False,
        },
        "calibration": _nullable(
            "The instrument's own test, run on every check: records whose percent of a roof is "
            "known by hand.",
            {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "tolerance_pp": {
                        "description": "Allowed miss, in percentage points.",
                        "type": "number",
                        "minimum": 0,
                        "default": 0.1,
                    },
                    "records": _nullable(
                        "The calibration set.", {"type": "array", "items": _CALIBRATION_ENTRY}
                    ),
                },
            },
        ),
        "pins": _nullable(
            "Inputs a record can't carry, by record id.",
            _ids_to(
                "inputs",
                "record id",
                {
                    "description": "Inputs pinned for this record; a pin wins over everything.",
                    "type": "object",
                    "additionalProperties": False,
                    "properties": PINS,
                },
            ),
        ),
        "traps": _nullable(
            "Trap id -> the id of the repository's gotcha record it links to.",
            _ids_to(
                "gotcha id",
                "trap id",
                {"errorMessage": "expected a gotcha record id", "type": "string", "minLength": 1},
            ),
        ),
    },
    "definitions": {
        "glob": {
            "description": "A glob relative to the repository root: not absolute, no `..` segment.",
            "errorMessage": "expected a glob pattern",
            "patternErrorMessage": "points outside the repository: a glob is relative to the "
            "repository's root, with no '..' segment",
            "type": "string",
            "minLength": 1,
            "pattern": GLOB_PATTERN,
        },
        "size": {
            "description": "A byte size with its unit: GB = 1e9 bytes, GiB = 2^30; never "
            "unit-less.",
            "errorMessage": "expected a size above zero with its unit, e.g. '14 GB' or '3.53 GiB'",
            "type": "string",
            "minLength": 1,
            "pattern": SIZE_PATTERN,
            "examples": ["14 GB", "3.53 GiB"],
        },
        "billions": {
            "errorMessage": BILLIONS,
            "anyOf": [
                POSITIVE,
                {
                    "errorMessage": BILLIONS,
                    "type": "string",
                    "minLength": 1,
                    "pattern": BILLIONS_PATTERN,
                    "examples": ["6.7B"],
                },
            ],
        },
    },
}
