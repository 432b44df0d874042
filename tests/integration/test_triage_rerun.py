"""Triage's reruns collect only the files of the tests they rerun (and those files' conftests),
never the whole suite; each run of a test counts as failed when any of its reports failed,
a subtest's included, so a subtest failing every run is a regression, not a flake."""

from __future__ import annotations

from pathlib import Path

from helpers.repo_helper import TestRepo
from planegate.config.from_git import load_config
from planegate.freeze import sweep_plugin
from planegate.freeze.triage import triage
from planegate.repo.git import GitRepo
from planegate.repo.snapshot import snapshot
from planegate.runner import pytest_ini
from planegate.runner.rerun import rerun
from planegate.runner.spec import Sessions

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
  plugins: []
"""
FAILING = "tests/fix/a/test_calc.py::test_add"
SUBTEST = "tests/fix/a/test_calc.py::test_adds"


def _repo(tmp_path: Path) -> tuple[GitRepo, str, str]:
    repo = TestRepo(tmp_path / "repo")
    base = repo.commit(
        "base",
        {
            "planegate.yml": CONFIG,
            "pytest.ini": "[pytest]\ntestpaths = tests\n",
            "calc/__init__.py": "",
            "calc/core.py": "def add(a, b):\n    return a + b\n",
            "tests/fix/a/conftest.py": (
                "import pytest\n\n\n@pytest.fixture\ndef two():\n    return 2\n"
            ),
            "tests/fix/a/test_calc.py": (
                "from calc.core import add\n\n\n"
                "def test_add(two):\n    assert add(two, two) == 4\n\n\n"
                "def test_adds(subtests):\n"
                "    for n in (1, 2):\n"
                "        with subtests.test(n=n):\n"
                "            assert add(n, n) == 2 * n\n\n\n"
                "def test_other():\n    assert True\n"
            ),
            # never imported by a rerun of tests/fix/a/: collecting it would stop the session
            "tests/fix/b/conftest.py": "raise RuntimeError('collected the whole suite')\n",
            "tests/fix/b/test_b.py": "def test_b():\n    assert True\n",
            "tests/prop/test_p.py": "def test_p():\n    assert True\n",
        },
    )
    head = repo.commit("patch", {"calc/core.py": "def add(a, b):\n    return a - b\n"})
    return GitRepo(repo.root), base, head


def test_a_rerun_collects_only_its_tests_files_and_counts_every_run(tmp_path: Path) -> None:
    git, base, head = _repo(tmp_path)
    cfg = load_config(git, base, None, set(git.files(base)))
    ini = pytest_ini.base_options(snapshot(git, base).read)
    with git.worktree(head) as tree:
        sessions = Sessions(tree, cfg, ini)
        ran = rerun(sessions, head, [FAILING, SUBTEST], 3, only=sweep_plugin.only)
    print(ran.problem, ran.closed)
    import sys

    sys.stdout.write(str(getattr(ran, "output", "")))
    assert ran.closed, ran.problem
    # the child's own record of what it collected: the one file, none of the others
    assert {nodeid.split("::")[0] for nodeid in ran.collected} == {"tests/fix/a/test_calc.py"}
    assert set(ran.collected) >= {FAILING, SUBTEST}
    assert ran.failures == {FAILING: 3, SUBTEST: 3}
    assert ran.outcomes[SUBTEST].outcome == "failed"
    # the first run's failure is shown as pytest shows it (the later runs' are not built)
    assert "assert add(two, two) == 4" in ran.outcomes[FAILING].message


def test_a_subtest_failing_every_run_is_a_regression_not_a_flake(tmp_path: Path) -> None:
    git, base, head = _repo(tmp_path)
    cfg = load_config(git, base, None, set(git.files(base)))
    result = triage(git, base, head, [FAILING, SUBTEST], cfg)
    assert result[SUBTEST].label == "regression"
    assert (result[SUBTEST].head_failures, result[SUBTEST].base_failures) == (3, 0)
    assert result[FAILING].label == "regression"
