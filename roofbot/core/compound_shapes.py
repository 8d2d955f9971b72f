"""The configuration shapes made of other shapes: `Either` (alternatives), `ListOf`, `Record`
(a mapping with known keys, each a `Field`), `MapOf` (free keys), `Named` (published once under
`definitions`), and `definitions`, which collects the named ones for the JSON Schema. The
contract they implement and the shapes of one plain value are in `roofbot/core/shapes.py`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from roofbot.core.provenance import clip
from roofbot.core.shapes import SHOWN_CHARS, ConfigError, JsonSchema, Shape, at, error_at, shown


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
        raise error_at(where, self.expect)

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
            raise error_at(where, f"{self.expect}, got {type(raw).__name__}")
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
            raise error_at(where, f"expected a mapping with keys {', '.join(known)}")
        unknown = sorted(clip(str(k), SHOWN_CHARS) for k in raw if k not in known)
        if unknown:
            raise error_at(
                where, f"unknown key(s) {', '.join(unknown)}; the keys are {', '.join(known)}"
            )
        out: dict[str, Any] = {}
        for f in self.fields:
            if f.name not in raw:
                if f.required:
                    raise error_at(where, f"missing key {f.name} (expected {', '.join(known)})")
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
            raise error_at(where, self.expect)
        out: dict[str, Any] = {}
        for k, v in raw.items():
            if not isinstance(k, str) or not k:
                raise error_at(where, f"{self.key_name} {shown(k)} is not a non-empty string")
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
