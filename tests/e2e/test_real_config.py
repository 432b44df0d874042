"""Faithful pytest configuration on real layouts: TOML list options, pytest's own refusals,
symlinked fixture data, and owners named from the configuration."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from helpers.repo_helper import TestRepo, run_cli
from planegate.cli import main

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
    data: ["tests/fix/data/"]
  freeze:
    owner: "@org/flakes"
pytest:
  plugins: ["hypothesis"]
  triage_runs: 0
"""

PYPROJECT = """\
[project]
name = "calc"
version = "0"

[tool.pytest.ini_options]
testpaths = ["tests"]
addopts = ["-m", "not property", "--strict-markers"]
markers = ["property: slow property tests"]
"""

TESTS = """\
import pytest

from calc.core import add


def test_add():
    assert add(2, 3) == 5


@pytest.mark.property
def test_add_many():
    assert all(add(n, 1) == n + 1 for n in range(1000))
"""


def gate(
    repo: TestRepo, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, dict[str, Any]]:
    code = main(["-C", str(repo.root), "gate", "--base", "main", "--format", "json", "-q", *extra])
    return code, json.loads(capsys.readouterr().out)


def findings(report: dict[str, Any], *rules: str) -> list[dict[str, Any]]:
    found = [f for step in report["steps"] for f in step["findings"]]
    return [f for f in found if f["rule"] in rules]


def project(root: Path, files: dict[str, str | bytes]) -> TestRepo:
    repo = TestRepo(root)
    base: dict[str, str | bytes] = {
        "planegate.yml": CONFIG,
        "calc/__init__.py": "",
        "calc/core.py": "def add(a, b):\n    return a + b\n",
        "tests/fix/test_calc.py": TESTS,
    }
    repo.commit("main", {**base, **files})
    return repo


def honest(repo: TestRepo) -> None:
    repo.branch("honest")
    repo.commit("commute", {"calc/core.py": "def add(a, b):\n    return b + a\n"})


def test_a_toml_list_item_with_a_space_stays_one_argument(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = project(tmp_path / "repo", {"pyproject.toml": PYPROJECT})
    done = run_cli("-C", str(repo.root), "digest", "--out", str(tmp_path / "digest.json"))
    assert done.returncode == 0, done.stderr
    assert "0 property, 2 fixture" in done.stdout
    honest(repo)
    code, report = gate(repo, capsys)
    assert code == 0, report
    assert findings(report, "PG103", "PG210", "PG101", "PG102") == []
    notes = "\n".join(report["steps"][4]["notes"])
    assert "tests/fix/test_calc.py::test_add_many deselected on main too" in notes


def test_pytest_refusing_the_base_configuration_is_the_configurations_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ini = "[pytest]\ntestpaths = tests\naddopts = --no-such-option\n"
    repo = project(tmp_path / "repo", {"pytest.ini": ini})
    done = run_cli("-C", str(repo.root), "digest", "--out", str(tmp_path / "digest.json"))
    assert done.returncode == 78
    assert "pytest collected no test at" in done.stderr
    assert "unrecognized arguments: --no-such-option" in done.stderr
    honest(repo)
    code, report = gate(repo, capsys)
    assert code == 2
    (refused,) = findings(report, "PG210")
    assert "unrecognized arguments: --no-such-option" in refused["message"]
    assert refused["owner"] == "@org/plane-map"
    assert findings(report, "PG103", "PG101", "PG102") == []


def test_a_patch_that_stops_pytest_is_still_the_patchs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The base's conftest imports the package: a patch that breaks its import stops pytest
    on the patch only, and the base's own session starting says whose that is."""
    conftest = "import calc.core  # noqa: F401\n"
    ini = "[pytest]\ntestpaths = tests\n"
    repo = project(tmp_path / "repo", {"pytest.ini": ini, "tests/conftest.py": conftest})
    repo.branch("broken")
    repo.commit("oops", {"calc/core.py": "raise ImportError('the patch broke it')\n"})
    code, report = gate(repo, capsys)
    assert code == 1
    (unclosed,) = findings(report, "PG103")
    assert (
        "pytest refused to start on the patch, while the base's run starts" in (unclosed["message"])
    )
    assert unclosed["owner"] == "the patch author"
    assert findings(report, "PG210") == []


def data_with_links(repo_root: Path) -> None:
    data = repo_root / "tests/fix/data"
    (data / "sub").mkdir(parents=True)
    (data / "real.txt").write_text("5\n", "utf-8")
    (data / "sub" / "inner.txt").write_text("7\n", "utf-8")
    os.symlink("real.txt", data / "link.txt")
    os.symlink("sub", data / "folder")


LINK_TEST = """\
from pathlib import Path

from calc.core import add

DATA = Path(__file__).parent / "data"


def test_through_links():
    assert add(2, 3) == int((DATA / "link.txt").read_text())
    assert add(3, 4) == int((DATA / "folder" / "inner.txt").read_text())
"""


def test_symlinks_in_data_folders_are_locked_and_verified_as_links(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = TestRepo(tmp_path / "repo")
    repo.write(
        {
            "planegate.yml": CONFIG,
            "pytest.ini": "[pytest]\ntestpaths = tests\n",
            "calc/__init__.py": "",
            "calc/core.py": "def add(a, b):\n    return a + b\n",
            "tests/fix/test_urls.py": LINK_TEST,
        }
    )
    data_with_links(repo.root)
    repo.git("add", "--all")  # only files git tracks are data
    done = run_cli("-C", str(repo.root), "lock")
    assert done.returncode == 0, done.stderr
    locked = json.loads((repo.root / "tests/fixtures.lock.json").read_text())["files"]
    assert sorted(locked) == [
        "tests/fix/data/folder",
        "tests/fix/data/link.txt",
        "tests/fix/data/real.txt",
        "tests/fix/data/sub/inner.txt",
    ]
    repo.commit("main")
    assert run_cli("-C", str(repo.root), "verify").returncode == 0
    honest(repo)
    code, report = gate(repo, capsys)
    assert code == 0, report
    repo.checkout("main")
    repo.branch("relink")
    (repo.root / "tests/fix/data/link.txt").unlink()
    os.symlink("sub/inner.txt", repo.root / "tests/fix/data/link.txt")
    repo.commit("point the link elsewhere")
    code, report = gate(repo, capsys)
    assert code == 3
    assert [f["path"] for f in findings(report, "PG302")] == ["tests/fix/data/link.txt"]
    assert run_cli("-C", str(repo.root), "verify").returncode == 3


def test_protected_configuration_changes_name_the_configured_owner(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files: dict[str, str | bytes] = {
        "pyproject.toml": PYPROJECT,
        "tests/conftest.py": "import pytest\n",
    }
    repo = project(tmp_path / "repo", files)
    repo.branch("loosen")
    repo.commit(
        "loosen",
        {
            "pyproject.toml": PYPROJECT.replace('"--strict-markers"', '"-p", "no:warnings"'),
            "tests/conftest.py": "import pytest\n\nCHANGED = True\n",
        },
    )
    code, report = gate(repo, capsys)
    assert code == 3
    (conftest,) = findings(report, "PG301")
    assert (conftest["path"], conftest["owner"]) == ("tests/conftest.py", "@org/plane-map")
    (table,) = findings(report, "PG305")
    assert (table["path"], table["owner"]) == ("pyproject.toml", "@org/plane-map")
