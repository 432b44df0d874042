"""The code under test is the patch's: a src/ layout installed (editable or not) in the
interpreter that runs the gate still has its tests import the tree's code."""

from __future__ import annotations

import json
import site
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

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
pytest:
  plugins: ["hypothesis"]
  triage_runs: 2
"""

GOOD = "def add(a, b):\n    return a + b\n"
BUG = "def add(a, b):\n    return a - b\n"
TEST = "from calc.core import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
ADD = "tests/fix/test_add.py::test_add"


def src_layout(root: Path, package: str = "src") -> TestRepo:
    """main holds a correct `add`; the branch `bug` breaks it and is not checked out."""
    repo = TestRepo(root)
    repo.commit(
        "main",
        {
            "planegate.yml": CONFIG,
            "pytest.ini": "[pytest]\ntestpaths = tests\n",
            f"{package}/calc/__init__.py": "",
            f"{package}/calc/core.py": GOOD,
            "tests/fix/test_add.py": TEST,
        },
    )
    repo.branch("bug")
    repo.commit("bug", {f"{package}/calc/core.py": BUG})
    repo.checkout("main")
    return repo


def interpreter(folder: Path, installs: dict[str, str]) -> Path:
    """A fresh virtual environment that sees this one's packages (planegate, pytest,
    hypothesis) and whose site-packages also holds `installs` (file name -> text)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    found = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    )
    target = Path(found.stdout.strip())
    ours = "; ".join(f"site.addsitedir({path!r})" for path in site.getsitepackages())
    (target / "zz_planegate_tests.pth").write_text(f"import site; {ours}\n", "utf-8")
    for name, text in installs.items():
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        (target / name).write_text(text, "utf-8")
    return python


