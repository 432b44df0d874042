"""Triage's reruns collect only the files of the tests they rerun (and those files' conftests),
never the whole suite, and build no traceback; each run of a test counts as failed when any
of its reports failed, a subtest's included, so a subtest failing every run is a regression,
not a flake. Through the gate: a patch failing one test of one file of several reruns that
file alone, on the head and on the base."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers.repo_helper import TestRepo, run_cli
from planegate.config.from_git import load_config
from planegate.freeze import sweep_plugin
from planegate.freeze.triage import triage
from planegate.repo.git import GitRepo
from planegate.repo.snapshot import snapshot
from planegate.runner import pytest_ini, session
from planegate.runner.rerun import NO_TRACEBACK, rerun
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
PROJECT = {
    "planegate.yml": CONFIG,
    "pytest.ini": "[pytest]\ntestpaths = tests\n",
    "calc/__init__.py": "",
    "calc/core.py": "def add(a, b):\n    return a + b\n",
}
FAILING = "tests/fix/a/test_calc.py::test_add"
SUBTEST = "tests/fix/a/test_calc.py::test_adds"


def _repo(tmp_path: Path) -> tuple[GitRepo, str, str]:
    repo = TestRepo(tmp_path / "repo")
    base = repo.commit(
        "base",
        {
            **PROJECT,
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
    assert ran.closed, ran.problem
    # the child's own record of what it collected: the one file, none of the others
    assert {nodeid.split("::")[0] for nodeid in ran.collected} == {"tests/fix/a/test_calc.py"}
    assert set(ran.collected) >= {FAILING, SUBTEST}
    assert ran.failures == {FAILING: 3, SUBTEST: 3}
    assert ran.outcomes[SUBTEST].outcome == "failed"
    # the failure keeps pytest's crash lines; no traceback is built (no source line in it)
    assert "assert 0 == 4" in ran.outcomes[FAILING].message
    assert "assert add(two, two) == 4" not in ran.outcomes[FAILING].message


def test_a_subtest_failing_every_run_is_a_regression_not_a_flake(tmp_path: Path) -> None:
    git, base, head = _repo(tmp_path)
    cfg = load_config(git, base, None, set(git.files(base)))
    result = triage(git, base, head, [FAILING, SUBTEST], cfg)
    assert result[SUBTEST].label == "regression"
    assert (result[SUBTEST].head_failures, result[SUBTEST].base_failures) == (3, 0)
    assert result[FAILING].label == "regression"


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[tuple[session.RunSpec, session.RunResult]]:
    """Every pytest session the gate starts: its spec (argv, targets) and what it collected."""
    sessions: list[tuple[session.RunSpec, session.RunResult]] = []
    real = session.run

    def recorded(spec: session.RunSpec, *args: Any, **kwargs: Any) -> session.RunResult:
        result = real(spec, *args, **kwargs)
        sessions.append((spec, result))
        return result

    monkeypatch.setattr(session, "run", recorded)
    return sessions


def test_a_gate_reruns_only_the_failing_tests_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = TestRepo(tmp_path / "repo")
    repo.commit(
        "base",
        {
            "planegate.yml": CONFIG,
            "pytest.ini": "[pytest]\ntestpaths = tests\n",
            "calc/__init__.py": "",
            "calc/core.py": "def add(a, b):\n    return a + b\n\n\ndef neg(a):\n    return -a\n",
            "tests/fix/a/test_calc.py": (
                "from calc.core import add\n\n\n"
                "def test_add():\n    assert add(2, 2) == 4\n\n\n"
                "def test_other():\n    assert True\n"
            ),
            "tests/fix/b/test_b.py": (
                "from calc.core import neg\n\n\ndef test_b():\n    assert neg(1) == -1\n"
            ),
            "tests/fix/c/test_c.py": "def test_c():\n    assert True\n",
        },
    )
    repo.branch("bug")
    repo.commit(
        "bug",
        {"calc/core.py": "def add(a, b):\n    return a - b\n\n\ndef neg(a):\n    return -a\n"},
    )
    sessions = _spy(monkeypatch)
    done = run_cli("gate", "--base", "main", "--format", "json", "-q", cwd=repo.root)
    assert done.returncode == 1, done.stdout
    report = json.loads(done.stdout)
    (failed,) = [f for s in report["steps"] for f in s["findings"] if f["rule"] == "PG101"]
    assert failed["nodeid"] == "tests/fix/a/test_calc.py::test_add"
    assert "[regression; repro: " in failed["message"]  # triaged: 3 of 3 on head, 0 on base
    assert report["timings"]["triage"] >= 0
    reruns = [(spec, ran) for spec, ran in sessions if spec.child_plugins and spec.targets]
    # the base's rerun (the fair verdict), then triage's on the head: one session each
    assert [spec.repeat for spec, _ in reruns] == [3, 3]
    for spec, ran in reruns:
        assert spec.targets == ("tests/fix/a/test_calc.py",)
        assert {n.split("::")[0] for n in ran.collected} == {"tests/fix/a/test_calc.py"}
        assert spec.extra_args[-1] == NO_TRACEBACK
    # the head's own run collected the whole suite: the reruns did not
    assert any(len({n.split("::")[0] for n in ran.collected}) == 3 for _, ran in sessions)


def test_a_hypothesis_method_of_a_testcase_reruns_on_one_instance(tmp_path: Path) -> None:
    """Hypothesis refuses a `@given` method called from a second instance (its
    `differing_executors` health check); pytest makes a TestCase instance per run, so the
    reruns keep the first run's, and a passing base stays passing on every run."""
    repo = TestRepo(tmp_path / "repo")
    base = repo.commit(
        "base",
        {
            **PROJECT,
            "tests/prop/test_case.py": (
                "import unittest\n\n"
                "from hypothesis import given, settings, strategies as st\n\n"
                "from calc.core import add\n\n\n"
                "class TestAdd(unittest.TestCase):\n"
                "    @settings(database=None, derandomize=True, max_examples=5)\n"
                "    @given(st.integers(), st.integers())\n"
                "    def test_commutes(self, a, b):\n"
                "        self.assertEqual(add(a, b), add(b, a))\n\n"
                "    @settings(database=None, derandomize=True, max_examples=5)\n"
                "    @given(st.integers())\n"
                "    def test_zero(self, a):\n"
                "        self.assertEqual(add(a, 0), a)\n"
            ),
        },
    )
    head = repo.commit("patch", {"calc/core.py": "def add(a, b):\n    return a + b + 1\n"})
    git = GitRepo(repo.root)
    cfg = load_config(git, base, None, set(git.files(base)))
    zero = "tests/prop/test_case.py::TestAdd::test_zero"
    commutes = "tests/prop/test_case.py::TestAdd::test_commutes"
    result = triage(git, base, head, [zero, commutes], cfg)
    assert (result[zero].head_failures, result[zero].base_failures) == (3, 0)
    assert result[zero].label == "regression"
    # passes on both sides, every run: no run fails on the health check
    assert (result[commutes].head_failures, result[commutes].base_failures) == (0, 0)
