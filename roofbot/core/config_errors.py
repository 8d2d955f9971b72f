"""What a `.roofbot.yml` that jsonschema refused gets told: `ConfigError`, one line naming the
key's path (`calibration.records[0].check`) and what to write there, "did you mean" for a
misspelt key or word. The words come from the schema (`errorMessage`, `patternErrorMessage`,
the keys and choices it lists; `roofbot/core/config_schema.py`); the error is read as data
(its keyword, path, value and schema node), never from jsonschema's own message."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from roofbot.core.provenance import clip

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

SHOWN_CHARS = 80
"""Characters of a key or a value an error message quotes: either can be as long as the file."""

_TYPE_WORDS = {
    "array": "expected a list",
    "string": "expected a non-empty string",
    "integer": "expected a whole number",
    "number": "expected a number",
    "boolean": "expected true or false",
}

_LINE_BREAKING = re.compile("[\x00-\x1f\x7f\x85\u2028\u2029]")
"""The C0 controls, DEL, and what `str.splitlines` breaks a line at besides them."""


class ConfigError(ValueError):
    """The configuration can't be used; the message says where and what to change. It is
    one line: a control or line-breaking character that a key or a value of the file put in
    it is written escaped (`\\n`). The CLI prints the message as it is, and in a GitHub
    Actions log a line that starts with `::` is a workflow command (`::add-mask::`,
    `::stop-commands::`), which a pull request's `.roofbot.yml` must not be able to write."""

    def __init__(self, message: str) -> None:
        super().__init__(_LINE_BREAKING.sub(lambda m: repr(m[0])[1:-1], message))


def shown(raw: Any) -> str:
    """`raw` as the file writes it (null, true and false as YAML and JSON do, anything else by
    its repr), cut to SHOWN_CHARS characters."""
    if raw is None or isinstance(raw, bool):
        return json.dumps(raw)
    return clip(repr(raw), SHOWN_CHARS)


def where(path: Iterable[str | int]) -> str:
    """The dotted path of a key (`calibration.records[0].check`); the file itself when empty."""
    out = ""
    for key in path:
        if isinstance(key, int) and not isinstance(key, bool):
            out += f"[{key}]"
        else:
            name = clip(str(key), SHOWN_CHARS)
            out = f"{out}.{name}" if out else name
    return out or ".roofbot.yml"


def did_you_mean(word: Any, choices: Sequence[str]) -> str:
    """ " (did you mean x?)" from the closest of `choices`, or ""."""
    if not isinstance(word, str):
        return ""
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


def config_error(error: ValidationError) -> ConfigError:
    """The ConfigError that says where `error` is and what to write there."""
    error = _branch(error)
    text = _words(error.validator, error.validator_value, error.instance, error.schema)
    return ConfigError(f"{where(error.absolute_path)}: {text}")


def _branch(error: ValidationError) -> ValidationError:
    """Inside an `anyOf`, the error of the alternative the value's type fits (a list of globs
    for a list): the precise one. Where no alternative fits, the `anyOf` itself, or its first
    alternative's type error where the `anyOf` has no words of its own (a key that may be null)."""
    while error.validator == "anyOf":
        branches: dict[Any, list[ValidationError]] = {}
        for sub in error.context or ():
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        fitting = [errs for errs in branches.values() if not any(_type_miss(e) for e in errs)]
        if fitting:
            error = fitting[0][0]
        elif isinstance(error.schema, dict) and "errorMessage" in error.schema:
            return error
        else:
            error = next(iter(branches.values()))[0]
    return error


def _type_miss(error: ValidationError) -> bool:
    """The value is not of the alternative's type at all (not some part of it wrong)."""
    return error.validator in ("type", "anyOf") and not error.relative_path


def _words(keyword: Any, bound: Any, value: Any, node: Any) -> str:
    """What is wrong with `value` and what to write, from the failed `keyword` of `node`."""
    node = node if isinstance(node, dict) else {}
    if keyword == "additionalProperties":
        return _unknown_keys(value, node)
    if keyword == "required":
        missing = next(k for k in bound if k not in value)
        return f"missing key {missing} (expected {', '.join(bound)})"
    if keyword == "exclusiveMinimum":
        return f"must be {'positive' if bound == 0 else f'> {bound:g}'}, got {shown(value)}"
    if keyword == "minimum":
        return f"must be >= {bound:g}, got {shown(value)}"
    if "enum" in node:
        choices = [str(c) for c in node["enum"]]
        return f"one of {', '.join(choices)}; got {shown(value)}{did_you_mean(value, choices)}"
    if keyword == "pattern" and "patternErrorMessage" in node:
        return f"{shown(value)} {node['patternErrorMessage']}"
    return f"{_expected(node)}, got {shown(value)}"


def _expected(node: dict[str, Any]) -> str:
    """What `node` holds, worded "expected ...": its own words, else its type's."""
    if "errorMessage" in node:
        return str(node["errorMessage"])
    types = node.get("type", [])
    kind = next((t for t in ([types] if isinstance(types, str) else types) if t != "null"), "")
    if kind == "object":
        return f"expected a mapping with keys {', '.join(node.get('properties', {}))}"
    return _TYPE_WORDS.get(kind, "expected another value")


def _unknown_keys(value: Any, node: dict[str, Any]) -> str:
    known = list(node.get("properties", {}))
    unknown = sorted(clip(str(k), SHOWN_CHARS) for k in value if k not in known)
    named = ", ".join(f"{k}{did_you_mean(k, known)}" for k in unknown)
    return f"unknown key(s) {named}; the keys are {', '.join(known)}"