def gate(python: Path, repo: TestRepo) -> tuple[int, dict[str, Any]]:
    argv = ["-C", str(repo.root), "gate", "--base", "main", "--head", "bug", "--format", "json"]
    done = subprocess.run(
        [str(python), "-m", "planegate", *argv, "-q"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)


def findings(report: dict[str, Any], rule: str) -> list[dict[str, Any]]:
    return [f for step in report["steps"] for f in step["findings"] if f["rule"] == rule]


@pytest.mark.parametrize("install", ["editable", "copy"])
def test_installed_project_does_not_stand_in_for_the_patch(tmp_path: Path, install: str) -> None:
    repo = src_layout(tmp_path / "repo")
    if install == "editable":  # what an editable install of a src layout leaves behind
        installs = {"__editable__.calc-0.pth": f"{repo.root / 'src'}\n"}
    else:  # `pip install .` of main: a copy of main's package in site-packages
        installs = {"calc/__init__.py": "", "calc/core.py": GOOD}
    python = interpreter(tmp_path / "venv", installs)
    code, report = gate(python, repo)
    assert code == 1, report
    (failed,) = findings(report, "PG101")
    assert failed["nodeid"] == ADD
    assert "[regression; repro: git checkout" in failed["message"]
    assert findings(report, "PG110") == []


def test_a_package_outside_the_package_roots_is_named_with_where_it_came_from(
    tmp_path: Path,
) -> None:
    """`lib/` is no package root (no `pythonpath` option says so): the installed copy is
    imported, and the gate says so instead of passing."""
    repo = src_layout(tmp_path / "repo", package="lib")
    installs = {"calc/__init__.py": "", "calc/core.py": GOOD}
    python = interpreter(tmp_path / "venv", installs)
    code, report = gate(python, repo)
    assert code == 1
    (wrong,) = findings(report, "PG110")
    assert "calc.core from /" in wrong["message"]
    assert "site-packages/calc/core.py" in wrong["message"]
    assert wrong["owner"] == "@org/plane-map"


def test_the_pythonpath_option_is_a_package_root(tmp_path: Path) -> None:
    repo = src_layout(tmp_path / "repo", package="lib")
    repo.checkout("main")
    repo.commit("pythonpath", {"pytest.ini": "[pytest]\ntestpaths = tests\npythonpath = lib\n"})
    repo.checkout("bug")
    repo.git("merge", "-q", "--no-edit", "main")
    repo.checkout("main")
    python = interpreter(tmp_path / "venv", {"calc/__init__.py": "", "calc/core.py": GOOD})
    code, report = gate(python, repo)
    assert code == 1
    assert [f["nodeid"] for f in findings(report, "PG101")] == [ADD]
    assert findings(report, "PG110") == []


# six's `six.moves`: a standard module re-exported under the package's own name
REEXPORT = "import json as _json\nimport sys\n\nsys.modules[__name__ + '.moves_json'] = _json\n"
REEXPORT_TEST = (
    "from calc.core import add\nfrom calc.moves_json import dumps\n\n\n"
    "def test_dumped():\n    assert dumps(add(1, 2)) == '3'\n"
)
# the same re-export, of the installed copy of main's package loaded under another name
SHADOW = (
    "import importlib.util\nimport sys\nimport sysconfig\n\n"
    "_spec = importlib.util.spec_from_file_location(\n"
    "    'shadow', sysconfig.get_paths()['purelib'] + '/calc/core.py'\n)\n"
    "_shadow = importlib.util.module_from_spec(_spec)\n_spec.loader.exec_module(_shadow)\n"
    "sys.modules[__name__ + '.core'] = _shadow\n"
)


def test_a_standard_module_the_package_re_exports_is_not_its_code(tmp_path: Path) -> None:
    repo = src_layout(tmp_path / "repo")
    files = {"src/calc/__init__.py": REEXPORT, "tests/fix/test_dumped.py": REEXPORT_TEST}
    repo.commit("moves", files)
    repo.checkout("bug")
    repo.git("merge", "-q", "--no-edit", "main")
    repo.checkout("main")
    code, report = gate(interpreter(tmp_path / "venv", {}), repo)
    assert code == 1
    assert {f["nodeid"] for f in findings(report, "PG101")} == {
        ADD,
        "tests/fix/test_dumped.py::test_dumped",
    }
    assert findings(report, "PG110") == []


def test_an_installed_copy_re_exported_under_the_package_name_is_named(tmp_path: Path) -> None:
    repo = src_layout(tmp_path / "repo")
    repo.checkout("bug")
    repo.commit("the installed add", {"src/calc/__init__.py": SHADOW})
    repo.checkout("main")
    python = interpreter(tmp_path / "venv", {"calc/__init__.py": "", "calc/core.py": GOOD})
    code, report = gate(python, repo)
    assert code == 5  # the reach review stops it first: an import by path, `sys.modules`
    (wrong,) = findings(report, "PG110")
    assert "calc.core from /" in wrong["message"]
    assert "site-packages/calc/core.py" in wrong["message"]


def test_a_project_the_harness_imports_itself_is_named_so(tmp_path: Path) -> None:
    # pytest imports iniconfig before any test: a project of that name is never the code
    # its tests import in the child, as under plain pytest without an editable install
    repo = TestRepo(tmp_path / "repo")
    repo.commit(
        "main",
        {
            "planegate.yml": CONFIG,
            "pytest.ini": "[pytest]\ntestpaths = tests\n",
            "src/iniconfig/__init__.py": "def value():\n    return 1\n",
            "tests/fix/test_value.py": (
                "import iniconfig\n\n\ndef test_named():\n"
                "    assert iniconfig.__name__ == 'iniconfig'\n"
            ),
        },
    )
    repo.branch("bug")
    repo.commit("bug", {"src/iniconfig/__init__.py": "def value():\n    return 2\n"})
    repo.checkout("main")
    code, report = gate(Path(sys.executable), repo)
    assert code == 1
    (named,) = findings(report, "PG110")
    assert "iniconfig from /" in named["message"]
    assert (
        "the test harness itself imported iniconfig before any code of the tree"
        in (named["message"])
    )
