"""Sampled canaries: main's own scoring tests rerun with a production function they call
broken. An honest patch stays green with the sample recorded; a run whose reports are
rewritten to "passed" is caught even though it answers the gate's fixed canaries rightly; a
test of main's that swallows every error is named as weak evidence, not as a lie."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import PROJECT, manifest_for
from helpers.attack_helper import BUG, errors, tampering
from helpers.repo_helper import TestRepo
from planegate.cli import main
from planegate.gate import canary_sample
from planegate.runner import mutants

# Rewrites every report of the project's tests (`tests/...`) to passed; the fixed canaries
# live outside the tree, so they are reported as they ran and the channel looks honest.
REPORT_PROPERTY = (
    "import importlib\n\n_reports = importlib.import_module('_py' + 'test.reports')\n\n\n"
    "def _get(self):\n"
    "    return 'passed' if self.nodeid.startswith('te' + 'sts/') else self.__dict__['_o']\n\n\n"
    "def _set(self, value):\n    self.__dict__['_o'] = value\n\n\n"
    "setattr(_reports.TestReport, 'out' + 'come', property(_get, _set))\n"
)
CORE = (
    "def add(a, b):\n    return a + b\n\n\ndef label(n):\n    return f'n={n}'\n\n\n"
    "class Counter:\n    def __init__(self):\n        self.seen = []\n\n"
    "    def count(self, item):\n        self.seen.append(item)\n        return len(self.seen)\n"
)
EXAMPLES = (
    "from calc.core import Counter, add\n\n\n"
    "def test_add_small():\n    assert add(2, 3) == 5\n\n\n"
    "class TestCounter:\n    def test_counts(self):\n        counter = Counter()\n"
    "        counter.count('a')\n        assert counter.count('b') == 2\n"
)
# main's own weak test: whatever add() does, it passes
TOLERANT = (
    "from calc.core import add\n\n\ndef test_add_does_not_crash():\n"
    "    try:\n        add(1, 2)\n    except Exception:\n        pass\n"
)
ALL_SAMPLED = 'pytest:\n  plugins: ["hypothesis"]\n  triage_runs: 0\n  sampled_canaries: 20\n'


def sampled(report: dict[str, Any]) -> dict[str, Any]:
    return next(p for p in report["probes"] if p["probe"] == mutants.SAMPLED)


def findings(report: dict[str, Any], rule: str) -> list[dict[str, Any]]:
    return [f for s in report["steps"] for f in s["findings"] if f["rule"] == rule]


# --- the break itself (pure) ---


def test_a_broken_function_raises_and_every_other_line_keeps_its_number() -> None:
    source = (
        "import os\n\n\ndef add(a, b):\n    '''Sum.'''\n    total = a + b\n    return total\n\n\n"
        "class C:\n    @property\n    def v(self): return 1  # one line\n\n"
        "    def __repr__(self):\n        return 'C'\n"
    )
    text = mutants.broken(source, ["add", "C.v"], "not ready")
    assert text is not None
    assert len(text.splitlines()) == len(source.splitlines())
    namespace: dict[str, Any] = {}
    exec(compile(text, "calc.py", "exec"), namespace)
    with pytest.raises(RuntimeError, match="not ready"):
        namespace["add"](1, 2)
    with pytest.raises(RuntimeError):
        _ = namespace["C"]().v
    assert repr(namespace["C"]()) == "C"
    assert "def v(self): raise RuntimeError('not ready')  # one line" in text


def test_only_plain_functions_of_main_are_chosen_and_every_definition_is_broken() -> None:
    main_source = (
        "def gen():\n    yield 1\n\n\nasync def later():\n    return 1\n\n\n"
        "class C:\n    def __eq__(self, other):\n        return True\n\n"
        "    def __init__(self):\n        self.x = 1\n\n\ndef twice():\n    return 1\n\n\n"
        "def twice():\n    return 2\n"
    )
    assert mutants.function_at(main_source, 1, "gen") is None  # a generator
    assert mutants.function_at(main_source, 5, "later") is None  # async
    assert mutants.function_at(main_source, 10, "__eq__") is None  # a special method
    assert mutants.function_at(main_source, 13, "__init__") == "C.__init__"
    assert mutants.function_at(main_source, 17, "twice") is None  # defined twice on main
    # on the head, a name defined twice (or turned into a generator) is broken everywhere
    head = "def add(a, b):\n    return a + b\n\n\ndef add(a, b):\n    yield a + b\n"
    text = mutants.broken(head, ["add"], "x")
    assert text is not None and text.count("raise RuntimeError('x')") == 2
    assert mutants.broken(head, ["gone"], "x") is None


# --- the gate, on real repositories ---


class Project:
    """Main with `extra` files and planegate.yml's pytest section replaced by `pytest_yml`."""

    def __init__(self, root: Path, extra: dict[str, str], pytest_yml: str = "") -> None:
        files: dict[str, str | bytes] = {**PROJECT, "calc/core.py": CORE, **extra}
        if pytest_yml:
            config = str(PROJECT["planegate.yml"])
            files["planegate.yml"] = config[: config.index("pytest:")] + pytest_yml
        files["tests/fixtures.lock.json"] = manifest_for(files)
        self.repo = TestRepo(root / "project")
        self.repo.commit("initial", files)
        self.digest = root / "digest.json"
        assert main(["-C", str(self.repo.root), "digest", "--out", str(self.digest), "-q"]) == 0

    def gate(
        self, capsys: pytest.CaptureFixture[str], branch: str, files: dict[str, str]
    ) -> tuple[int, dict[str, Any]]:
        self.repo.checkout("main")
        self.repo.branch(branch)
        self.repo.commit(branch, files)
        capsys.readouterr()  # what making main's digest printed
        argv = ["-C", str(self.repo.root), "gate", "--base", "main", "--format", "json", "-q"]
        code = main([*argv, "--digest", str(self.digest)])
        return code, json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    yield Project(tmp_path_factory.mktemp("sampled"), {"tests/fix/test_examples.py": EXAMPLES})


