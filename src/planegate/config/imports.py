"""Static imports of a Python module, resolved to files of one commit (no code is run).

A module's imports are every `import` and `from ... import` statement anywhere in it (inside
functions too), and the strings of a module-level `pytest_plugins` assignment. A name resolves
against search roots the way `sys.path` would: the repository root, the test file's own
import base (pytest's `prepend` import mode puts the first folder upwards without an
`__init__.py` on `sys.path`), and the base's `pythonpath` ini entries.
"""

from __future__ import annotations

import ast
import re
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath


@dataclass(frozen=True)
class Imported:
    """One imported name: `module` as written, `names` after `from ... import`, the relative
    `level` (0 for absolute imports)."""

    module: str
    names: tuple[str, ...] = ()
    level: int = 0


def imports_of(source: str) -> list[Imported]:
    """Every import of the module; a module that does not parse imports nothing."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
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
        for field in _BLOCKS:
            block = getattr(node, field, None)
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


def resolve(imported: Imported, path: str, roots: Iterable[str], layout: Layout) -> list[str]:
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
