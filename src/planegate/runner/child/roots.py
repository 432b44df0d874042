"""The tree's package roots in the child: where the project's own code is imported from.

The parent works the roots out for the run's spec (`runner/roots.py`). The child puts them
after the standard library and before site-packages (`placed`), so an installed copy of the
project (editable or not) never stands in for the tree's code; `project_names` are the names
its import record watches.
"""

from __future__ import annotations

import os
import sysconfig
from collections.abc import Iterable, Sequence


def project_names(roots: Sequence[str]) -> frozenset[str]:
    """Top-level module and package names the project imports as its own: what the roots
    provide (under the tree itself only regular packages and modules; under `src/` and the
    `pythonpath` entries a folder of Python files counts too, as a namespace package), and the
    regular packages one folder down in the tree (`lib/pkg/__init__.py`), which no root
    provides unless the `pythonpath` option names their folder."""
    names: set[str] = set()
    for index, root in enumerate(roots):
        is_tree = index == len(roots) - 1
        for entry in _entries(root):
            name = _module_name(entry, namespace_ok=not is_tree)
            if name is not None:
                names.add(name)
    if roots:
        names |= _one_down(roots[-1], {os.path.realpath(root) for root in roots})
    return frozenset(names)


def _one_down(tree: str, roots: set[str]) -> set[str]:
    names = set()
    for folder in _entries(tree):
        if not folder.is_dir() or folder.name.startswith(".") or folder.name == "__pycache__":
            continue
        if os.path.realpath(folder.path) in roots:
            continue
        if os.path.exists(os.path.join(folder.path, "__init__.py")):
            continue
        for entry in _entries(folder.path):
            package = os.path.join(entry.path, "__init__.py")
            if entry.is_dir() and entry.name.isidentifier() and os.path.exists(package):
                names.add(entry.name)
    return names


def _entries(path: str) -> list[os.DirEntry[str]]:
    try:
        return list(os.scandir(path))
    except OSError:
        return []


def _module_name(entry: os.DirEntry[str], *, namespace_ok: bool) -> str | None:
    if entry.is_file() and entry.name.endswith(".py"):
        stem = entry.name[:-3]
        return stem if stem.isidentifier() else None
    if not entry.is_dir() or not entry.name.isidentifier():
        return None
    if os.path.exists(os.path.join(entry.path, "__init__.py")):
        return entry.name
    if namespace_ok and any(name.endswith(".py") for name in _listing(entry.path)):
        return entry.name
    return None


def _listing(path: str) -> list[str]:
    try:
        return os.listdir(path)
    except OSError:
        return []


def placed(sys_path: Sequence[str], roots: Sequence[str], stdlib: Iterable[str]) -> list[str]:
    """`sys_path` with `roots` moved (or added) right after the last standard-library entry
    (its folders, its zip, lib-dynload): the standard library still wins over the tree, so no
    module of the tree shadows a standard one, and the tree wins over site-packages, so an
    installed copy of the project never stands in for its code. The child's one placement
    of the tree (`runner/child/main.py`)."""
    wanted = {os.path.realpath(root) for root in roots}
    rest = [entry for entry in sys_path if os.path.realpath(entry or ".") not in wanted]
    library = {os.path.realpath(path) for path in stdlib if path}
    index = 0
    for position, entry in enumerate(rest):
        real = os.path.realpath(entry) if entry else ""
        if real in library or real.endswith(".zip") or "lib-dynload" in real:
            index = position + 1
    return [*rest[:index], *roots, *rest[index:]]


def stdlib_paths() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    return tuple(p for p in (paths.get("stdlib"), paths.get("platstdlib")) if p)