def test_an_honest_patch_passes_with_three_tests_sampled_and_broken(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    honest = CORE.replace("return f'n={n}'", "return 'n=' + str(n)")
    code, report = project.gate(capsys, "honest", {"calc/core.py": honest})
    assert code == 0, errors(report)
    record = sampled(report)
    assert record["outcome"] == "pass" and record["tests"] == 3  # the default sample
    assert record["seconds"] > 0
    # each sampled test names the function it calls on main, broken at its line on the head
    targets = {"add (calc/core.py:1)", "label (calc/core.py:5)", "Counter.count (calc/core.py:13)"}
    targets.add("Counter.__init__ (calc/core.py:10)")
    detail, _, traced = record["detail"].partition(" (traced ")
    assert traced.startswith("4 on main alongside")  # every test, up to 2 for each sampled
    named = [part.split(" -> ", 1)[1] for part in detail.split("; ")]
    assert len(named) == 3 and set(named) <= targets
    assert not findings(report, "PG125") and not findings(report, "PG126")


def test_reports_rewritten_to_passed_are_caught_though_the_fixed_canaries_hold(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {"calc/core.py": CORE.replace("return a + b", "return a - b"), "calc/__init__.py": ""}
    files["calc/__init__.py"] = REPORT_PROPERTY
    code, report = project.gate(capsys, "forged-passes", files)
    assert code != 0
    assert not findings(report, "PG104")  # the fixed canaries were answered rightly
    lied = findings(report, "PG125")
    assert lied, errors(report)
    first = lied[0]
    assert first["severity"] == "error" and first["path"] == "calc/core.py" and first["line"]
    assert first["nodeid"] in first["message"]
    assert "reported passed with " in first["message"]
    assert "broken, failed on main with the same break" in first["message"]
    assert "replace the body of" in first["message"] and "python -m pytest" in first["message"]
    assert sampled(report)["outcome"] == "fail"
    assert tampering(report)  # the patched report class is named as well


def test_a_test_that_swallows_every_error_is_weak_evidence_not_a_lie(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = Project(tmp_path, {"tests/fix/test_tolerant.py": TOLERANT}, ALL_SAMPLED)
    code, report = project.gate(capsys, "docs", {"README.md": "calc\n"})
    assert code == 0, errors(report)
    weak = findings(report, "PG126")
    assert [f["nodeid"] for f in weak] == ["tests/fix/test_tolerant.py::test_add_does_not_crash"]
    assert weak[0]["severity"] == "warning" and weak[0]["owner"] == "@org/goldens"
    assert weak[0]["path"] == "calc/core.py" and weak[0]["line"] == 1
    assert "passed with add (calc/core.py:1) broken, on main's code too" in weak[0]["message"]
    assert not findings(report, "PG125")
    assert sampled(report)["tests"] == 3  # every scoring test of main's, sampled


def test_the_sample_is_skipped_when_configured_off(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    off = ALL_SAMPLED.replace("sampled_canaries: 20", "sampled_canaries: 0")
    project = Project(tmp_path, {}, off)
    code, report = project.gate(capsys, "bug", {"calc/core.py": BUG})
    assert code == 1
    record = sampled(report)
    assert record["outcome"] == "not run" and "off" in record["detail"]


def test_the_break_is_never_written_through_a_link_out_of_the_tree(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "core.py").write_text(CORE, "utf-8")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "calc").symlink_to(outside)  # a folder the patch made a link
    target = canary_sample.Target("tests/t.py::test_a", "calc/core.py", "add", 1)
    with canary_sample.broken_in(tree, (target,), "x") as ready:
        assert not ready
    (tree / "lib").mkdir()
    (tree / "lib/core.py").write_text(CORE, "utf-8")
    inside = canary_sample.Target("tests/t.py::test_a", "lib/core.py", "add", 1)
    with canary_sample.broken_in(tree, (inside,), "x") as ready:
        assert ready and "raise RuntimeError('x')" in (tree / "lib/core.py").read_text()
    assert (tree / "lib/core.py").read_text() == CORE == (outside / "core.py").read_text()
