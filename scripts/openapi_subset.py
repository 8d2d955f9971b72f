"""Regenerate tests/github_openapi.json: the operations of GitHub's REST description that
roofbot and its tests use, with every component they refer to (and nothing else), from the
npm package @octokit/openapi (GitHub's description, published by Octokit).

    npm install --no-save --prefix build/octokit @octokit/openapi@23.0.2
    python scripts/openapi_subset.py [path/to/api.github.com.json]

The subset is what tests/openapi_contract.py holds the loopback GitHub to; a new endpoint in
tests/github_server.py needs its operation added to OPERATIONS here."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "build" / "octokit" / "node_modules" / "@octokit" / "openapi"
SOURCE = PACKAGE / "generated" / "api.github.com.json"
TARGET = ROOT / "tests" / "github_openapi.json"
R = "/repos/{owner}/{repo}"
#: (method, path) of every operation the loopback GitHub serves.
OPERATIONS = [
    ("get", "/user"),
    ("get", "/app"),
    ("get", R),
    ("get", f"{R}/pulls/{{pull_number}}"),
    ("get", f"{R}/pulls/{{pull_number}}/files"),
    ("get", f"{R}/pulls/{{pull_number}}/commits"),
    ("get", f"{R}/pulls/{{pull_number}}/reviews"),
    ("post", f"{R}/pulls/{{pull_number}}/reviews"),
    ("delete", f"{R}/pulls/{{pull_number}}/reviews/{{review_id}}"),
    ("put", f"{R}/pulls/{{pull_number}}/reviews/{{review_id}}/dismissals"),
    ("get", f"{R}/pulls/{{pull_number}}/comments"),
    ("delete", f"{R}/pulls/comments/{{comment_id}}"),
    ("get", f"{R}/issues/{{issue_number}}"),
    ("get", f"{R}/issues/{{issue_number}}/comments"),
    ("get", f"{R}/issues/{{issue_number}}/events"),
    ("post", f"{R}/issues/{{issue_number}}/comments"),
    ("get", f"{R}/issues/comments/{{comment_id}}"),
    ("patch", f"{R}/issues/comments/{{comment_id}}"),
    ("delete", f"{R}/issues/comments/{{comment_id}}"),
    ("post", f"{R}/issues/comments/{{comment_id}}/reactions"),
    ("post", f"{R}/statuses/{{sha}}"),
    ("get", f"{R}/commits/{{ref}}/status"),
    ("get", f"{R}/commits/{{ref}}/statuses"),
    ("get", f"{R}/commits/{{ref}}"),
    ("get", f"{R}/collaborators/{{username}}/permission"),
    ("get", f"{R}/git/blobs/{{file_sha}}"),
    ("get", f"{R}/git/trees/{{tree_sha}}"),
    ("get", f"{R}/compare/{{basehead}}"),
    ("get", f"{R}/contents/{{path}}"),
]


def subset(full: dict[str, Any]) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for method, path in OPERATIONS:
        operation = full["paths"][path][method]
        kept = {k: operation[k] for k in ("operationId", "parameters", "requestBody",
                                          "responses") if k in operation}  # fmt: skip
        paths.setdefault(path, {})[method] = kept
    components: dict[str, dict[str, Any]] = {}
    todo = [paths]
    while todo:
        node = todo.pop()
        for ref in _refs(node):
            _, _, kind, name = ref.split("/", 3)
            if name not in components.setdefault(kind, {}):
                components[kind][name] = full["components"][kind][name]
                todo.append(components[kind][name])
    for table in components.values():
        for name in list(table):
            table[name] = _trim(table[name])
    return {
        "openapi": full["openapi"],
        "info": {"title": full["info"]["title"], "version": full["info"]["version"],
                 "x-source": "npm @octokit/openapi, generated/api.github.com.json"},
        "paths": {p: {m: _trim(o) for m, o in ops.items()} for p, ops in paths.items()},
        "components": {k: dict(sorted(v.items())) for k, v in sorted(components.items())},
    }  # fmt: skip


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [r for v in node.values() for r in _refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in _refs(v)]
    return []


def _trim(node: Any, names: bool = False) -> Any:
    """Without prose and examples: only what validates. `names`: `node` maps property names
    to schemas (a property may well be called "description"), nothing to drop."""
    if isinstance(node, dict):
        if names:
            return {k: _trim(v) for k, v in node.items()}
        drop = {"description", "summary", "example", "examples", "externalDocs"}
        return {
            k: _trim(v, k == "properties")
            for k, v in node.items()
            if k not in drop and not k.startswith("x-")
        }
    if isinstance(node, list):
        return [_trim(v) for v in node]
    return node


def main() -> int:
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else SOURCE
    if not source.is_file():
        print(f"no {source}: npm install --no-save --prefix build/octokit @octokit/openapi")
        return 1
    full = json.loads(source.read_text("utf-8"))
    version = json.loads((source.parents[1] / "package.json").read_text("utf-8"))["version"]
    out = subset(full)
    out["info"]["x-package-version"] = version
    TARGET.write_text(json.dumps(out, indent=1, sort_keys=False) + "\n", "utf-8")
    print(f"{TARGET.relative_to(ROOT)}: {len(OPERATIONS)} operations, "
          f"{sum(len(v) for v in out['components'].values())} components")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
