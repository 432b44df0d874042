"""Which test files can see a change: the repository's own modules a file imports, followed
through the modules those import (pure: sources come from a reader).

Module names are resolved by path, not by executing anything: `calc.core` is every file
whose path ends in `calc/core.py` or `calc/core/__init__.py` (a `src/` layout resolves the
same way), and importing a module imports its packages' `__init__.py`. A name that matches
several files reaches all of them, so the answer errs towards "can see it". A module that
imports through a name built at run time (`importlib.import_module(name)`, `__import__`)
can reach anything: a test file that reaches one sees every change.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath

DYNAMIC = "<dynamic import>"


def dotted_suffixes(path: str) -> list[str]:
    """`src/calc/core.py` -> `core`, `calc.core`, `src.calc.core` (a package's `__init__.py`
    is named after its folder)."""
    parts = list(PurePosixPath(path).with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
    return [".".join(parts[start:]) for start in range(len(parts) - 1, -1, -1)]


def _package_inits(path: str, files: frozenset[str]) -> list[str]:
    """The `__init__.py` of every folder above `path` that has one."""
    folders = PurePosixPath(path).parents
    return [str(f / "__init__.py") for f in folders if str(f / "__init__.py") in files]


@dataclass
class ImportGraph:
    """The repository's Python files (`files`) and a reader of their sources."""

    files: frozenset[str]
    read: Callable[[str], str | None]
    _index: dict[str, set[str]] = field(default_factory=dict, init=False)
    _edges: dict[str, frozenset[str]] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        for path in self.files:
            for name in dotted_suffixes(path):
                self._index.setdefault(name, set()).add(path)

    def reach(self, start: Iterable[str]) -> set[str]:
        """Every file `start` imports, directly or not (and DYNAMIC if one imports at run
        time); the start files themselves included."""
        seen: set[str] = set()
        pending = list(start)
        while pending:
            path = pending.pop()
            if path in seen:
                continue
            seen.add(path)
            pending += [p for p in self.imports(path) if p not in seen]
        return seen

    def imports(self, path: str) -> frozenset[str]:
        if path not in self._edges:
            self._edges[path] = frozenset(self._imports(path))
        return self._edges[path]

    def _imports(self, path: str) -> set[str]:
        if path == DYNAMIC:
            return set()
        found = set(_package_inits(path, self.files))
        source = self.read(path)
        if source is None:
            return found
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            return found | {DYNAMIC}
        for node in ast.walk(tree):
            for name in _imported_names(node, path):
                found |= self._resolve(name)
            if _dynamic_import(node):
                found.add(DYNAMIC)
        return found

    def _resolve(self, name: str) -> set[str]:
        """The files a dotted name can be, and the packages above it."""
        found: set[str] = set()
        parts = name.split(".")
        for end in range(len(parts), 0, -1):
            for path in self._index.get(".".join(parts[:end]), ()):
                found.add(path)
                found.update(_package_inits(path, self.files))
        return found


def _imported_names(node: ast.AST, path: str) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    module = node.module or ""
    if node.level:
        folder = PurePosixPath(path).parent
        for _ in range(node.level - 1):
            folder = folder.parent
        prefix = ".".join(part for part in folder.parts if part not in ("", "."))
        module = ".".join(part for part in (prefix, module) if part)
    names = [module] if module else []
    return names + [f"{module}.{alias.name}" if module else alias.name for alias in node.names]


def _dynamic_import(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call) or not node.args:
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name in ("import_module", "__import__") and not isinstance(node.args[0], ast.Constant)


def touched_tests(graph: ImportGraph, tests: Iterable[str], changed: Iterable[str]) -> list[str]:
    """The test files whose imports (and their conftest files' imports) reach a changed
    file, or import at run time."""
    changed_set = set(changed)
    found = []
    for test in tests:
        conftests = [str(f / "conftest.py") for f in PurePosixPath(test).parents]
        start = [test, *(path for path in conftests if path in graph.files)]
        reached = graph.reach(start)
        if DYNAMIC in reached or reached & changed_set:
            found.append(test)
    return found
