"""Static imports of Python modules, read without running anything, with two entry points.

- **Precise** (`resolve_precise`): the files of one commit an `import` statement loads, the way
  `sys.path` would find them from the repository root, the test file's own import base
  (pytest's `prepend` mode) and the base's `pythonpath` entries. A module's imports are every
  `import` and `from ... import` statement anywhere in its parsed AST, and the strings of a
  module-level `pytest_plugins`; a module that does not parse imports nothing. The evidence by
  default (config/default_evidence.py) and the plane map use it: what it names is locked.
- **Permissive** (`ImportGraph.reach`, `touched_tests_permissive`): which test files can see a
  change. Names are matched by path suffix (`calc.core` is every `calc/core.py` or
  `calc/core/__init__.py`), read from the text so a file that does not parse still imports what
  it names, importing a module imports its packages' `__init__.py`, and a name built at run
  time (`importlib.import_module(name)`, `__import__`) reaches everything: the answer errs
  towards "can see it". The gate uses it to choose the test files the patch can flip.
"""

from __future__ import annotations

import ast
import re
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from planegate import syntax


# ---------------------------------------------------------------- precise
@dataclass(frozen=True)
class Imported:
    """One imported name: `module` as written, `names` after `from ... import`, the relative
    `level` (0 for absolute imports)."""

    module: str
    names: tuple[str, ...] = ()
    level: int = 0


