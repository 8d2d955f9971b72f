"""The loopback GitHub held to GitHub's REST description: every request a test sends to it
(path, method, parameters, body) and every answer it gives (status, body) is checked against
the operations of tests/github_openapi.json (a subset of npm @octokit/openapi that
scripts/openapi_subset.py regenerates). tests/github_server.py calls :func:`violations` when a
server stops and adds what it finds to ``FakeGitHub.errors``, which every fixture asserts
empty: a request the real GitHub would refuse, or an answer it would never give, fails the
test that caused it.

OpenAPI 3.0's ``nullable: true`` becomes JSON Schema's ``null`` alternative; schemas are
checked with jsonschema's draft 4 rules (OpenAPI 3.0's), formats not enforced."""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SPEC_FILE = Path(__file__).resolve().parent / "github_openapi.json"
BASE = "urn:github-openapi"
#: Where GitHub's own answers differ from its description: (a pattern of the finding, why). Those answers are served as GitHub gave them, so these are not held
#: against the server.
KNOWN_GAPS = (
    (r"GET /repos/\{owner\}/\{repo\}/pulls/\{pull_number\} -> 200: head/repo: None ",
     "a pull request from a deleted fork: GitHub answers head.repo null"),
    (r"GET /repos/\{owner\}/\{repo\}/pulls/\{pull_number\}/comments -> 200: \d+/(line|position): "
     r"None ", "an outdated line comment: GitHub answers line and position null"),
    (r"GET /repos/\{owner\}/\{repo\}/collaborators/\{username\}/permission -> 200: "
     r"(\(root\): 'role_name'|user: )",
     "api/get-collaborator-permission.json, recorded in 2018 (before role_name, and its user "
     "object in the shape of its day)"),
)  # fmt: skip


@dataclass(frozen=True)
class Operation:
    method: str
    path: str  # the description's template, e.g. /repos/{owner}/{repo}/pulls/{pull_number}
    pattern: re.Pattern[str]
    pointer: str  # JSON pointer of the operation in the description

    def parameters(self, spec: dict[str, Any]) -> list[dict[str, Any]]:
        out = []
        for p in spec["paths"][self.path][self.method.lower()].get("parameters", []):
            if "$ref" in p:
                p = spec["components"]["parameters"][p["$ref"].rsplit("/", 1)[1]]
            out.append(p)
        return out


def _nullable(node: Any) -> Any:
    """OpenAPI 3.0 to JSON Schema: `nullable: true` as an explicit null alternative."""
    if isinstance(node, dict):
        converted = {k: _nullable(v) for k, v in node.items()}
        if converted.pop("nullable", False) is True:
            return {"anyOf": [converted, {"type": "null"}]}
        return converted
    if isinstance(node, list):
        return [_nullable(v) for v in node]
    return node


@functools.cache
def contract() -> Contract | None:
    if not SPEC_FILE.is_file():
        return None
    return Contract(_nullable(json.loads(SPEC_FILE.read_text("utf-8"))))


