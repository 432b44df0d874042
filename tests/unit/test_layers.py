"""The package's shape: layers point down, no import cycles, small modules and functions."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "planegate"

# Lower layers never import higher ones; a folder may import its own layer.
LAYERS: dict[str, int] = {
    "errors": 0,
    "exitcodes": 0,
    "exiting": 0,
    "findings": 0,
    "rules": 0,
    "progress": 0,
    "sourcesize": 0,
    "syntax": 0,
    "vocabulary": 0,
    "loading": 0,
    "untrusted": 0,
    "schemas": 0,
    "wire": 0,
    "urls": 0,
    "gitfacts": 1,
    "pyimports": 0,
    "collectable": 0,
    "repo": 1,
    "config": 1,
    "report": 1,
    "analysis": 2,
    "freeze": 2,
    "runner": 2,
    "junit": 2,
    "steps": 2,
    "probes": 2,
    "signs": 2,
    "gate": 3,
    "shards": 3,
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


# Folders of one layer that import each other: each edge is a decision, named here. A new
# one fails until it is added; one that no longer exists fails until it is removed.
SAME_LAYER_EDGES: set[tuple[str, str]] = {
    ("__main__", "cli"),
    ("errors", "exitcodes"),
    ("findings", "exitcodes"),
    ("loading", "errors"),
    ("loading", "schemas"),
    ("rules", "findings"),
    ("wire", "errors"),
    ("wire", "loading"),
    ("wire", "schemas"),
    ("wire", "collectable"),  # the digest's test functions, checked without the validator
    ("collectable", "pyimports"),  # the test functions, through the trees already parsed
    ("collectable", "sourcesize"),
    ("sourcesize", "syntax"),  # one parse at a time: the gate parses on several threads
    ("pyimports", "syntax"),
    ("config", "repo"),  # the configuration is read from a commit
    ("gitfacts", "config"),
    ("gitfacts", "repo"),
    # layer 2, in order: runner, then freeze, analysis; probes; signs; steps
    ("freeze", "runner"),
    ("junit", "runner"),  # a foreign runner's run read as the RunResult pytest's gives
    ("junit", "freeze"),  # its sweep makes the pytest sweep's decisions
    ("probes", "analysis"),
    ("probes", "freeze"),  # the fixture probe runs its candidates with the sweep's child plugin
    ("probes", "runner"),
    ("signs", "analysis"),  # a definition compared between main and the head
    ("signs", "freeze"),  # main's side of the signs runs with the sweep's child plugin
    ("signs", "probes"),
    ("signs", "runner"),
    ("steps", "analysis"),
    ("steps", "freeze"),
    ("steps", "probes"),
    ("steps", "runner"),
    ("steps", "signs"),
    ("shards", "gate"),  # a shard runs one slice of the gate
    ("github", "shards"),  # the action's `shard` input is a shard; merge mode reads evidence
    ("commands", "demo"),
    ("commands", "modes"),  # `planegate action` hands the modes to github/
}

# Module names that repeat across capability packages on purpose: each capability has the
# same shape, so the same name means the same job.
SHAPE_NAMES = frozenset({"child", "plan", "run", "wire", "findings", "registry"})
# Folders whose modules are named after a verb or a mode (the CLI's, the action's): their
# `gate` is the gate's shell, not another gate.
VERB_FOLDERS = frozenset({"commands", "modes"})


def _folder_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Top-level folders (or root modules) and the others each one imports."""
    folders: dict[str, set[str]] = {}
    for module, targets in graph.items():
        source = _layer(module)
        reached = {_layer(target) for target in targets} - {source, "__init__"}
        folders[source] = folders.get(source, set()) | reached
    folders.pop("__init__", None)
    return folders


def test_no_folder_cycles() -> None:
    assert _cycles(_folder_graph(_graph())) == []


def test_folder_cycle_is_found_across_modules_without_a_module_cycle() -> None:
    graph = {"planegate.a.x": {"planegate.b.y"}, "planegate.b.z": {"planegate.a.w"}}
    graph |= {"planegate.b.y": set(), "planegate.a.w": set()}
    assert _cycles(_graph_of(graph)) == [["a", "b"]]


def _graph_of(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    return _folder_graph(graph)


def test_same_layer_edges_are_declared() -> None:
    found = {
        (source, target)
        for source, targets in _folder_graph(_graph()).items()
        for target in targets
        if LAYERS[source] == LAYERS[target]
    }
    assert sorted(found - SAME_LAYER_EDGES) == [], "undeclared same-layer edges"
    assert sorted(SAME_LAYER_EDGES - found) == [], "declared edges that no longer exist"


def _one_edit_apart(first: str, second: str) -> bool:
    """One insertion, deletion or substitution turns one name into the other."""
    if first == second or abs(len(first) - len(second)) > 1:
        return False
    if len(first) == len(second):
        return sum(a != b for a, b in zip(first, second, strict=True)) == 1
    short, long = sorted((first, second), key=len)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def _names() -> dict[str, list[str]]:
    """Each module's own name (a package's is its folder's) and the modules that carry it."""
    names: dict[str, list[str]] = {}
    for module in _modules():
        name = module.rsplit(".", 1)[-1]
        if name not in ("planegate", "__main__"):
            names.setdefault(name, []).append(module)
    return names


def test_no_two_module_names_one_edit_apart() -> None:
    names = sorted(_names())
    close = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :] if _one_edit_apart(a, b)]
    assert close == []


def test_one_edit_apart_finds_a_plural_and_a_letter() -> None:
    assert _one_edit_apart("main_signs", "mains_signs")
    assert _one_edit_apart("check", "checks")
    assert not _one_edit_apart("plan", "plan")
    assert not _one_edit_apart("plan", "wire")


def test_no_same_named_modules_in_neighbouring_layers() -> None:
    clashes = []
    for name, named in _names().items():
        modules = [m for m in named if _layer(m) not in VERB_FOLDERS]
        if name in SHAPE_NAMES:
            continue
        layers = {module: LAYERS[_layer(module)] for module in modules}
        clashes += [
            f"{name}: {a} / {b}"
            for i, a in enumerate(modules)
            for b in modules[i + 1 :]
            if abs(layers[a] - layers[b]) == 1
        ]
    assert clashes == []
