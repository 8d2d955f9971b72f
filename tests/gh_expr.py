"""GitHub Actions expressions, evaluated as the runner does, for the parts the example workflows
use: literals, `github.*` contexts, `!`, `==`, `!=`, `&&`, `||` (which return an operand, as
in JavaScript), parentheses, and the functions `startsWith`, `endsWith`, `contains`, `format`,
`fromJSON`. String comparisons and searches ignore case, as GitHub's do. `interpolate` fills
the `${{ }}` of a value such as `concurrency.group`; `condition` evaluates a job's `if:`
(written with or without `${{ }}`)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

TOKEN = re.compile(
    r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<num>-?\d+(?:\.\d+)?)|(?P<op>&&|\|\||==|!=|<=|>=|[!<>()\[\].,])"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_-]*))"
)


def tokens(text: str) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise ValueError(f"can't read the expression at {text[pos:]!r}")
        pos = m.end()
        if m.group("str") is not None:
            out.append(("value", m.group("str")[1:-1].replace("''", "'")))
        elif m.group("num") is not None:
            out.append(("value", float(m.group("num"))))
        elif m.group("op") is not None:
            out.append(("op", m.group("op")))
        else:
            out.append(("name", m.group("name")))
    return out


def truthy(value: Any) -> bool:
    return value not in (None, False, 0, "") and value == value  # NaN is falsy


def _lower(value: Any) -> Any:
    return value.lower() if isinstance(value, str) else value


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return str(value)


def _contains(haystack: Any, needle: Any) -> bool:
    if isinstance(haystack, list):
        return any(_lower(item) == _lower(needle) for item in haystack)
    return _text(needle).lower() in _text(haystack).lower()


FUNCTIONS = {
    "startswith": lambda a, b: _text(a).lower().startswith(_text(b).lower()),
    "endswith": lambda a, b: _text(a).lower().endswith(_text(b).lower()),
    "contains": _contains,
    "fromjson": lambda a: json.loads(_text(a)),
    "format": lambda fmt, *args: re.sub(
        r"\{(\d+)\}", lambda m: _text(args[int(m.group(1))]), _text(fmt)
    ),
}


class _Parser:
    def __init__(self, text: str, contexts: Mapping[str, Any]) -> None:
        self.toks = tokens(text)
        self.i = 0
        self.contexts = contexts

    def peek(self) -> tuple[str, Any] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, op: str | None = None) -> tuple[str, Any]:
        tok = self.peek()
        if tok is None or (op is not None and tok != ("op", op)):
            raise ValueError(f"expected {op!r}, got {tok!r}")
        self.i += 1
        return tok

    def parse(self) -> Any:
        value = self.or_()
        if self.peek() is not None:
            raise ValueError(f"unexpected {self.peek()!r}")
        return value

    def or_(self) -> Any:
        value = self.and_()
        while self.peek() == ("op", "||"):
            self.take()
            right = self.and_()
            value = value if truthy(value) else right
        return value

    def and_(self) -> Any:
        value = self.compare()
        while self.peek() == ("op", "&&"):
            self.take()
            right = self.compare()
            value = right if truthy(value) else value
        return value

    def compare(self) -> Any:
        value = self.unary()
        while self.peek() in (("op", "=="), ("op", "!=")):
            _, op = self.take()
            right = self.unary()
            same = _lower(value) == _lower(right)
            value = same if op == "==" else not same
        return value

    def unary(self) -> Any:
        if self.peek() == ("op", "!"):
            self.take()
            return not truthy(self.unary())
        return self.postfix()

    def postfix(self) -> Any:
        value = self.primary()
        while self.peek() in (("op", "."), ("op", "[")):
            _, op = self.take()
            if op == ".":
                kind, name = self.take()
                if kind != "name":
                    raise ValueError(f"a property name, got {name!r}")
            else:
                name = self.or_()
                self.take("]")
            value = value.get(name) if isinstance(value, Mapping) else None
        return value

    def primary(self) -> Any:
        kind, value = self.take()
        if kind == "value":
            return value
        if kind == "op" and value == "(":
            inner = self.or_()
            self.take(")")
            return inner
        if kind == "name":
            if value in ("true", "false", "null"):
                return {"true": True, "false": False, "null": None}[value]
            if self.peek() == ("op", "("):
                self.take()
                args = []
                while self.peek() != ("op", ")"):
                    args.append(self.or_())
                    if self.peek() == ("op", ","):
                        self.take()
                self.take(")")
                return FUNCTIONS[value.lower()](*args)
            return self.contexts.get(value)
        raise ValueError(f"unexpected {value!r}")


def evaluate(text: str, contexts: Mapping[str, Any]) -> Any:
    return _Parser(text, contexts).parse()


def condition(text: str, contexts: Mapping[str, Any]) -> bool:
    """A job's `if:`: with or without `${{ }}`."""
    inner = text.strip()
    if inner.startswith("${{") and inner.endswith("}}"):
        inner = inner[3:-2]
    return truthy(evaluate(inner, contexts))


def interpolate(text: str, contexts: Mapping[str, Any]) -> str:
    """A value with `${{ expression }}` parts filled in."""
    return re.sub(r"\$\{\{(.*?)\}\}", lambda m: _text(evaluate(m.group(1), contexts)), text)


def github_context(
    event_name: str, payload: Mapping[str, Any], run_id: int = 4242
) -> dict[str, Any]:
    """The `github` context of a run of `event_name` with this payload."""
    return {"github": {"event_name": event_name, "event": payload, "run_id": run_id}}
