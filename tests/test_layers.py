"""The package's shape: layers point down, no import cycles, small modules and functions."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "planegate"

# Lower layers never import higher ones; a folder may import its own layer.
LAYERS: dict[str, int] = {
    "errors": 0,
    "exitcodes": 0,
    "findings": 0,
    "rules": 0,
    "progress": 0,
    "sourcesize": 0,
    "vocabulary": 0,
    "loading": 0,
    "untrusted": 0,
    "schemas": 0,
    "links": 0,
    "repo": 1,
    "config": 1,
    "report": 1,
    "analysis": 2,
    "freeze": 2,
    "runner": 2,
    "steps": 2,
    "probes": 2,
    "gate": 3,
    "github": 3,
    "init": 3,
    "commands": 4,
    "modes": 4,
    "demo": 4,
    "cli": 5,
    "__main__": 5,
}
FORBIDDEN = {
    ("steps", "github"),
    # the runner executes a capability's code only by name (`ChildPlugin`), never imports it
    ("runner", "probes"),
    ("runner", "freeze"),
    ("runner", "steps"),
    ("runner", "gate"),
    ("gate", "github"),
    ("gate", "init"),
    ("init", "gate"),
    ("modes", "commands"),
}
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 60


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        if "sample" in path.relative_to(PACKAGE).parts:
            continue
        parts = ["planegate", *path.relative_to(PACKAGE).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """Every planegate module `path` imports, at any depth (function-level imports too)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("planegate")}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("planegate"):
            assert node.module is not None
            for alias in node.names:
                child = f"{node.module}.{alias.name}"
                out.add(child if child in modules else node.module)
    return {name for name in out if name in modules}


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(path, modules) - {name} for name, path in modules.items()}


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles() -> None:
    assert _cycles(_graph()) == []


def test_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_layers_point_down() -> None:
    wrong = []
    for module, targets in _graph().items():
        source = _layer(module)
        if source == "__init__":
            continue
        for target in targets:
            dest = _layer(target)
            if dest == "__init__":
                continue
            if LAYERS[dest] > LAYERS[source] or (source, dest) in FORBIDDEN:
                wrong.append(f"{module} -> {target}")
    assert wrong == []


def test_every_folder_has_a_layer() -> None:
    assert {_layer(m) for m in _modules()} - {"__init__"} <= set(LAYERS)


def test_modules_and_functions_stay_small() -> None:
    too_big = []
    for module, path in _modules().items():
        text = path.read_text("utf-8")
        if text.count("\n") > MAX_MODULE_LINES:
            too_big.append(f"{module}: {text.count(chr(10))} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                assert node.end_lineno is not None
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    too_big.append(f"{module}.{node.name}: {length} lines")
    assert too_big == []
