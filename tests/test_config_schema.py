"""`.roofbot.yml` is validated by jsonschema against the schema `roofbot schema` prints: every
config the loader accepts validates, every one it rejects for shape does not, the published file
is that schema, and each error says where and what to write, in the schema's own words."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from roofbot.adapters.repo import load_config_text
from roofbot.core.config import (
    PIN_KEYS,
    CalibrationSpec,
    ConfigError,
    Pin,
    json_schema,
    parse_config,
)
from roofbot.core.results import Verdict

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = json_schema()
VALIDATOR = jsonschema.Draft7Validator(SCHEMA)


def accepts(data: Any) -> bool:
    try:
        parse_config(data)
    except ConfigError:
        return False
    return True


def valid(data: Any) -> bool:
    return VALIDATOR.is_valid(data)


def test_the_schema_is_a_draft_07_schema() -> None:
    jsonschema.Draft7Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "http://json-schema.org/draft-07/schema#"


def test_roofbot_schema_prints_it_and_the_published_file_is_current() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "roofbot", "schema"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert json.loads(out.stdout) == SCHEMA
    published = ROOT / "roofbot" / "config.schema.json"
    assert json.loads(published.read_text()) == SCHEMA, (
        "roofbot/config.schema.json is stale: run `roofbot schema > roofbot/config.schema.json`"
    )


def test_the_example_configuration_validates() -> None:
    data = yaml.safe_load((ROOT / "fixtures" / ".roofbot.yml").read_text())
    assert valid(data) and accepts(data)


def test_every_pin_key_is_in_the_schema() -> None:
    pin = SCHEMA["properties"]["pins"]["anyOf"][0]["additionalProperties"]["properties"]
    assert list(pin) == list(PIN_KEYS)


ACCEPTED = [
    None,
    {},
    {"records": "data/benchmarks/*.json"},
    {"records": []},
    {"catalogue": {"models": "models/*.json"}},
    {"fail_on": []},
    {"fail_on": ["violation", "suspect", "unchecked"]},
    {"deprecated_fail": True},
    {"fail_on_existing": True},
    {"calibration": None, "pins": None, "traps": None},
    {"calibration": {"tolerance_pp": 0}},
    {"calibration": {"records": None}},
    {"calibration": {"records": [{"id": "r", "check": "compute-roof", "percent": -1}]}},
    {"pins": {}},
    {"pins": {"r": {}}},
    {"pins": {"r": {"count": 2.0, "batch": 64, "params": "6.7B", "active_params": 3}}},
    {"pins": {"r": {"weight_bytes": "3.53 GiB", "bytes_per_token": " 0.5 gb "}}},
    {"pins": {"r": {"parallelism": "tensor", "compute_precision": "fp8"}}},
    {"pins": {"r": {"accelerator": "nvidia-h100-sxm", "bandwidth_gbps": 3350.5}}},
    {"pins": {"r": {"tokens_per_step": 1.8}}},
    {"traps": {"sparse-peak": "my-gotcha"}},
    {"records": ["a..b/*.json", "x/...json", "./data/*.json"]},
]

REJECTED = [
    [],
    "records",
    {"unknown_key": 1},
    {"records": None},
    {"records": ""},
    {"records": ["../../etc/*"]},
    {"records": ["/etc/passwd"]},
    {"records": ["data/../x"]},
    {"records": ["data\\..\\x"]},
    {"records": [1]},
    {"catalogue": None},
    {"catalogue": {"datasets": ["x"]}},
    {"fail_on": "violation"},
    {"fail_on": ["nonsense"]},
    {"fail_on": [{"a": 1}]},
    {"deprecated_fail": "yes"},
    {"deprecated_fail": None},
    {"fail_on_existing": "yes"},
    {"calibration": []},
    {"calibration": {"tolerance": 0.1}},
    {"calibration": {"tolerance_pp": -0.1}},
    {"calibration": {"tolerance_pp": True}},
    {"calibration": {"records": {}}},
    {"calibration": {"records": [{"id": "x", "check": "nonsense", "percent": 1}]}},
    {"calibration": {"records": [{"id": "x", "check": "memory-roof"}]}},
    {"calibration": {"records": [{"id": "x", "check": "memory-roof", "percent": "1"}]}},
    {"calibration": {"records": [{"id": "x", "check": "memory-roof", "percent": 1, "n": 1}]}},
    {"pins": []},
    {"pins": {"r": None}},
    {"pins": {"r": {"colour": "red"}}},
    {"pins": {"r": {"count": 0}}},
    {"pins": {"r": {"count": 1.5}}},
    {"pins": {"r": {"count": True}}},
    {"pins": {"r": {"batch": "64"}}},
    {"pins": {"r": {"params": "6.7"}}},
    {"pins": {"r": {"params": "0B"}}},
    {"pins": {"r": {"params": -7}}},
    {"pins": {"r": {"weight_bytes": 14}}},
    {"pins": {"r": {"weight_bytes": "14"}}},
    {"pins": {"r": {"weight_bytes": "0 GB"}}},
    {"pins": {"r": {"weight_bytes": "14 parsecs"}}},
    {"pins": {"r": {"parallelism": "data"}}},
    {"pins": {"r": {"accelerator": ""}}},
    {"pins": {"r": {"bandwidth_gbps": 0}}},
    {"traps": {"sparse-peak": 3}},
    {"traps": []},
]


@pytest.mark.parametrize("data", ACCEPTED)
def test_accepted_configs_validate(data: Any) -> None:
    assert accepts(data)
    assert valid(data), list(VALIDATOR.iter_errors(data))


@pytest.mark.parametrize("data", REJECTED)
def test_configs_rejected_for_shape_do_not_validate(data: Any) -> None:
    with pytest.raises(ConfigError) as e:
        parse_config(data)
    assert str(e.value)  # a message that says where
    assert not valid(data)


def test_errors_say_where_and_what_to_write() -> None:
    with pytest.raises(ConfigError, match=r"pins\.r\.weight_bytes: .*'14 GB'"):
        parse_config({"pins": {"r": {"weight_bytes": "14"}}})
    with pytest.raises(ConfigError, match=r"calibration\.records\[0\]\.check: one of memory-roof"):
        parse_config({"calibration": {"records": [{"id": "x", "check": "x", "percent": 1}]}})
    with pytest.raises(ConfigError, match=r"\.roofbot\.yml: unknown key\(s\) fial_on"):
        parse_config({"fial_on": []})
    with pytest.raises(ConfigError, match="points outside the repository"):
        load_config_text("records: ['../x/*.json']\n")


def test_a_misspelt_key_or_word_gets_did_you_mean() -> None:
    """Wherever a key is unknown (the top, a calibration entry, a pin) or a word is not one of
    the choices, the closest right one is offered beside the keys there are."""
    cases = {
        "deprecated_fial: true": ".roofbot.yml: unknown key(s) deprecated_fial (did you mean "
        "deprecated_fail?); the keys are records, catalogue, fail_on, deprecated_fail,",
        "calibration: {tolerance: 0.2}": "calibration: unknown key(s) tolerance (did you mean "
        "tolerance_pp?); the keys are tolerance_pp, records",
        "pins: {r: {acclerator: x, colour: red}}": "pins.r: unknown key(s) acclerator (did you "
        "mean accelerator?), colour; the keys are accelerator, count,",
        "fail_on: [violations]": "fail_on[0]: one of error, violation, suspect, unchecked, pass, "
        "skipped; got 'violations' (did you mean violation?)",
        "pins: {r: {parallelism: tensors}}": "pins.r.parallelism: one of tensor, pipeline; got "
        "'tensors' (did you mean tensor?)",
    }
    for text, message in cases.items():
        with pytest.raises(ConfigError) as e:
            load_config_text(text + "\n")
        assert str(e.value).startswith(message), str(e.value)
    with pytest.raises(ConfigError) as e:
        load_config_text("zzz: 1\n")
    assert "did you mean" not in str(e.value)


def test_an_error_shows_the_value_as_the_file_writes_it() -> None:
    """null, true and false as YAML writes them, not Python's None, True, False."""
    for text, message in {
        "records:": "records: expected a glob pattern or a list of them, got null",
        "calibration: {tolerance_pp: true}": "calibration.tolerance_pp: expected a number, got true",
        "pins: {r: {params: false}}": "pins.r.params: expected billions of parameters, e.g. 6.7 "
        "or '6.7B', got false",
    }.items():
        with pytest.raises(ConfigError, match=f"^{re.escape(message)}$"):
            load_config_text(text + "\n")


