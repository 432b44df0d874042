"""Where the project's own modules came from: recorded in the child, checked by the parent.

The child sends one `imports` record as the session ends: every module of the project's own
packages (the top-level names the tree's package roots provide) that was imported, with its
file relative to the tree, or absolute when it lies outside the tree. A module the parent sees
with an absolute path was not the patch's code: an installed copy, or a path the tests or
the code under test put first.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from planegate.runner import roots as tree_roots

KIND = "imports"
Send = Callable[..., None]


class ImportRecords:
    """The child's recorder: names fixed when it is made (before any project code runs)."""

    def __init__(self, send: Send, tree: str, roots: Sequence[str]) -> None:
        self._send = send
        self._tree = os.path.realpath(tree)
        self._names = tree_roots.project_names(roots)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self) -> None:
        self._send(KIND, modules=self.modules())

    def modules(self) -> dict[str, str]:
        found = {}
        for name, module in list(sys.modules.items()):
            if name.split(".", 1)[0] not in self._names:
                continue
            path = getattr(module, "__file__", None)
            if isinstance(path, str) and path:
                found[name] = self._where(path)
        return found

    def _where(self, path: str) -> str:
        folder = os.path.realpath(os.path.dirname(os.path.abspath(path)))
        if folder == self._tree or folder.startswith(self._tree + os.sep):
            inside = os.path.join(folder, os.path.basename(path))
            return os.path.relpath(inside, self._tree).replace(os.sep, "/")
        return os.path.abspath(path)


def imports_of(extra: Mapping[str, Any]) -> dict[str, str]:
    """module -> file from a run's `imports` record (empty when none came)."""
    record = extra.get(KIND) or {}
    modules = record.get("modules") if isinstance(record, Mapping) else None
    if not isinstance(modules, Mapping):
        return {}
    return {str(name): str(path) for name, path in modules.items()}


def foreign(modules: Mapping[str, str]) -> list[tuple[str, str]]:
    """(module, file) of every project module that did not come from the tree, sorted."""
    return sorted(
        (name, path)
        for name, path in modules.items()
        if os.path.isabs(path) or path.startswith("..") or "/../" in path
    )
