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

from helpers.attack_helper import BUG, errors, tampering
from helpers.project import PROJECT, manifest_for
from helpers.repo_helper import TestRepo
from planegate.cli import main
from planegate.probes.canaries import plan as mutants

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
# main's test with subtests: broken, its subtests fail; those reports stay out of the stream
SUBTESTS = (
    "from calc.core import add\n\n\ndef test_add_in_subtests(subtests):\n"
    "    for n in (1, 2):\n        with subtests.test(n=n):\n"
    "            assert add(n, n) == 2 * n\n"
)
# a property test that is a method: its broken run stops at the first failing example
CLASS_PROPERTY = (
    "from hypothesis import given, strategies as st\n\nfrom calc.core import add\n\n\n"
    "class TestAdd:\n    @given(st.integers(), st.integers())\n"
    "    def test_zero(self, a, b):\n        assert add(add(a, b), 0) == add(b, a)\n"
)
ALL_SAMPLED = 'pytest:\n  plugins: ["hypothesis"]\n  triage_runs: 0\n  sampled_canaries: 20\n'


def sample_record(report: dict[str, Any]) -> dict[str, Any]:
    return next(p for p in report["probes"] if p["probe"] == mutants.SAMPLED)


def findings(report: dict[str, Any], rule: str) -> list[dict[str, Any]]:
    return [f for s in report["steps"] for f in s["findings"] if f["rule"] == rule]


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
    record = sample_record(report)
    assert record["outcome"] == "pass" and record["tests"] == 3  # the default sample
    # each broken test names the function it called, at its line on the head; label(), which
    # the patch rewrote, may be broken too
    targets = {"add (calc/core.py:1)", "Counter.count (calc/core.py:13)"}
    targets |= {"Counter.__init__ (calc/core.py:10)", "label (calc/core.py:5)"}
    detail, _, ran = record["detail"].rpartition(" (")
    assert ran == "4 sampled in the head's run)"  # every test, up to 2 for each break
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
    assert "return a wrong value of its own type" in first["message"]
    assert "python -m pytest" in first["message"]
    assert sample_record(report)["outcome"] == "fail"
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
    # a property comparing two calls of add() fails with add() broken: each call is off by
    # its own amount
    assert weak[0]["path"] == "calc/core.py" and weak[0]["line"] == 1
    assert "passed with add (calc/core.py:1) broken, on main's code too" in weak[0]["message"]
    assert not findings(report, "PG125")
    assert sample_record(report)["tests"] == 3  # every scoring test of main's, sampled


