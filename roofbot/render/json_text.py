"""A record's JSON as the report nests it (inside "records", four spaces in), written
straight from its result: byte for byte what json.dumps(record_json(...), indent=2) writes
there, at a fraction of the cost. json.dumps falls back to its pure-Python encoder whenever
it indents, and a cold `--format json` sweep writes every record. `json_report.record_json`
stays the definition; tests/test_properties.py holds the two together on odd values."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from json.encoder import encode_basestring as _string  # C, as ensure_ascii=False
from typing import Any

from roofbot.core.provenance import Input
from roofbot.core.results import RecordResult, RoofCheck
from roofbot.render.findings import record_fix


def rounded(x: float, places: int = 2) -> float | int:
    """A number as the report writes it: rounded to `places`, an int where it is whole, 0
    where it is not finite (JSON has no NaN)."""
    if not math.isfinite(x):
        return 0
    r = round(x, places)
    return int(r) if r == int(r) and abs(r) < 1e15 else r


def input_value(v: object) -> object:
    """An input's value as the report writes it: a float rounded to 6 places, an enum
    member as its value, anything else as it is."""
    if isinstance(v, float):
        return rounded(v, 6)
    if hasattr(v, "value") and not isinstance(v, int | str):  # enums
        return v.value
    return v


def record_text(r: RecordResult, gotchas: dict[str, str | None]) -> str:
    """One record's JSON as the report nests it, indented four spaces (as `dumps` writes it
    inside "records"): `record_json`'s keys in its order, written straight from the result.
    (Building the dict and walking it took 47 us a record of a cold `--format json` sweep's
    250; this takes 25. Tests hold the two to the same bytes.)"""
    binding = r.binding()
    value = r.value
    inputs = dict(r.inputs)  # as record_json's dict: a repeated name keeps its first place
    notes = r.trap_notes
    return (
        f'    {{\n      "id": {_scalar(r.id, _P6)},\n      "path": {_scalar(r.path, _P6)}'
        f',\n      "status": {_scalar(r.status, _P6)}'
        f',\n      "verdict": {_string(r.verdict._value_)}'
        f',\n      "deprecated": {"true" if r.deprecated else "false"}'
        f',\n      "metric": {_scalar(r.metric, _P6)}'
        f',\n      "value": {"null" if value is None else _number(rounded(value, 6))}'
        f',\n      "unit": {_scalar(r.unit, _P6)}'
        f',\n      "inputs": '
        + (
            _LIST8.join([_input_text(name, i) for name, i in inputs.items()]).join(_OBJECT6)
            if inputs
            else "{}"
        )
        + ',\n      "checks": '
        + (_LIST8.join([_check_text(c) for c in r.checks]).join(_ARRAY6) if r.checks else "[]")
        + ',\n      "binding": '
        + ("null" if binding is None else _string(binding.check._value_))
        + f',\n      "traps": {_strings(r.traps, _P6)},\n      "trap_details": '
        + (
            _LIST8.join([_note_text(t, why, gotchas.get(t)) for t, why in notes]).join(_ARRAY6)
            if notes
            else "[]"
        )
        + f',\n      "messages": {_strings([m.text for m in r.messages], _P6)}'
        f',\n      "lacks": {_strings(r.lacks, _P6)}'
        f',\n      "pinned": {_scalar(r.pinned, _P6)}'
        f',\n      "fix": {_scalar(record_fix(r), _P6)}\n    }}'
    )


# What `record_text` writes around a value (`_value_`, an enum member's own attribute, is
# read without the Enum property's call). Pads: a record's keys are six spaces in, an
# input's or a check's ten, an alternative reading's fourteen.
_P6, _P10, _P12, _P14 = " " * 6, " " * 10, " " * 12, " " * 14
_LIST8 = ",\n" + " " * 8
_OBJECT6 = ("{\n" + " " * 8, "\n" + _P6 + "}")
_ARRAY6 = ("[\n" + " " * 8, "\n" + _P6 + "]")


def _input_text(name: object, i: Input[Any]) -> str:
    """One of `record_json`'s "inputs", eight spaces in. (The common types are tested here,
    not in a call to `_scalar`: a record has ten inputs.)"""
    v = i.value
    kind = type(v)
    if kind is float:
        value = _number(rounded(v, 6))
    elif kind is int:
        value = int.__repr__(v)
    elif kind is str:
        value = _string(v)
    else:
        value = _scalar(input_value(v), _P10)
    source = i.source
    return (
        f'{_string(name) if type(name) is str else _key(name)}: {{\n{_P10}"value": {value}'
        f',\n{_P10}"from": {_string(source) if type(source) is str else _scalar(source, _P10)}'
        f',\n{_P10}"basis": {_string(i.basis._value_)}\n        }}'
    )


def _note_text(trap: object, why: object, gotcha: str | None) -> str:
    """One of `record_json`'s "trap_details", eight spaces in."""
    return (
        f'{{\n{_P10}"trap": {_scalar(trap, _P10)},\n{_P10}"why": {_scalar(why, _P10)}'
        f',\n{_P10}"gotcha": {_scalar(gotcha, _P10)}\n        }}'
    )


