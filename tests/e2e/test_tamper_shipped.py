"""The shipped package is the tested package, through the real CLI: a patch that leaves the bug
in what ships and makes the run test a correct copy, or loosens an assertion helper the
package ships for main's tests, does not pass; an honest `src/` layout does."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from helpers.attack_helper import BUG, Shared, errors
from helpers.project import PROJECT, manifest_for
from helpers.repo_helper import TestRepo
from planegate.cli import main

CORRECT = "def add(a, b):\n    return a + b\n\n\ndef label(n):\n    return f'n={n}'\n"
STRICT = "def assert_sum(got, want):\n    assert got == want, (got, want)\n"
LOOSE = "def assert_sum(got, want):\n    return None\n"
THROUGH_HELPER = (
    "from hypothesis import given, strategies as st\n\nfrom calc.core import add\n"
    "from calc.testing import assert_sum\n\n\n"
    "@given(st.integers(), st.integers())\ndef test_add_commutes(a, b):\n"
    "    assert_sum(add(a, b), b + a)\n"
)


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shared]:
    yield Shared(tmp_path_factory.mktemp("shipped"))


def gate(repo: TestRepo, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code = main(["-C", str(repo.root), "gate", "--base", "main", "--format", "json", "-q"])
    return code, json.loads(capsys.readouterr().out)


def test_a_correct_copy_in_src_beside_the_shipped_package_does_not_pass(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    shared.patch(
        "src-copy",
        {"calc/core.py": BUG, "src/calc/__init__.py": "", "src/calc/core.py": CORRECT},
    )
    code, report = shared.gate(capsys)
    assert code == 2  # the inventory step: main's nodeids would test another copy
    (finding,) = [f for s in report["steps"] for f in s["findings"] if f["rule"] == "PG211"]
    assert finding["path"] == "src/calc/__init__.py"
    assert "would import calc from src/, not from ./" in finding["message"]


def test_loosening_an_assertion_helper_the_package_ships_does_not_pass(
    tmp_path: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    files = dict(PROJECT)
    files["calc/testing.py"] = STRICT
    files["tests/prop/test_add_props.py"] = THROUGH_HELPER
    files["tests/fixtures.lock.json"] = manifest_for(files)
    repo = TestRepo(tmp_path / "project")  # type: ignore[operator]
    repo.commit("initial", files)
    repo.branch("loose")
    repo.commit("add", {"calc/core.py": BUG, "calc/testing.py": LOOSE})
    code, report = gate(repo, capsys)
    assert code == 3
    assert "PG301" in errors(report, "evidence")
    message = next(
        f["message"] for s in report["steps"] for f in s["findings"] if f["rule"] == "PG301"
    )
    assert "calc/testing.py" in message and "assertion helper shipped in the package" in message
    assert "PG101" in errors(report, "planes")  # main's helper ran: the bug is seen


def test_a_src_layout_declared_in_pyproject_passes(
    tmp_path: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {
        (f"src/{path}" if path.startswith("calc/") else path): text
        for path, text in PROJECT.items()
    }
    files["pyproject.toml"] = (
        '[project]\nname = "calc"\nversion = "0.1"\n\n'
        '[tool.setuptools.packages.find]\nwhere = ["src"]\n'
    )
    files["tests/fixtures.lock.json"] = manifest_for(files)
    repo = TestRepo(tmp_path / "project")  # type: ignore[operator]
    repo.commit("initial", files)
    repo.branch("faster")
    repo.commit("add", {"src/calc/core.py": CORRECT.replace("a + b", "b + a")})
    code, report = gate(repo, capsys)
    assert code == 0, errors(report)