def test_the_words_are_the_schemas_own() -> None:
    """An error at a node that carries `errorMessage` or `patternErrorMessage` (the words an
    editor shows) says those words."""
    size = SCHEMA["definitions"]["size"]["errorMessage"]
    with pytest.raises(ConfigError, match=f"^pins.r.weight_bytes: {re.escape(size)}, got '14'$"):
        parse_config({"pins": {"r": {"weight_bytes": "14"}}})
    outside = SCHEMA["definitions"]["glob"]["patternErrorMessage"]
    with pytest.raises(ConfigError, match=f"^records\\[0\\]: '../x' {re.escape(outside)}$"):
        parse_config({"records": ["../x"]})
    ids = SCHEMA["properties"]["pins"]["anyOf"][0]["propertyNames"]["errorMessage"]
    with pytest.raises(ConfigError, match=f"^pins: {re.escape(ids)}, got 1$"):
        parse_config({"pins": {1: {}}})


def test_fail_on_existing_is_a_flag_false_by_default() -> None:
    assert parse_config(None).fail_on_existing is False
    assert parse_config({"fail_on_existing": True}).fail_on_existing is True
    with pytest.raises(ConfigError, match=r"^fail_on_existing: expected true or false, got 'yes'$"):
        parse_config({"fail_on_existing": "yes"})
    described = SCHEMA["properties"]["fail_on_existing"]
    assert described["type"] == "boolean" and described["default"] is False


