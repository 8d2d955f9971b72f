"""The package's import graph, read from the source with ast: no circle anywhere, and the pure
core imports nothing of roofbot outside roofbot/core."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "roofbot"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The roofbot modules `name` imports, at module top or inside functions alike: a circle
    hidden in a function is a circle still. `from pkg import sub` is the submodule."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                base = base if is_package else base[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            targets = [f"{module}.{alias.name}" for alias in node.names] + [module]
            targets = [t for t in targets if t in known] or [module]
            if any(f"{module}.{alias.name}" in known for alias in node.names):
                targets = [t for t in targets if t != module or module == name]
        else:
            continue
        found |= {t for t in targets if t in known and t != name}
    return found


def graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    return {name: imports_of(name, path, known) for name, path in found.items()}


def cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One circle of `edges`, as the modules along it, or None (a depth-first search)."""
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (found := visit(node)) is not None:
            return found
    return None


def test_the_graph_is_read_from_the_source() -> None:
    edges = graph()
    assert "roofbot.action.command" in edges["roofbot.action.main"]
    assert "roofbot.action.pull" in edges["roofbot.action.command"]
    assert "roofbot.core.config" in edges["roofbot.action.policy"]


def test_the_search_finds_a_circle_where_there_is_one() -> None:
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": set()}) is None


def test_roofbot_imports_in_no_circle() -> None:
    assert cycle(graph()) is None


def test_the_action_imports_in_no_circle() -> None:
    edges = {n: {t for t in ts if t.startswith("roofbot.action")}
             for n, ts in graph().items() if n.startswith("roofbot.action")}  # fmt: skip
    assert cycle(edges) is None


def test_the_action_and_the_command_import_one_way() -> None:
    edges = graph()
    assert "roofbot.action.main" not in edges["roofbot.action.command"]
    assert "roofbot.action.command" not in edges["roofbot.action.pull"]


def test_the_command_decisions_import_nothing_of_roofbot() -> None:
    assert graph()["roofbot.action.command_rules"] == set()


def test_the_core_imports_only_the_core() -> None:
    outside = {
        (name, target)
        for name, targets in graph().items()
        if name.startswith("roofbot.core")
        for target in targets
        if not target.startswith("roofbot.core")
    }
    assert outside == set()


def test_nothing_below_the_action_imports_it() -> None:
    edges = graph()
    below = [
        n for n in edges if n.startswith(("roofbot.core", "roofbot.adapters", "roofbot.render"))
    ]
    upward = {(n, t) for n in below for t in edges[n] if t.startswith("roofbot.action")}
    assert upward == set()


def test_nothing_below_the_cli_imports_it() -> None:
    """Only `python -m roofbot` (roofbot/__main__.py) starts the CLI."""
    edges = graph()
    upward = {(n, t) for n, ts in edges.items() if not n.startswith("roofbot.cli")
              and n != "roofbot.__main__" for t in ts if t.startswith("roofbot.cli")}  # fmt: skip
    assert upward == set()


def test_the_git_adapter_is_git_only() -> None:
    """git.py runs git and reads its diff, git_tree.py reads a commit's files: neither reads
    records, the catalogue or the config (that is the repository's and the change set's)."""
    edges = graph()
    assert edges["roofbot.adapters.git"] <= {"roofbot.core.changes"}
    assert edges["roofbot.adapters.git_tree"] <= {
        "roofbot.adapters.git",
        "roofbot.adapters.tree",
        "roofbot.core.changes",
    }
