"""Which test files can see a change: the repository's own modules a file imports, followed
through the modules those import (pure: sources come from a reader).

Module names are resolved by path, not by executing anything: `calc.core` is every file
whose path ends in `calc/core.py` or `calc/core/__init__.py` (a `src/` layout resolves the
same way), and importing a module imports its packages' `__init__.py`. A name that matches
several files reaches all of them, so the answer errs towards "can see it". A module that
imports through a name built at run time (`importlib.import_module(name)`, `__import__`)
can reach anything: a test file that reaches one sees every change. Imports are read from
the text, so a file that does not parse still imports what it names.
"""

from __future__ import annotations

import re
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
    _init_cache: dict[str, list[str]] = field(default_factory=dict, init=False)

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
        found = set(self._inits(path))
        source = self.read(path)
        if source is None:
            return found
        names, dynamic = imported_names(source, path)
        for name in names:
            found |= self._resolve(name)
        if dynamic:
            found.add(DYNAMIC)
        return found

    def _inits(self, path: str) -> list[str]:
        if path not in self._init_cache:
            self._init_cache[path] = _package_inits(path, self.files)
        return self._init_cache[path]

    def _resolve(self, name: str) -> set[str]:
        """The files a dotted name can be, and the packages above them."""
        found: set[str] = set()
        parts = name.split(".")
        for end in range(len(parts), 0, -1):
            for path in self._index.get(".".join(parts[:end]), ()):
                found.add(path)
                found.update(self._inits(path))
        return found


# `import a.b as c, d` and `from .x import (y, z)`, read from the text (no parse: a file
# that does not parse still imports), anywhere in the file; a string that happens to hold
# such a line only adds a file to look at.
_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]+)"
    r"|import[ \t]+([^\n#;]+))",
    re.MULTILINE,
)
# a call with a literal name imports that name; any other use (an alias, a computed name, a
# module loaded from a file) can import anything
_DYNAMIC = re.compile(
    r"\b(?:import_module|__import__)\b(?:\s*\(\s*(['\"])([\w.]+)\1\s*[,)])?"
    r"|\b(?:spec_from_file_location|run_path|run_module|load_module|exec_module)\b"
)


def imported_names(source: str, path: str) -> tuple[list[str], bool]:
    """The dotted names a source imports (relative ones resolved against its folder), and
    whether it imports through a name built at run time."""
    names: list[str] = []
    for match in _IMPORT.finditer(source):
        module, members, plain = match.groups()
        if plain is not None:
            names += [_alias(part) for part in plain.split(",")]
            continue
        module = _absolute(module, path)
        listed = [_alias(part) for part in members.strip("()").split(",")]
        names += [module] if module else []
        names += [f"{module}.{m}" if module else m for m in listed if m and m != "*"]
    dynamic = False
    for match in _DYNAMIC.finditer(source):
        if match.group(2):
            names.append(match.group(2))
        else:
            dynamic = True
    return [name for name in names if name], dynamic


def _alias(text: str) -> str:
    return text.replace("\\", " ").strip().split(" as ", 1)[0].strip()


def _absolute(module: str, path: str) -> str:
    """`..x` in `pkg/sub/m.py` -> `pkg.x`; absolute names unchanged."""
    level = len(module) - len(module.lstrip("."))
    if not level:
        return module
    folder = PurePosixPath(path).parent
    for _ in range(level - 1):
        folder = folder.parent
    prefix = ".".join(part for part in folder.parts if part not in ("", "."))
    return ".".join(part for part in (prefix, module[level:]) if part)


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