class _Trees:
    """The syntax trees of the files parsed last, up to `budget` characters of their source:
    the sampled canaries read main's test files right after the evidence by default has
    (collectable.py), and a text parsed once is not parsed again. A tree handed out
    is shared: its readers never change it."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self._kept: dict[str, ast.Module | None] = {}  # in the order parsed: oldest go first
        self._size = 0
        self._lock = threading.Lock()  # the hunk analysis reads imports in its own thread

    def parsed(self, source: str) -> ast.Module | None:
        with self._lock:
            if source in self._kept:
                return self._kept[source]
        try:
            tree: ast.Module | None = syntax.parse(source)
        except (SyntaxError, ValueError):
            tree = None
        if len(source) > self.budget:
            return tree
        with self._lock:
            while self._kept and self._size + len(source) > self.budget:
                oldest = next(iter(self._kept))
                self._size -= len(oldest)
                del self._kept[oldest]
            if source not in self._kept:
                self._kept[source] = tree
                self._size += len(source)
        return tree


_TREES = _Trees(256 * 1024)


def parsed(source: str) -> ast.Module | None:
    """`source`'s syntax tree, None when it does not parse (SyntaxError, ValueError); the
    trees of the files parsed last are kept (`_Trees`), so callers must not change it."""
    return _TREES.parsed(source)


def imports_of(source: str) -> list[Imported]:
    """Every import of the module; a module that does not parse imports nothing."""
    tree = parsed(source)
    if tree is None:
        return []
    found: list[Imported] = []
    for node in statements(tree):
        if isinstance(node, ast.Import):
            found += [Imported(alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = tuple(alias.name for alias in node.names if alias.name != "*")
            found.append(Imported(node.module or "", names, node.level))
    found += [Imported(name) for name in _pytest_plugins(tree)]
    return found


_BLOCKS = ("body", "handlers", "orelse", "finalbody", "cases")  # in the order of `_fields`


def statements(tree: ast.AST) -> Iterator[ast.AST]:
    """The node and every statement below it (except handlers and match cases too), in the
    order `ast.walk` yields them: no expression is visited, as no expression holds a statement
    (ast.walk's breadth-first order kept: each step down is one level of the real tree)."""
    queue = deque([tree])
    while queue:
        node = queue.popleft()
        yield node
        for name in _BLOCKS:
            block = getattr(node, name, None)
            if type(block) is list:
                queue.extend(block)


# A keyword and the rest of its line, backslash continuations included. Each pattern starts
# with its literal, which `re` finds fast; a keyword inside a longer name only adds words.
_REST = r"\b([^\n\\]*(?:\\(?:\r\n|.)[^\n\\]*)*)"
_IMPORT = re.compile("import" + _REST, re.DOTALL)
_FROM = re.compile("from" + _REST, re.DOTALL)
_RELATIVE = re.compile(r"from[ \t\f\r\n\\]*\.")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def may_import(source: str, first_names: frozenset[str]) -> bool:
    """Whether the module may import a dotted name whose first part is in `first_names`, or
    import relatively, or set `pytest_plugins`: False only when none of its import statements
    can (a text scan that errs towards True; `imports_of` parses the module to know)."""
    if not source.isascii() or "pytest_plugins" in source or _RELATIVE.search(source):
        return True  # (a non-ASCII name may be another ASCII one once NFKC-normalised)
    rests = [match.group(1) for p in (_IMPORT, _FROM) for match in p.finditer(source)]
    return not first_names.isdisjoint(_NAME.findall(" ".join(rests)))


def first_names(root: str, paths: Iterable[str]) -> frozenset[str]:
    """The first parts of the dotted names that may resolve, under the search root `root`,
    to one of `paths`: the folder or module name right below `root` on each path's way."""
    prefix = f"{root}/" if root else ""
    found = set()
    for path in paths:
        if path.startswith(prefix):
            first = path[len(prefix) :].split("/", 1)[0]
            found.add(first.removesuffix(".py"))
    return frozenset(found)


def _pytest_plugins(tree: ast.Module) -> Iterator[str]:
    for node in tree.body:
        if not isinstance(node, ast.Assign):
            continue
        if not any(isinstance(t, ast.Name) and t.id == "pytest_plugins" for t in node.targets):
            continue
        values = node.value.elts if isinstance(node.value, (ast.List, ast.Tuple)) else [node.value]
        for value in values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                yield value.value


def parent(path: str) -> str:
    """The folder of a repository path ('' for the root)."""
    if not _UNCLEAN.search(path):  # as git writes paths: the string's own last folder
        return path.rpartition("/")[0]
    folder = str(PurePosixPath(path).parent)
    return "" if folder == "." else folder


_UNCLEAN = re.compile(r"//|(?:^|/)\.\.?(?:/|$)|^/|/$|^$")  # what PurePosixPath would clean up


def join(folder: str, *parts: str) -> str:
    return "/".join(part for part in (folder, *parts) if part)


@dataclass(frozen=True)
class Layout:
    """A commit's file names and the folders that hold them."""

    files: frozenset[str]
    folders: frozenset[str]

    @classmethod
    def of(cls, files: Iterable[str]) -> Layout:
        names = frozenset(files)
        folders = set()
        for path in names:
            folder = parent(path)
            while folder and folder not in folders:
                folders.add(folder)
                folder = parent(folder)
        return cls(names, frozenset(folders))


def import_base(path: str, layout: Layout) -> str:
    """The folder pytest's `prepend` mode puts on sys.path for a test module: the first folder
    upwards from the module's own that holds no `__init__.py`."""
    folder = parent(path)
    while folder and join(folder, "__init__.py") in layout.files:
        folder = parent(folder)
    return folder


def module_files(name: str, roots: Iterable[str], layout: Layout) -> list[str]:
    """The files importing dotted `name` loads under each root: every package `__init__.py`
    on the way (a folder without one is a namespace package) and the module itself."""
    parts = [part for part in name.split(".") if part]
    found: list[str] = []
    for root in roots:
        chain: list[str] = []
        for depth in range(1, len(parts) + 1):
            folder = join(root, *parts[:depth])
            if depth == len(parts) and folder + ".py" in layout.files:
                chain.append(folder + ".py")
            elif join(folder, "__init__.py") in layout.files:
                chain.append(join(folder, "__init__.py"))
            elif folder not in layout.folders:
                chain = []
                break
        found += [path for path in chain if path not in found]
    return found


def resolve_precise(
    imported: Imported, path: str, roots: Iterable[str], layout: Layout
) -> list[str]:
    """Files of the commit that `imported`, written in the module at `path`, may load."""
    if imported.level:
        folder = parent(path)
        for _ in range(imported.level - 1):
            folder = parent(folder)
        return _from(imported, [folder], layout)
    return _from(imported, list(roots), layout)


def _from(imported: Imported, roots: list[str], layout: Layout) -> list[str]:
    found = module_files(imported.module, roots, layout) if imported.module else []
    for name in imported.names:  # `from pkg import mod` may load pkg/mod.py
        dotted = f"{imported.module}.{name}" if imported.module else name
        found += [path for path in module_files(dotted, roots, layout) if path not in found]
    return found


# ---------------------------------------------------------------- permissive

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
_IMPORT_LINE = re.compile(
    r"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]+)"
    r"|import[ \t]+([^\n#;]+))",
    re.MULTILINE,
)
# a call with a literal name imports that name; any other use (an alias, a computed name, a
# module loaded from a file) can import anything
_DYNAMIC_IMPORT = re.compile(
    r"\b(?:import_module|__import__)\b(?:\s*\(\s*(['\"])([\w.]+)\1\s*[,)])?"
    r"|\b(?:spec_from_file_location|run_path|run_module|load_module|exec_module)\b"
)


def imported_names(source: str, path: str) -> tuple[list[str], bool]:
    """The dotted names a source imports (relative ones resolved against its folder), and
    whether it imports through a name built at run time."""
    names: list[str] = []
    for match in _IMPORT_LINE.finditer(source):
        module, members, plain = match.groups()
        if plain is not None:
            names += [_alias(part) for part in plain.split(",")]
            continue
        module = _absolute(module, path)
        listed = [_alias(part) for part in members.strip("()").split(",")]
        names += [module] if module else []
        names += [f"{module}.{m}" if module else m for m in listed if m and m != "*"]
    dynamic = False
    for match in _DYNAMIC_IMPORT.finditer(source):
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


def touched_tests_permissive(
    graph: ImportGraph, tests: Iterable[str], changed: Iterable[str]
) -> list[str]:
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