def test_valid_values_convert() -> None:
    """Sizes to bytes with the text kept, "6.7B" to billions, verdict names to Verdict,
    calibration entries to CalibrationSpec, one glob to a list of one."""
    cfg = load_config_text(
        "records: data/*.json\n"
        "catalogue: {models: [m/*.json]}\n"
        "fail_on: [violation, suspect]\n"
        "calibration: {tolerance_pp: 0, records: [{id: r, check: memory-roof, percent: 51}]}\n"
        "pins: {r: {weight_bytes: 3.53 gib, params: 6.7B, active_params: 3, count: 2.0,"
        " bandwidth_gbps: 1555, parallelism: tensor}}\n"
    )
    assert cfg.records == ("data/*.json",)
    assert cfg.catalogue["models"] == ("m/*.json",)
    assert cfg.catalogue["accelerators"] == ("data/accelerators/*.json",)
    assert cfg.fail_on == {Verdict.VIOLATION, Verdict.SUSPECT}
    assert cfg.tolerance_pp == 0.0 and cfg.calibration == (
        CalibrationSpec("r", "memory-roof", 51.0),
    )
    pins = cfg.pins["r"]
    assert pins["weight_bytes"] == Pin("weight_bytes", 3.53 * 2**30, "3.53 GiB")
    assert pins["params"] == Pin("params", 6.7, "6.7B")
    assert pins["active_params"] == Pin("active_params", 3.0, "3")
    assert pins["count"] == Pin("count", 2, "2.0") and isinstance(pins["count"].value, int)
    assert pins["bandwidth_gbps"] == Pin("bandwidth_gbps", 1555.0, "1555")
    assert pins["parallelism"] == Pin("parallelism", "tensor", "tensor")


def test_non_finite_numbers_are_the_one_documented_difference() -> None:
    # YAML's .inf is a number to a JSON Schema validator; roofbot refuses it.
    data = yaml.safe_load("calibration: {tolerance_pp: .inf}\n")
    assert not accepts(data)


