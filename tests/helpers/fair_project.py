"""A project whose base has scoring tests that skip, xfail and fail on main: the base side of
fair verdicts."""

from __future__ import annotations

from pathlib import Path

from helpers.repo_helper import TestRepo

CONFIG = """\
version: 1
owner: "@org/plane-map"
planes:
  property:
    owner: "@org/props"
    paths: ["tests/prop/"]
  fixture:
    owner: "@org/goldens"
    paths: ["tests/fix/"]
  freeze:
    owner: "@org/flakes"
    max_fraction: 0.5
pytest:
  plugins: ["hypothesis"]
  triage_runs: 2
"""

TESTS = """\
import shutil
import sys

import pytest

from calc.core import FAST, add


def test_add():
    assert add(2, 3) == 5


@pytest.mark.skipif(sys.version_info < (4,), reason="needs Python 4")
def test_needs_python_4():
    assert add(1, 1) == 2


@pytest.mark.skipif(shutil.which("no-such-tool-here") is None, reason="no-such-tool-here missing")
def test_needs_a_tool():
    assert add(1, 1) == 2


@pytest.mark.xfail(reason="known rounding bug", strict=True)
def test_known_bug():
    assert add(0.1, 0.2) == 0.3


@pytest.mark.skipif(not FAST, reason="the fast path is off")
def test_fast_path():
    assert add(2, 2) == 4


def test_always_broken():
    assert add(1, 1) == 3
"""

PREFIX = "tests/fix/test_calc.py::"
BROKEN = PREFIX + "test_always_broken"


def fair_repo(root: Path) -> TestRepo:
    """The project committed on main."""
    repo = TestRepo(root)
    repo.commit(
        "main",
        {
            "planegate.yml": CONFIG,
            "pytest.ini": "[pytest]\ntestpaths = tests\n",
            "calc/__init__.py": "",
            "calc/core.py": "FAST = True\n\n\ndef add(a, b):\n    return a + b\n",
            "tests/fix/test_calc.py": TESTS,
        },
    )
    return repo


def honest_patch(repo: TestRepo) -> None:
    repo.branch("honest")
    repo.commit("commute", {"calc/core.py": "FAST = True\n\n\ndef add(a, b):\n    return b + a\n"})
