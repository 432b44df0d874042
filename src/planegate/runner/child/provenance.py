"""Where the project's own modules came from: recorded in the child, checked by the parent.

The child sends one `imports` record as the session ends (before the stream's closing record):
every module of the project's own packages (the top-level names the tree's package roots
provide, fixed before any project code runs) that was imported, with its file relative to the
tree, or absolute when it lies outside the tree. A module the parent sees with an absolute
path was not the patch's code: an installed copy, or a path the tests or the code under test
put first.

A standard or installed module the project re-exports under its own name is not one of its
modules (six's `six.moves.http_client` is the standard `http.client`): an entry whose module
calls itself by a name outside the project's, from a file under one of the folders `sys.path`
held before any code of the tree ran, with no folder or file of the project's names on the
way there, is left out. An installed copy of the project stays in the record whatever name
it was loaded under (`site-packages/pkg/core.py` passes through a folder named `pkg`), and so
does a copy put anywhere else.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType, SimpleNamespace
from typing import Any

from planegate.runner.child import frames
from planegate.runner.child import roots as tree_roots

KIND = "imports"
# a module's namespace through ModuleType's own descriptor: no code of the module runs
_MODULE_DICT: Any = vars(ModuleType)["__dict__"]


def hooks(
    emit: frames.Emit, audit: SimpleNamespace, tree: str, roots: Sequence[str]
) -> dict[str, Callable[..., Any]]:
    """The recorder's hooks; the project's names are worked out now, before its code runs."""
    import pytest

    names = tree_roots.project_names(roots)
    real = os.path.realpath(tree)
    folders = library_folders(sys.path, real)
    # what the harness imported of the project's names before any code of the tree: pytest's
    # own dependencies (pluggy, iniconfig) gated as projects are already the installed copy
    harness = sorted(n for n in list(sys.modules) if type(n) is str and n.split(".")[0] in names)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(
        *,
        _e: frames.Emit = emit,
        _a: Any = audit,
        _g: Any = frames.guard,
        _m: Any = modules,
        _n: frozenset[str] = names,
        _t: str = real,
        _f: tuple[str, ...] = folders,
        _h: tuple[str, ...] = tuple(harness),
    ) -> None:
        if _g(_a, "pytest_sessionfinish"):
            _e(KIND, {"modules": _m(_n, _t, _f), "harness": list(_h)})

    return {"pytest_sessionfinish": pytest_sessionfinish}


def library_folders(sys_path: Sequence[str], tree: str) -> tuple[str, ...]:
    """The folders on `sys_path` outside the tree (the standard library, site-packages, the
    project's site), real paths, longest first."""
    found = set()
    for entry in sys_path:
        if type(entry) is str and os.path.isabs(entry):
            real = os.path.realpath(entry)
            if real != tree and not real.startswith(tree + os.sep):
                found.add(real)
    return tuple(sorted(found, key=len, reverse=True))


def modules(names: frozenset[str], tree: str, folders: Sequence[str] = ()) -> dict[str, str]:
    """module -> file of every imported module under one of `names`: relative to `tree` when
    it lies in it, else absolute; a re-exported standard or installed module is left out
    (`folders`: see `library_folders`). Only built-in types' own attributes are read."""
    found = {}
    for name, module in list(sys.modules.items()):
        if not isinstance(name, str) or name.split(".", 1)[0] not in names:
            continue
        if not isinstance(module, ModuleType):
            continue
        space = _MODULE_DICT.__get__(module)
        path = space.get("__file__")
        if type(path) is str and path and not _reexported(space, name, path, names, folders):
            found[name] = _where(path, tree)
    return found


def _reexported(
    space: Mapping[str, Any], name: str, path: str, names: frozenset[str], folders: Sequence[str]
) -> bool:
    own = space.get("__name__")
    if type(own) is not str or own == name or own.split(".", 1)[0] in names:
        return False
    real = os.path.realpath(path)
    folder = next((f for f in folders if real.startswith(f + os.sep)), None)
    if folder is None:
        return False
    parts = real[len(folder) + 1 :].split(os.sep)
    return not any(part.split(".", 1)[0] in names for part in parts)


def _where(path: str, tree: str) -> str:
    folder = os.path.realpath(os.path.dirname(os.path.abspath(path)))
    if folder == tree or folder.startswith(tree + os.sep):
        inside = os.path.join(folder, os.path.basename(path))
        return os.path.relpath(inside, tree).replace(os.sep, "/")
    return os.path.abspath(path)


def imports_of(extra: Mapping[str, Any]) -> dict[str, str]:
    """module -> file from a run's `imports` record (empty when none came)."""
    record = extra.get(KIND) or {}
    found = record.get("modules") if isinstance(record, Mapping) else None
    if not isinstance(found, Mapping):
        return {}
    return {str(name): str(path) for name, path in found.items()}


def harness_of(extra: Mapping[str, Any]) -> frozenset[str]:
    """The project's modules the harness had imported before any code of the tree ran."""
    record = extra.get(KIND) or {}
    found = record.get("harness") if isinstance(record, Mapping) else None
    return frozenset(str(name) for name in found) if isinstance(found, list) else frozenset()


def foreign(found: Mapping[str, str]) -> list[tuple[str, str]]:
    """(module, file) of every project module that did not come from the tree, sorted."""
    return sorted(
        (name, path)
        for name, path in found.items()
        if os.path.isabs(path) or path.startswith("..") or "/../" in path
    )