def test_the_sample_is_skipped_when_configured_off(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    off = ALL_SAMPLED.replace("sampled_canaries: 20", "sampled_canaries: 0")
    project = Project(tmp_path, {}, off)
    code, report = project.gate(capsys, "bug", {"calc/core.py": BUG})
    assert code == 1
    record = sample_record(report)
    assert record["outcome"] == "not run" and "off" in record["detail"]


def test_tests_with_subtests_or_as_property_methods_keep_their_verdicts_when_broken(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # subtests' reports of the broken run stay out of the stream; a property test method's
    # broken run (its settings are its function's) does not end the session
    extra = {
        "tests/fix/test_subtests.py": SUBTESTS,
        "tests/prop/test_class_props.py": CLASS_PROPERTY,
    }
    project = Project(tmp_path, extra, ALL_SAMPLED)
    code, report = project.gate(capsys, "docs", {"README.md": "calc\n"})
    assert code == 0, errors(report)
    record = sample_record(report)
    assert record["outcome"] == "pass"
    assert "tests/fix/test_subtests.py::test_add_in_subtests -> add" in record["detail"]
    assert "tests/prop/test_class_props.py::TestAdd::test_zero -> add" in record["detail"]


# --- a sample that cannot be starved or recognised ---

# lets through a failure that reads like the old canary break (a RuntimeError, its message)
# and rewrites every other report of the project's tests to passed
RECOGNISER = REPORT_PROPERTY.replace(
    "    return 'passed' if self.nodeid.startswith('te' + 'sts/') else self.__dict__['_o']\n",
    "    text = str(self.__dict__.get('longrepr'))\n"
    "    canary = 'Runtime' + 'Error' in text or 'state not ' + 'ready' in text\n"
    "    if self.nodeid.startswith('te' + 'sts/') and not canary:\n        return 'passed'\n"
    "    return self.__dict__['_o']\n",
)
DOCSTRINGS = (
    'def add(a, b):\n    """Add."""\n    return a - b\n\n\n'
    'def label(n):\n    """Label."""\n    return f\'n={n}\'\n\n\n'
    'class Counter:\n    def __init__(self):\n        """Start."""\n        self.seen = []\n\n'
    '    def count(self, item):\n        """Count."""\n        self.seen.append(item)\n'
    "        return len(self.seen)\n"
)
UNITTEST_SUITE = {
    "tests/prop/test_add_props.py": (
        "import unittest\n\nfrom hypothesis import given, strategies as st\n\n"
        "from calc.core import add\n\n\nclass AddProperties(unittest.TestCase):\n"
        "    @given(st.integers(), st.integers())\n    def test_commutes(self, a, b):\n"
        "        self.assertEqual(add(a, b), add(b, a))\n"
    ),
    "tests/fix/test_label.py": (
        "import unittest\nfrom pathlib import Path\n\nfrom calc.core import label\n\n\n"
        "class LabelChecks(unittest.TestCase):\n    def test_golden(self):\n"
        "        expected = (Path(__file__).parent / 'data' / 'label.txt').read_text()\n"
        "        self.assertEqual(label(3), expected)\n"
    ),
    "tests/fix/test_examples.py": (
        "import unittest\n\nfrom calc.core import Counter, add\n\n\n"
        "class Examples(unittest.TestCase):\n    def test_add_small(self):\n"
        "        self.assertEqual(add(2, 3), 5)\n\n    def test_counts(self):\n"
        "        counter = Counter()\n        counter.count('a')\n"
        "        self.assertEqual(counter.count('b'), 2)\n"
    ),
}
# every function main's tests call wrapped in a closure: nothing of the tree is a plain def
WRAPPED = (
    "def _wrap(function):\n    def wrapper(*args, **kwargs):\n"
    "        return function(*args, **kwargs)\n\n    return wrapper\n\n\n"
    + CORE.replace("def add", "@_wrap\ndef add")
    .replace("def label", "@_wrap\ndef label")
    .replace("    def count", "    @_wrap\n    def count")
    .replace("    def __init__", "    @_wrap\n    def __init__")
)


def lies(report: dict[str, Any]) -> list[dict[str, Any]]:
    return findings(report, "PG125")


@pytest.mark.parametrize(
    ("name", "core"),
    [("recognised", CORE.replace("return a + b", "return a - b")), ("docstrings", DOCSTRINGS)],
)
def test_a_forger_that_spares_canary_failures_or_starves_the_sample_is_caught(
    project: Project, capsys: pytest.CaptureFixture[str], name: str, core: str
) -> None:
    # the breaks read as ordinary wrong values; the functions the patch touched are broken too
    code, report = project.gate(
        capsys, name, {"calc/core.py": core, "calc/__init__.py": RECOGNISER}
    )
    assert code != 0
    assert lies(report), errors(report)
    assert sample_record(report)["outcome"] == "fail"


def test_a_patch_touching_every_called_function_is_still_sampled(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    honest = DOCSTRINGS.replace("return a - b", "return a + b")
    code, report = project.gate(capsys, "honest-docstrings", {"calc/core.py": honest})
    assert code == 0, errors(report)
    record = sample_record(report)
    assert record["outcome"] == "pass" and record["tests"] == 3


# Test functions of main's source that pytest never collects, outnumbering those it does in
# each kind the sample takes in turn: an abstract base's methods and functions marked
# `__test__ = False`
UNCOLLECTED = (
    "import abc\nimport unittest\n\nfrom calc.core import add\n\n\nclass Checks(abc.ABC):\n"
    + "".join(
        f"    def test_c{n}(self):\n        assert add({n}, 1) == {n + 1}\n\n" for n in range(20)
    )
    + "".join(
        f"\ndef test_f{n}():\n    assert add({n}, 0) == {n}\n\n\ntest_f{n}.__test__ = False\n\n"
        for n in range(20)
    )
    + "\nclass Rows(unittest.TestCase):\n    def test_rows(self):\n"
    "        self.assertEqual(add(2, 3), 5)\n"
)


def test_the_sample_is_drawn_from_the_tests_mains_run_collected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # main's digest names what its run collected: each of the two sampled slots (one break)
    # goes to a test that runs, not to one of the forty that exist only in the source
    one = ALL_SAMPLED.replace("sampled_canaries: 20", "sampled_canaries: 1")
    project = Project(tmp_path, {"tests/fix/test_uncollected.py": UNCOLLECTED}, one)
    honest = CORE.replace("return f'n={n}'", "return 'n=' + str(n)")
    for attempt in ("honest", "honest-again"):
        code, report = project.gate(capsys, attempt, {"calc/core.py": honest})
        assert code == 0, errors(report)
        record = sample_record(report)
        assert record["outcome"] == "pass" and record["tests"] == 1, record
        assert record["detail"].endswith("(2 sampled in the head's run)"), record


def test_a_unittest_style_suite_is_sampled_and_its_forger_caught(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = Project(tmp_path, UNITTEST_SUITE, ALL_SAMPLED)
    honest = CORE.replace("return f'n={n}'", "return 'n=' + str(n)")
    code, report = project.gate(capsys, "honest", {"calc/core.py": honest})
    assert code == 0, errors(report)
    assert sample_record(report)["tests"] == 4  # every test of the suite, a unittest method
    files = {"calc/core.py": CORE.replace("return a + b", "return a - b")}
    files["calc/__init__.py"] = RECOGNISER
    code, report = project.gate(capsys, "forged", files)
    assert code != 0
    assert lies(report), errors(report)


def test_a_sample_with_nothing_to_break_is_a_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = Project(tmp_path, {"tests/fix/test_examples.py": EXAMPLES}, ALL_SAMPLED)
    code, report = project.gate(capsys, "wrapped", {"calc/core.py": WRAPPED})
    assert code == 1
    starved = findings(report, "PG140")
    assert starved and starved[0]["severity"] == "error", errors(report)
    assert "on main's code" in starved[0]["message"]
    # main's own code wrapped the same way: main's state, a warning for the plane's owner
    project.repo.checkout("main")
    project.repo.commit("wrapped on main", {"calc/core.py": WRAPPED})
    code, report = project.gate(capsys, "docs", {"README.md": "calc\n"})
    assert code == 0, errors(report)
    warned = findings(report, "PG141")
    assert warned and warned[0]["severity"] == "warning"


# a table-driven unittest test whose rows reach the broken function only from the fourth on:
# its broken run stops at the first failing subTest, which must still count as failed
SUBTEST_TABLE = {
    "tests/fix/test_table.py": (
        "import unittest\n\nfrom calc.core import add\n\n\n"
        "class Table(unittest.TestCase):\n    def test_rows(self):\n"
        "        for n in range(8):\n            with self.subTest(n=n):\n"
        "                if n < 3:\n                    self.assertEqual(n * 2, n + n)\n"
        "                else:\n                    self.assertEqual(add(n, n), 2 * n)\n"
    ),
}


def test_a_unittest_subtest_table_fails_broken_and_its_forger_is_caught(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = Project(tmp_path, SUBTEST_TABLE, ALL_SAMPLED)
    honest = CORE.replace("return f'n={n}'", "return 'n=' + str(n)")
    code, report = project.gate(capsys, "honest", {"calc/core.py": honest})
    assert code == 0, errors(report)
    record = sample_record(report)
    assert record["outcome"] == "pass"
    assert "tests/fix/test_table.py::Table::test_rows -> add" in record["detail"]
    files = {"calc/core.py": CORE.replace("return a + b", "return a - b")}
    files["calc/__init__.py"] = RECOGNISER
    code, report = project.gate(capsys, "forged", files)
    assert code != 0
    assert lies(report), errors(report)


# the same table with pytest's `subtests` fixture: its broken run ends at the first failed
# subtest (the session's `shouldfail`, set for that call phase only), and the session goes on
FIXTURE_TABLE = {
    "tests/fix/test_table.py": (
        "from calc.core import add\n\n\ndef test_rows(subtests):\n"
        "    for n in range(8):\n        with subtests.test(n=n):\n"
        "            if n < 3:\n                assert n * 2 == n + n\n"
        "            else:\n                assert add(n, n) == 2 * n\n\n\n"
        "def test_after():\n    assert add(1, 1) == 2\n"
    ),
    "tests/fix/test_examples.py": EXAMPLES,
}


def test_a_subtests_fixture_table_fails_broken_and_the_session_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = Project(tmp_path, FIXTURE_TABLE, ALL_SAMPLED)
    honest = CORE.replace("return f'n={n}'", "return 'n=' + str(n)")
    code, report = project.gate(capsys, "honest", {"calc/core.py": honest})
    assert code == 0, errors(report)  # every test after a broken run reported as it ran
    record = sample_record(report)
    assert record["outcome"] == "pass"
    assert "tests/fix/test_table.py::test_rows -> add" in record["detail"]
    files = {"calc/core.py": CORE.replace("return a + b", "return a - b")}
    files["calc/__init__.py"] = RECOGNISER
    code, report = project.gate(capsys, "forged", files)
    assert code != 0
    assert lies(report), errors(report)


# main's tests as a freezegun user writes them: a later test rebinds a name in every loaded
# module that holds it (here another test module's), and restores it before it ends
LIMITS = "from calc.core import add\n\nLIMIT = 10\n" + "".join(
    f"\n\ndef test_under_limit_{n}():\n    assert add({n}, 1) < LIMIT + {n}\n" for n in range(5)
)
THAWS = (
    "import sys\n\nfrom calc.core import add\n\n\n"
    "def test_frozen_for_a_while():\n"
    "    touched = [m for n, m in list(sys.modules.items()) if n.endswith('test_a_limits')]\n"
    "    for module in touched:\n        module.LIMIT = 11\n"
    "    try:\n        assert add(1, 1) == 2\n"
    "    finally:\n        for module in touched:\n            module.LIMIT = 10\n"
)
LATER = "from calc.core import add\n" + "".join(
    f"\n\ndef test_later_{n}():\n    assert add({n}, {n}) == {2 * n}\n" for n in range(8)
)


def test_a_broken_run_placed_after_mains_own_rebinding_names_nothing_new(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Main's run sees the test module rebound and restored where main's own checks next
    look at it; a sampled broken run of one of that module's tests, drawn to run after the
    rebinding, must not name it at its own checkpoints instead (a sign main's run cannot
    show, so a false PG107 on an honest patch)."""
    extra = {
        "tests/fix/test_a_limits.py": LIMITS,
        "tests/fix/test_b_thaws.py": THAWS,
        "tests/fix/test_c_later.py": LATER,
    }
    project = Project(tmp_path, extra, ALL_SAMPLED)
    honest = CORE.replace("return f'n={n}'", "return 'n=' + str(n)")
    code, report = project.gate(capsys, "honest", {"calc/core.py": honest})
    record = sample_record(report)
    assert record["outcome"] == "pass" and record["tests"] >= 5, record
    assert not findings(report, "PG107"), [f["message"] for f in findings(report, "PG107")]
    assert code == 0, errors(report)


# a test helper that puts os.name back only when its block ends without an error, as
# colorama's `osname` does: the broken run fails inside it
LEAVES_WINDOWS = (
    "import os\nfrom contextlib import contextmanager\n\nfrom calc.core import add\n\n\n"
    "@contextmanager\ndef osname(name):\n    before = os.name\n    os.name = name\n"
    "    yield\n    os.name = before\n\n\n"
    "def test_add_on_windows():\n    with osname('nt'):\n        assert add(1, 2) == 3\n\n\n"
    "def test_add_after(tmp_path):  # pathlib makes a WindowsPath where os.name is 'nt'\n"
    "    assert add(2, 2) == 4\n"
)


def test_what_a_broken_run_leaves_of_the_process_is_put_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # every test sampled: the broken run of the first leaves os.name "nt" behind it; the
    # session must go on as plain pytest's does (which never runs a broken function)
    project = Project(tmp_path, {"tests/fix/test_windows.py": LEAVES_WINDOWS}, ALL_SAMPLED)
    honest = CORE.replace("return f'n={n}'", "return 'n=' + str(n)")
    code, report = project.gate(capsys, "honest", {"calc/core.py": honest})
    assert code == 0, [f["message"] for s in report["steps"] for f in s["findings"]]
    assert sample_record(report)["outcome"] == "pass"
