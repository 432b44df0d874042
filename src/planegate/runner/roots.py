"""The tree's package roots, worked out by the parent for the run's spec.

The roots are `src/` (when it is not itself a package), each entry of the base's `pythonpath`
ini option that lies inside the tree, and the tree itself, in that order; the child places
them on sys.path (`runner/child/roots.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from planegate.runner import pytest_ini


def package_roots(tree: Path, ini_options: Mapping[str, Any]) -> tuple[str, ...]:
    """Absolute package roots of `tree`, most specific first, each once."""
    real = tree.resolve()
    candidates = []
    src = tree / "src"
    if src.is_dir() and not (src / "__init__.py").exists():
        candidates.append(src)
    candidates += [tree / entry for entry in pytest_ini.pythonpath(ini_options)]
    candidates.append(tree)
    roots: list[str] = []
    for path in candidates:
        resolved = path.resolve()
        inside = resolved == real or real in resolved.parents
        if inside and resolved.is_dir() and str(path) not in roots:
            roots.append(str(path))
    return tuple(roots)
