"""Configuration shapes written as data. Each shape does two jobs from one definition: it
validates a parsed YAML value (raising ConfigError that says where and what to write instead)
and it describes itself as JSON Schema (draft-07) for editors. `roofbot/core/config.py` builds
`.roofbot.yml`'s table from these, so the loader and the published schema can't drift.

This module owns the contract (`Shape`, `ConfigError`, how an error names its place and quotes a
value) and the shapes of one plain value: `Text`, `Choice`, `Flag`, `Number`. The shapes made of
other shapes (lists, mappings, alternatives, named definitions) are in
`roofbot/core/compound_shapes.py`.

The schema is as strict as the loader, with one exception JSON can't express: YAML's `.inf`
and `.nan` are numbers to a schema validator but not to roofbot."""

from __future__ import annotations

import math
import re
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, is_dataclass, replace
from typing import Any

from roofbot.core.provenance import clip

JsonSchema = dict[str, Any]


class ConfigError(ValueError):
    """The configuration can't be used; the message says where and what to change. It is
    one line: a control or line-breaking character that a key or a value of the file put in
    it is written escaped (`\\n`). The CLI prints the message as it is, and in a GitHub
    Actions log a line that starts with `::` is a workflow command (`::add-mask::`,
    `::stop-commands::`), which a pull request's `.roofbot.yml` must not be able to write."""

    def __init__(self, message: str) -> None:
        super().__init__(_LINE_BREAKING.sub(lambda m: repr(m[0])[1:-1], message))


_LINE_BREAKING = re.compile("[\x00-\x1f\x7f\x85\u2028\u2029]")
"""The C0 controls, DEL, and what `str.splitlines` breaks a line at besides them."""


SHOWN_CHARS = 80
"""Characters of a value an error message quotes: a value can be as long as the file."""


def shown(raw: Any) -> str:
    """`raw`'s repr, cut to SHOWN_CHARS characters."""
    return clip(repr(raw), SHOWN_CHARS)


class _Shown:
    """A value for a `pattern_error` template's `{value!r}`: its repr, cut as `shown` cuts it."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw

    def __repr__(self) -> str:
        return shown(self.raw)


def at(where: str, key: str | int) -> str:
    """The dotted path of a child: `calibration.records[0].check`."""
    if isinstance(key, int):
        return f"{where}[{key}]"
    key = clip(key, SHOWN_CHARS)  # a key of the file: as long as YAML lets it be
    return f"{where}.{key}" if where else key


def error_at(where: str, text: str) -> ConfigError:
    """The error at `where` (the file itself when `where` is empty)."""
    return ConfigError(f"{where or '.roofbot.yml'}: {text}")


class Shape(ABC):
    """A value's shape: `parse` validates and converts, `schema` describes."""

    description: str = ""

    @abstractmethod
    def parse(self, raw: Any, where: str) -> Any:
        """The converted value, or ConfigError naming `where`."""

    @abstractmethod
    def core_schema(self) -> JsonSchema:
        """The JSON Schema of this shape, without its description."""

    def described(self, text: str) -> Shape:
        """The same shape with another description (shapes are shared between keys)."""
        assert is_dataclass(self)
        return replace(self, description=text)

    def schema(self) -> JsonSchema:
        out = self.core_schema()
        if "$ref" in out and self.description:  # draft-07 ignores a $ref's siblings
            out = {"allOf": [out]}
        if self.description:
            out = {"description": self.description, **out}
        return out


@dataclass(frozen=True)
class Text(Shape):
    """A non-empty string, optionally matching `pattern` (Python `re.search`, which for these
    patterns means the same as ECMA-262's, so editors agree with roofbot)."""

    expect: str = "expected a non-empty string"
    pattern: str | None = None
    pattern_error: str | None = None  # may use {value!r}
    convert: Callable[[str], Any] | None = None
    description: str = ""
    examples: tuple[str, ...] = ()

    def parse(self, raw: Any, where: str) -> Any:
        if not isinstance(raw, str) or not raw:
            raise error_at(where, f"{self.expect}, got {shown(raw)}")
        if self.pattern is not None and not re.search(self.pattern, raw):
            raise error_at(where, (self.pattern_error or self.expect).format(value=_Shown(raw)))
        if self.convert is None:
            return raw
        try:
            return self.convert(raw)
        except ValueError:
            raise error_at(where, f"{self.expect}, got {shown(raw)}") from None

    def core_schema(self) -> JsonSchema:
        out: JsonSchema = {"type": "string", "minLength": 1}
        if self.pattern is not None:
            out["pattern"] = self.pattern
        if self.examples:
            out["examples"] = list(self.examples)
        return out


@dataclass(frozen=True)
class Choice(Shape):
    """One of a fixed set of words."""

    values: tuple[str, ...]
    description: str = ""

    def parse(self, raw: Any, where: str) -> Any:
        if not isinstance(raw, str) or raw not in self.values:
            raise error_at(where, f"one of {', '.join(self.values)}; got {shown(raw)}")
        return raw

    def core_schema(self) -> JsonSchema:
        return {"type": "string", "enum": list(self.values)}


@dataclass(frozen=True)
class Flag(Shape):
    description: str = ""

    def parse(self, raw: Any, where: str) -> Any:
        if not isinstance(raw, bool):
            raise error_at(where, f"true or false, got {shown(raw)}")
        return raw

    def core_schema(self) -> JsonSchema:
        return {"type": "boolean"}


@dataclass(frozen=True)
class Number(Shape):
    """A finite number (never a boolean), optionally whole, optionally bounded below."""

    minimum: float | None = None
    exclusive: bool = False  # minimum itself is not allowed
    whole: bool = False
    description: str = ""

    def parse(self, raw: Any, where: str) -> Any:
        if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw):
            raise error_at(where, f"expected a number, got {shown(raw)}")
        if self.minimum is not None and (
            raw < self.minimum or (self.exclusive and raw == self.minimum)
        ):
            bound = "positive" if self.minimum == 0 and self.exclusive else f">= {self.minimum:g}"
            raise error_at(where, f"must be {bound}, got {shown(raw)}")
        if self.whole:
            if raw != int(raw):
                raise error_at(where, f"expected a whole number, got {shown(raw)}")
            return int(raw)
        return float(raw)

    def core_schema(self) -> JsonSchema:
        out: JsonSchema = {"type": "integer" if self.whole else "number"}
        if self.minimum is not None:
            out["exclusiveMinimum" if self.exclusive else "minimum"] = self.minimum
        return out