def test_numbers_beyond_a_float_are_refused_saying_where() -> None:
    """.inf, .nan and a whole number too large for a float are numbers to a JSON Schema
    validator; roofbot refuses them, as an error that says where (never a crash)."""
    assert valid({"pins": {"r": {"count": 10**400}}})
    for config, message in (
        (
            {"calibration": {"tolerance_pp": math.nan}},
            "calibration.tolerance_pp: expected a number",
        ),
        ({"pins": {"r": {"count": 10**400}}}, "pins.r.count: expected a whole number, got 1000"),
        ({"pins": {"r": {"bandwidth_gbps": 10**400}}}, "pins.r.bandwidth_gbps: expected a number"),
        ({"pins": {"r": {"params": "9" * 400 + "B"}}}, "pins.r.params: expected billions"),
        ({"pins": {"r": {"weight_bytes": "9" * 400 + " GB"}}}, "pins.r.weight_bytes: too large"),
    ):
        with pytest.raises(ConfigError) as e:
            parse_config(config)
        assert str(e.value).startswith(message), str(e.value)


# ------------------------------------------------------------------ the property

_word = st.sampled_from(
    ["", "x", "r", "data/*.json", "../x", "/abs", "a/../b", "6.7B", "0B", "14 GB", "0 GB",
     "3.53 GiB", "14", "tensor", "pipeline", "data", "violation", "error", "pass", "nonsense",
     "memory-roof", "compute-roof", "fp8"]
)  # fmt: skip
_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 100),
    st.floats(-10, 1e4, allow_nan=False, allow_infinity=False),
    _word,
)
_any = st.recursive(
    _leaf,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_word, inner, max_size=3)),
    max_leaves=6,
)
_pin = st.dictionaries(st.sampled_from([*PIN_KEYS, "colour"]), _leaf, max_size=3)
_cal_entry = st.fixed_dictionaries(
    {},
    optional={
        "id": st.one_of(_word, st.integers()),
        "check": _word,
        "percent": _leaf,
        "extra": _leaf,
    },
)
_top = st.fixed_dictionaries(
    {},
    optional={
        "records": st.one_of(_word, st.lists(_word, max_size=3), _any),
        "catalogue": st.one_of(
            st.dictionaries(st.sampled_from(["models", "accelerators", "datasets"]), _word), _any
        ),
        "fail_on": st.one_of(st.lists(_word, max_size=3), _any),
        "deprecated_fail": _leaf,
        "calibration": st.one_of(
            st.fixed_dictionaries(
                {},
                optional={
                    "tolerance_pp": _leaf,
                    "records": st.one_of(st.lists(_cal_entry, max_size=2), _leaf),
                    "tolerance": _leaf,
                },
            ),
            _any,
        ),
        "pins": st.one_of(st.dictionaries(_word, st.one_of(_pin, _leaf), max_size=2), _any),
        "traps": st.one_of(st.dictionaries(_word, _leaf, max_size=2), _any),
        "other": _leaf,
    },
)


@settings(max_examples=400, deadline=None)
@given(_top)
def test_the_loader_accepts_exactly_what_the_schema_validates(data: dict[str, Any]) -> None:
    assert accepts(data) == valid(data), data


@pytest.mark.parametrize(
    ("config", "where"),
    [
        ({"fail_on": ["v" * 200_000]}, "fail_on[0]: one of"),
        ({"pins": {"r" * 900: {"batch": "x" * 100_000}}}, "pins.rrrr"),
        ({"k" * 900: 1}, "unknown key(s) kkkk"),
        ({"records": ["../" * 50_000]}, "records[0]:"),
    ],
)
def test_an_error_quotes_a_long_key_or_value_cut_short(config: dict[str, Any], where: str) -> None:
    """A key or value as long as the file is quoted in at most 80 characters: the message
    still says where and what, in a line a log or a comment can show."""
    with pytest.raises(ConfigError) as e:
        load_config_text(json.dumps(config))
    message = str(e.value)
    assert where in message and "…" in message
    assert len(message) < 400 and len(message.splitlines()) == 1, message[:500]
