"""Code in the tree that no reviewer reads: committed bytecode, modules that link out of it.

The worktree holds only committed files, so a `.pyc` in it was committed: bytecode can say
anything, whatever source sits beside it (an "unchecked-hash" pyc is used without looking at
the source). The parent removes every `__pycache__` of the tree before and after each run
(`clear_caches`: what a commit or an earlier run in the same tree left there is never read
in place of its source, and a cache found before a run was committed; the run writes its
own, as a plain run does), the child reports
a sourceless import, and this scan names the file either way. A module
that is a symlink out of the tree runs code the diff only shows as a path.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from pathlib import Path

COMPILED = (".pyc", ".pyo")


def suspicious(tree: Path, trusted: Iterable[str] = ()) -> list[tuple[str, str]]:
    """(event, tree-relative path) for each committed compiled file and each Python module or
    package folder that is a symlink leaving the tree."""
    root = os.path.realpath(tree)
    skip = set(trusted)
    found: list[tuple[str, str]] = []
    for folder, dirs, files in os.walk(tree):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in [*files, *dirs]:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, tree)
            if rel in skip:
                continue
            if name.endswith(COMPILED) and not os.path.islink(path):
                found.append(("compiled code committed without a reviewable source", rel))
            elif os.path.islink(path) and (name.endswith(".py") or _package(path)):
                target = os.path.realpath(path)
                if not (target + "/").startswith(root + "/"):
                    found.append((f"a module that is a symlink out of the tree (-> {target})", rel))
    return found


def _package(path: str) -> bool:
    try:
        return any(name.endswith(".py") for name in os.listdir(path))
    except OSError:
        return False


def clear_caches(tree: Path) -> None:
    """Remove every `__pycache__` of the tree (a link of that name is removed, not followed)."""
    for folder, dirs, _files in os.walk(tree):
        for name in [d for d in dirs if d == "__pycache__"]:
            path = os.path.join(folder, name)
            if os.path.islink(path):
                os.unlink(path)
            else:
                shutil.rmtree(path, ignore_errors=True)
        dirs[:] = [d for d in dirs if d not in (".git", "__pycache__")]