class Contract:
    def __init__(self, spec: dict[str, Any]) -> None:
        from referencing import Registry, Resource
        from referencing.jsonschema import DRAFT4

        self.spec = spec
        self.registry: Any = Registry().with_resource(BASE, Resource(spec, DRAFT4))
        self.operations: list[Operation] = []
        for path, methods in spec["paths"].items():
            regex = re.sub(r"\\{(\w+)\\}", lambda m: "(?P<%s>%s)" % (  # noqa: UP031
                m[1], ".+" if m[1] == "path" else "[^/]+"), re.escape(path))  # fmt: skip
            for method in methods:
                pointer = f"/paths/{_escape(path)}/{method}"
                self.operations.append(
                    Operation(method.upper(), path, re.compile(regex + "$"), pointer)
                )
        # the most literal template first: /pulls/comments/{id} before /pulls/{n}/...
        self.operations.sort(key=lambda o: -len(re.sub(r"\{\w+\}", "", o.path)))

    def match(self, route: str) -> tuple[list[Operation], dict[str, str]]:
        for op in self.operations:
            m = op.pattern.match(route)
            if m:
                same = [o for o in self.operations if o.path == op.path]
                return same, m.groupdict()
        return [], {}

    @functools.cache  # noqa: B019 (one contract a session)
    def _validator(self, pointer: str) -> Any:
        from jsonschema import Draft4Validator

        return Draft4Validator({"$ref": f"{BASE}#{pointer}"}, registry=self.registry)

    def _errors(self, pointer: str, instance: Any) -> list[str]:
        found = self._validator(pointer).iter_errors(instance)
        return [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message[:200]}"
                for e in sorted(found, key=lambda e: list(map(str, e.absolute_path)))[:5]]  # fmt: skip

    def check_request(
        self, method: str, route: str, query: dict[str, str], body: bytes
    ) -> tuple[Operation | None, list[str]]:
        ops, path_values = self.match(route)
        if not ops:
            return None, [f"{method} {route}: no such path in GitHub's REST description"]
        op = next((o for o in ops if o.method == method), None)
        if op is None:
            return None, [f"{method} {route}: GitHub has no {method} on {ops[0].path}"]
        where = f"{method} {op.path}"
        problems = []
        params = op.parameters(self.spec)
        known = {(p["in"], p["name"]): p for p in params}
        for (place, name), p in known.items():
            given = path_values.get(name) if place == "path" else query.get(name)
            if place not in ("path", "query"):
                continue
            if given is None:
                if p.get("required"):
                    problems.append(f"{where}: required {place} parameter {name!r} missing")
                continue
            value = _typed(given, p.get("schema", {}))
            problems += [f"{where}: {place} parameter {name}: {e}"
                         for e in _plain_errors(p.get("schema", {}), value)]  # fmt: skip
        for name in query:
            if ("query", name) not in known:
                problems.append(f"{where}: query parameter {name!r} is not GitHub's")
        request_body = self.spec["paths"][op.path][op.method.lower()].get("requestBody")
        if request_body is not None:
            content = request_body.get("content", {})
            if not body:
                if request_body.get("required"):
                    problems.append(f"{where}: the request needs a JSON body")
            elif "application/json" in content:
                try:
                    data = json.loads(body)
                except ValueError:
                    problems.append(f"{where}: the body is not JSON")
                else:
                    pointer = f"{op.pointer}/requestBody/content/application~1json/schema"
                    problems += [f"{where} body: {e}" for e in self._errors(pointer, data)]
        elif body:
            problems.append(f"{where}: GitHub takes no body here")
        return op, problems

    def check_response(self, op: Operation, status: int, body: Any) -> list[str]:
        responses = self.spec["paths"][op.path][op.method.lower()]["responses"]
        where = f"{op.method} {op.path} -> {status}"
        if str(status) not in responses:
            return [f"{where}: GitHub does not answer this status"] if status < 300 else []
        content = responses[str(status)].get("content", {})
        if "application/json" not in content or not isinstance(body, dict | list):
            return []
        pointer = f"{op.pointer}/responses/{status}/content/application~1json/schema"
        return [f"{where}: {e}" for e in self._errors(pointer, body)]


def _escape(path: str) -> str:
    return path.replace("~", "~0").replace("/", "~1")


def _typed(text: str, schema: dict[str, Any]) -> Any:
    kind = schema.get("type")
    if kind == "integer" and re.fullmatch(r"-?\d+", text):
        return int(text)
    if kind == "boolean" and text in ("true", "false"):
        return text == "true"
    return text


def _plain_errors(schema: dict[str, Any], value: Any) -> list[str]:
    from jsonschema import Draft4Validator

    return [e.message[:200] for e in Draft4Validator(schema).iter_errors(value)]


def violations(exchanges: list[tuple[Any, Any]]) -> list[str]:
    """What in these (RecordedRequest, Response) exchanges GitHub's description forbids; a
    request GitHub would refuse is reported whatever the fake answered, an answer only when
    it was the fake's own (not a fault a test injected)."""
    c = contract()
    if c is None:
        return []
    out: list[str] = []
    for request, response in exchanges:
        op, problems = c.check_request(request.method, request.route, request.query, request.body)
        out += problems
        if op is not None and response is not None and not response.faulted:
            out += c.check_response(op, response.status, response.body)
    return sorted({v for v in out if not any(re.match(gap, v) for gap, _ in KNOWN_GAPS)})
