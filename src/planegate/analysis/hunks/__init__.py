"""Test-hunk analysis: how a change to a test file weakens its tests (step 5, PG5xx).

The analysis itself is `analyze.py` (on the thread or the worker processes that run it);
here only what tells a test file, which the gate reads before the head's test child starts.
"""

from __future__ import annotations

from pathlib import PurePosixPath

__all__ = ["is_conftest", "is_test_file"]


def is_conftest(path: str) -> bool:
    return _file_name(path) == "conftest.py"


def is_test_file(path: str) -> bool:
    """pytest's default test file names (`test_*.py`, `*_test.py`) and conftest.py."""
    name = _file_name(path)
    if not name.endswith(".py"):
        return False
    return name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"


def _file_name(path: str) -> str:
    """`PurePosixPath(path).name`, with `\\` as a separator too, without pathlib's cost."""
    path = path.replace("\\", "/")
    name = path.rpartition("/")[2]
    if name in ("", "."):  # a trailing separator or `.`: pathlib drops those parts
        return PurePosixPath(path).name
    return name
