"""A module the tests cannot import because git does not hold it: the gate's trees are made
from git, so a file the build writes into the checkout (setuptools-scm's or hatch-vcs's
`_version.py`, listed in `.gitignore`) is missing there though plain pytest finds it."""

from __future__ import annotations

import re
from pathlib import Path

from planegate.repo.git import tracked_files

_MISSING = re.compile(r"No module named '(?P<name>[\w.]+)'")
ROOTS = ("", "src/")  # where a package's modules lie relative to the checkout


def missing_module_hint(root: Path, message: str) -> str | None:
    """What to do when pytest's `message` names a module that the checkout at `root` has as
    a file git does not track; None otherwise."""
    found = _MISSING.search(message)
    if found is None:
        return None
    base = found["name"].replace(".", "/")
    candidates = [f"{where}{base}{tail}" for where in ROOTS for tail in (".py", "/__init__.py")]
    present = [path for path in candidates if (root / path).is_file()]
    tracked = set(tracked_files(root) or ()) if present else set()
    untracked = [path for path in present if path not in tracked]
    if not untracked:
        return None
    return (
        f"{untracked[0]} is in your checkout but not in git (a file your build writes?): the "
        "gate's trees are made from git, so they lack it; commit it, or make the import fall "
        "back when it is missing (docs/quickstart.md)"
    )
