"""Configuration shapes written as data. Each shape does two jobs from one definition: it
validates a parsed YAML value (raising ConfigError that says where and what to write instead)
and it describes itself as JSON Schema (draft-07) for editors. `roofbot/core/config.py` builds
`.roofbot.yml`'s table from these, so the loader and the published schema can't drift.

The schema is as strict as the loader, with one exception JSON can't express: YAML's `.inf`
and `.nan` are numbers to a schema validator but not to roofbot."""

from __future__ import annotations

import math
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, is_dataclass, replace
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


def _shown(raw: Any) -> str:
    """`raw`'s repr, cut to SHOWN_CHARS characters."""
    return clip(repr(raw), SHOWN_CHARS)


class _Shown:
    """A value for a `pattern_error` template's `{value!r}`: its repr, cut as `_shown` cuts it."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw

    def __repr__(self) -> str:
        return _shown(self.raw)


def at(where: str, key: str | int) -> str:
    """The dotted path of a child: `calibration.records[0].check`."""
    if isinstance(key, int):
        return f"{where}[{key}]"
    key = clip(key, SHOWN_CHARS)  # a key of the file: as long as YAML lets it be
    return f"{where}.{key}" if where else key


def _fail(where: str, text: str) -> ConfigError:
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
            raise _fail(where, f"{self.expect}, got {_shown(raw)}")
        if self.pattern is not None and not re.search(self.pattern, raw):
            raise _fail(where, (self.pattern_error or self.expect).format(value=_Shown(raw)))
        if self.convert is None:
            return raw
        try:
            return self.convert(raw)
        except ValueError:
            raise _fail(where, f"{self.expect}, got {_shown(raw)}") from None

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
            raise _fail(where, f"one of {', '.join(self.values)}; got {_shown(raw)}")
        return raw

    def core_schema(self) -> JsonSchema:
        return {"type": "string", "enum": list(self.values)}


@dataclass(frozen=True)
class Flag(Shape):
    description: str = ""

    def parse(self, raw: Any, where: str) -> Any:
        if not isinstance(raw, bool):
            raise _fail(where, f"true or false, got {_shown(raw)}")
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
            raise _fail(where, f"expected a number, got {_shown(raw)}")
        if self.minimum is not None and (
            raw < self.minimum or (self.exclusive and raw == self.minimum)
        ):
            bound = "positive" if self.minimum == 0 and self.exclusive else f">= {self.minimum:g}"
            raise _fail(where, f"must be {bound}, got {_shown(raw)}")
        if self.whole:
            if raw != int(raw):
                raise _fail(where, f"expected a whole number, got {_shown(raw)}")
            return int(raw)
        return float(raw)

    def core_schema(self) -> JsonSchema:
        out: JsonSchema = {"type": "integer" if self.whole else "number"}
        if self.minimum is not None:
            out["exclusiveMinimum" if self.exclusive else "minimum"] = self.minimum
        return out


@dataclass(frozen=True)
class Either(Shape):
    """Any one of several shapes (tried in order); `expect` words the failure."""

    options: tuple[Shape, ...]
    expect: str
    description: str = ""

    def parse(self, raw: Any, where: str) -> Any:
        for option in self.options:
            try:
                return option.parse(raw, where)
            except ConfigError:
                continue
        raise _fail(where, self.expect)

    def core_schema(self) -> JsonSchema:
        return {"anyOf": [o.schema() for o in self.options]}


@dataclass(frozen=True)
class ListOf(Shape):
    """A list of one shape; with `single`, one bare item stands for a list of one."""

    item: Shape
    expect: str = "expected a list"
    single: bool = False
    description: str = ""

    def parse(self, raw: Any, where: str) -> Any:
        if self.single and isinstance(raw, str):
            return (self.item.parse(raw, where),)
        if not isinstance(raw, list):
            raise _fail(where, f"{self.expect}, got {type(raw).__name__}")
        return tuple(self.item.parse(v, at(where, i)) for i, v in enumerate(raw))

    def core_schema(self) -> JsonSchema:
        array: JsonSchema = {"type": "array", "items": self.item.schema()}
        return {"anyOf": [self.item.schema(), array]} if self.single else array


@dataclass(frozen=True)
class Field:
    """One key of a Record: its shape, whether it may be null (meaning: the default), and the
    default an editor shows."""

    name: str
    shape: Shape
    nullable: bool = False
    required: bool = False
    default: Any = None

    def schema(self) -> JsonSchema:
        inner = self.shape.schema()
        out: JsonSchema
        if self.nullable:
            desc = inner.pop("description", "")
            out = {"anyOf": [inner, {"type": "null"}]}
            if desc:
                out = {"description": desc, **out}
        else:
            out = inner
        if self.default is not None:
            out["default"] = self.default
        return out


@dataclass(frozen=True)
class Record(Shape):
    """A mapping with known keys only: a typo is an error, never silently ignored."""

    fields: tuple[Field, ...]
    description: str = ""
    nullable: bool = False  # the whole mapping may be null (an empty YAML document)

    def parse(self, raw: Any, where: str) -> Any:
        if raw is None and self.nullable:
            return {}
        known = [f.name for f in self.fields]
        if not isinstance(raw, Mapping):
            raise _fail(where, f"expected a mapping with keys {', '.join(known)}")
        unknown = sorted(clip(str(k), SHOWN_CHARS) for k in raw if k not in known)
        if unknown:
            raise _fail(
                where, f"unknown key(s) {', '.join(unknown)}; the keys are {', '.join(known)}"
            )
        out: dict[str, Any] = {}
        for f in self.fields:
            if f.name not in raw:
                if f.required:
                    raise _fail(where, f"missing key {f.name} (expected {', '.join(known)})")
                continue
            value = raw[f.name]
            if value is None and f.nullable:
                continue
            out[f.name] = f.shape.parse(value, at(where, f.name))
        return out

    def core_schema(self) -> JsonSchema:
        out: JsonSchema = {
            "type": ["object", "null"] if self.nullable else "object",
            "additionalProperties": False,
            "properties": {f.name: f.schema() for f in self.fields},
        }
        required = [f.name for f in self.fields if f.required]
        if required:
            out["required"] = required
        return out


@dataclass(frozen=True)
class MapOf(Shape):
    """A mapping from free string keys (record ids, trap ids) to one shape."""

    value: Shape
    key_name: str = "key"
    expect: str = "expected a mapping"
    description: str = ""
    examples: tuple[Any, ...] = field(default=())

    def parse(self, raw: Any, where: str) -> Any:
        if not isinstance(raw, Mapping):
            raise _fail(where, self.expect)
        out: dict[str, Any] = {}
        for k, v in raw.items():
            if not isinstance(k, str) or not k:
                raise _fail(where, f"{self.key_name} {_shown(k)} is not a non-empty string")
            out[k] = self.value.parse(v, at(where, k))
        return out

    def core_schema(self) -> JsonSchema:
        out: JsonSchema = {
            "type": "object",
            "propertyNames": {"minLength": 1},
            "additionalProperties": self.value.schema(),
        }
        if self.examples:
            out["examples"] = list(self.examples)
        return out


@dataclass(frozen=True)
class Named(Shape):
    """A shape published once under `definitions` and referred to by name wherever it is used."""

    name: str
    shape: Shape
    description: str = ""

    def parse(self, raw: Any, where: str) -> Any:
        return self.shape.parse(raw, where)

    def core_schema(self) -> JsonSchema:
        return {"$ref": f"#/definitions/{self.name}"}


def definitions(shape: Shape | Field) -> dict[str, JsonSchema]:
    """Every Named shape reachable from `shape`, by name, as JSON Schema."""
    out: dict[str, JsonSchema] = {}

    def walk(node: object) -> None:
        if isinstance(node, Named):
            if node.name not in out:
                out[node.name] = node.shape.schema()
                walk(node.shape)
            return
        if isinstance(node, tuple):
            for item in node:
                walk(item)
        elif isinstance(node, Shape | Field):
            for value in vars(node).values():
                walk(value)

    walk(shape)
    return out
