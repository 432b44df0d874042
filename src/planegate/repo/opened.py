"""The repositories this process opened (their work tree top and git common dir, as real
paths): the test child's sandbox hides them (runner/sandbox.py), so no process a test starts
reads main's checkout. Kept apart from `repo/git.py` so a child started ahead of the gate's
git work (runner/parked.py) names them without importing GitPython."""

from __future__ import annotations

import os

_OPENED: dict[str, None] = {}  # in the order opened


def add(*folders: str) -> None:
    _OPENED.update(dict.fromkeys(map(os.path.realpath, folders)))


def folders() -> tuple[str, ...]:
    """Every one still there."""
    return tuple(folder for folder in list(_OPENED) if os.path.isdir(folder))