def _check_text(c: RoofCheck) -> str:
    """`check_json(c)` as it sits in a record's "checks", eight spaces in."""
    text = (
        f'{{\n{_P10}"check": {_string(c.check._value_)}'
        f',\n{_P10}"applies": {_scalar(c.applies, _P10)}'
        f',\n{_P10}"ceiling": {_number(rounded(c.ceiling))}'
        f',\n{_P10}"value": {_number(rounded(c.value, 6))}'
        f',\n{_P10}"percent": {_number(rounded(c.percent))}'
        f',\n{_P10}"formula": {_scalar(c.formula, _P10)}'
    )
    if c.why:
        text += f',\n{_P10}"why": {_scalar(c.why, _P10)}'
    if c.assumed:
        text += f',\n{_P10}"assumed": {_strings(c.assumed, _P10)}'
    if c.alternatives:
        readings = [
            f'{{\n{_P14}"reading": {_scalar(label, _P14)}'
            f',\n{_P14}"ceiling": {_number(rounded(x))}'
            f',\n{_P14}"percent": {_number(rounded(100 * c.value / x))}\n{_P12}}}'
            for label, x in c.alternatives
        ]
        text += f',\n{_P10}"alternatives": [\n{_P12}' + f",\n{_P12}".join(readings) + f"\n{_P10}]"
    return text + "\n        }"


def _key(name: object) -> str:
    """An input's name that is not a string, as json.dumps writes it as a key (it coerces an
    int, float, bool or None, and refuses anything else)."""
    return json.dumps({name: 0})[1:-4]


def _number(x: float | int) -> str:
    """What json.dumps writes for a number `rounded` returned."""
    return int.__repr__(x) if type(x) is int else float.__repr__(x)


def _scalar(x: object, pad: str) -> str:
    """`x` as json.dumps writes it at indent `pad`: a string or null at once, anything else
    (a value a stranger's record put where a string was expected) through `_indented`."""
    if type(x) is str:
        return _string(x)
    if x is None:
        return "null"
    if x is True:
        return "true"
    if x is False:
        return "false"
    if type(x) is int:
        return int.__repr__(x)
    out: list[str] = []
    _indented(x, pad, out)
    return "".join(out)


def _strings(items: Sequence[object], pad: str) -> str:
    """A list of strings (any value, through `_scalar`) at indent `pad`."""
    if not items:
        return "[]"
    inner = ",\n" + pad + "  "
    return (
        "[\n" + pad + "  " + inner.join([_scalar(x, pad + "  ") for x in items]) + "\n" + pad + "]"
    )


def _indented(obj: Any, pad: str, out: list[str]) -> None:
    """`obj` as json.dumps(obj, indent=2, ensure_ascii=False) writes it at indent `pad`, byte
    for byte (a test holds them together), appended to `out`. json.dumps falls back to its
    pure-Python encoder whenever it indents: this walk encodes each string with the C
    encoder and costs a fraction of that. `record_text` writes with it a value of a type
    its field does not expect (what a stranger's record put there)."""
    if isinstance(obj, str):
        out.append(_string(obj))
    elif obj is None:
        out.append("null")
    elif obj is True:
        out.append("true")
    elif obj is False:
        out.append("false")
    elif isinstance(obj, int):
        out.append(int.__repr__(obj))
    elif isinstance(obj, float):
        out.append(float.__repr__(obj) if math.isfinite(obj) else json.dumps(obj))
    elif isinstance(obj, dict):
        if not all(isinstance(key, str) for key in obj):  # json.dumps coerces other keys
            out.append(json.dumps(obj, indent=2, ensure_ascii=False).replace("\n", "\n" + pad))
            return
        if not obj:
            out.append("{}")
            return
        inner = pad + "  "
        sep = "{\n" + inner
        for key, value in obj.items():
            out.append(sep + _string(key) + ": ")
            _indented(value, inner, out)
            sep = ",\n" + inner
        out.append("\n" + pad + "}")
    elif isinstance(obj, list | tuple):
        if not obj:
            out.append("[]")
            return
        inner = pad + "  "
        sep = "[\n" + inner
        for value in obj:
            out.append(sep)
            _indented(value, inner, out)
            sep = ",\n" + inner
        out.append("\n" + pad + "]")
    else:
        raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable")
