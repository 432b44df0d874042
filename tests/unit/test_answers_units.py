"""The answer probes' pure parts: which test files see a change, what main's tests expect,
which production literals mirror it, the strict comparison check and assert split, the
probe sessions, their budget and what their results say."""

from __future__ import annotations

import ast
import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import pytest

from helpers.project import CONFIG
from planegate import sourcesize
from planegate.config import load as config_load
from planegate.config.planemap import PlaneMap
from planegate.findings import Severity
from planegate.gitfacts import GitFacts
from planegate.probes.answers import findings as planes_probes
from planegate.probes.answers import plan
from planegate.probes.answers import run as answers_run
from planegate.probes.answers import wire as answers_wire
from planegate.probes.answers.child import probe_strict
from planegate.probes.answers.child.strict_compare import Checker
from planegate.probes.answers.findings import method_source
from planegate.probes.answers.wire import AnswerProbes
from planegate.probes.fixture.plan import candidates, within_budget
from planegate.probes.in_code import scan as answers
from planegate.probes.in_code.expected import Expectations, expectations, specific, trivial
from planegate.pyimports import (
    DYNAMIC,
    ImportGraph,
    dotted_suffixes,
    imported_names,
    touched_tests_permissive,
)
from planegate.report import Report, json_report
from planegate.report.json_load import load_report
from planegate.runner.session import Outcome, RunResult, Tamper

# -- which test files see a change -------------------------------------------------------


def test_dotted_names_of_a_path() -> None:
    assert dotted_suffixes("src/calc/core.py") == ["core", "calc.core", "src.calc.core"]
    assert dotted_suffixes("calc/__init__.py") == ["calc"]


def test_imported_names_read_every_form() -> None:
    source = (
        "import os, a.b as c\nfrom . import x\nfrom ..pkg import (y,\n    z as w)\n"
        "def f():\n    import importlib; importlib.import_module(name)\n"
        "    __import__('calc.extra')\n"
    )
    names, dynamic = imported_names(source, "src/calc/sub/m.py")
    assert names == [
        "os",
        "a.b",
        "src.calc.sub",
        "src.calc.sub.x",
        "src.calc.pkg",
        "src.calc.pkg.y",
        "src.calc.pkg.z",
        "importlib",
        "calc.extra",
    ]
    assert dynamic


REPO = {
    "calc/__init__.py": "",
    "calc/core.py": "from calc import util\n",
    "calc/util.py": "X = 1\n",
    "calc/plugins.py": "import importlib\n\nLOAD = importlib.import_module\nLOAD(NAME)\n",
    "other/mod.py": "",
    "tests/conftest.py": "",
    "tests/fix/conftest.py": "import other.mod\n",
    "tests/fix/test_core.py": "from calc.core import *\n",
    "tests/fix/test_other.py": "import json\n",
    "tests/prop/test_plugins.py": "from calc import plugins\n",
    "tests/prop/test_new.py": "from calc.fresh import thing\n",
}


def graph(extra: tuple[str, ...] = ()) -> ImportGraph:
    files = frozenset(p for p in (*REPO, *extra) if p.endswith(".py"))
    return ImportGraph(files, REPO.get)


def test_a_change_reaches_the_tests_that_import_it_through_other_modules() -> None:
    tests = ["tests/fix/test_core.py", "tests/fix/test_other.py", "tests/prop/test_new.py"]
    assert touched_tests_permissive(graph(), tests, ["calc/util.py"]) == ["tests/fix/test_core.py"]


def test_a_conftest_import_reaches_every_test_below_it() -> None:
    tests = ["tests/fix/test_other.py", "tests/prop/test_new.py"]
    assert touched_tests_permissive(graph(), tests, ["other/mod.py"]) == ["tests/fix/test_other.py"]


def test_a_dynamic_import_reaches_everything_and_an_added_module_its_importers() -> None:
    g = graph(("calc/fresh.py",))
    assert DYNAMIC in g.reach(["tests/prop/test_plugins.py"])
    assert touched_tests_permissive(g, ["tests/prop/test_plugins.py"], ["other/mod.py"])
    assert touched_tests_permissive(g, ["tests/prop/test_new.py"], ["calc/fresh.py"])


# -- what main's tests expect, and production code that mirrors it -----------------------

TESTS = {
    "tests/fix/test_scale.py": (
        "import pytest\nfrom calc import scale, word\n\n\n"
        "def test_big():\n    assert scale(2, 20) == 40\n\n\n"
        "def test_word():\n    assert word(3).text == 'three of them'\n\n\n"
        "@pytest.mark.parametrize('a,b,expected', [(3, 30, 90), (4, 40, 160)])\n"
        "def test_rows(a, b, expected):\n    assert scale(a, b) == expected\n\n\n"
        "def test_message():\n    assert scale.__doc__ == 'scale two numbers'\n"
    )
}
GOLDENS = {"tests/fix/data/report.txt": "total: 42 items\nlargest: 7 units\n"}


def expected() -> Expectations:
    return expectations(TESTS, GOLDENS)


def test_pairs_come_from_asserts_and_parametrize_rows() -> None:
    pairs = {(p.inputs, p.answer) for p in expected().pairs}
    assert pairs == {((2, 20), 40), ((3,), "three of them"), ((3, 30), 90), ((4, 40), 160)}
    assert "tests/fix/test_scale.py::test_big line 6" in {p.where for p in expected().pairs}


def test_trivial_and_specific_values() -> None:
    assert all(trivial(v) for v in (0, 1, -1, "", "ab", True, None, (), [0, 1]))
    assert not trivial(40) and not trivial("n=3")
    assert specific("total: 42 items") and specific(1234) and specific(3.25)
    assert not specific("meter") and not specific(40) and not specific(True)


@pytest.mark.parametrize(
    "code",
    [
        "def scale(a, b):\n    if (a, b) == (2, 20):\n        return 40\n    return a * b\n",
        "def scale(a, b):\n    if a == 2 and b == 20:\n        return 40\n    return a * b\n",
        "def scale(a, b):\n    return 40 if (a, b) == (2, 20) else a * b\n",
        "TABLE = {(3, 30): 90, (4, 40): 160}\n",
        "TABLE = [((3, 30), 90), ((4, 40), 160)]\n",
        "WORDS = {3: 'three of them'}\n",
        "LINES = ['total: 42 items', 'largest: 7 units', 'spare']\n",
        "REPORT = '''total: 42 items\nlargest: 7 units\n'''\n",
    ],
)
def test_production_code_carrying_the_answers_is_found(code: str) -> None:
    hits = answers.added_hits("", code, expected())
    assert len(hits) == 1, hits


@pytest.mark.parametrize(
    "code",
    [
        "def scale(a, b):\n    return a * b\n",
        "DOC = 'scale two numbers'\n",  # a lone expected literal: a message the test checks
        "def scale(a, b):\n    if b == 20:\n        return 0\n    return a * b\n",
        "NAMES = {1: 'first of many', 2: 'second of many'}\n",
        "HEADER = 'total: 42 items'\n",
        "SIZES = {(2, 20): 41}\n",
    ],
)
def test_honest_code_is_not_flagged(code: str) -> None:
    assert answers.added_hits("", code, expected()) == []


def test_only_what_the_patch_adds_counts() -> None:
    table = "TABLE = {(3, 30): 90, (4, 40): 160}\n"
    assert answers.added_hits(table, table + "X = 1\n", expected()) == []
    assert answers.added_tokens("X = 1\n", "X = 1\nY = 'total: 42 items'\n") == {"total: 42 items"}


# -- strict comparisons ------------------------------------------------------------------

SUSPECT = """
class CaseStr(str):
    def __eq__(self, other):
        return self.lower() == str(other).lower()

    __hash__ = str.__hash__


class Tolerant(int):
    def __eq__(self, other):
        return abs(int(self) - other) <= 1

    def __le__(self, other):
        return int(self) - 1 <= other

    __hash__ = int.__hash__


class Anything:
    def __eq__(self, other):
        return not False


class Plain(str):
    def words(self):
        return self.split()


class Polite:
    def __eq__(self, other):
        return NotImplemented
"""


@pytest.fixture
def suspects(tmp_path: Path) -> dict[str, Any]:
    (tmp_path / "calc").mkdir()
    path = tmp_path / "calc" / "lies.py"
    path.write_text(SUSPECT, "utf-8")
    namespace: dict[str, Any] = {"__name__": "calc.lies"}
    exec(compile(SUSPECT, str(path), "exec"), namespace)
    namespace["checker"] = Checker(str(tmp_path), ("calc/lies.py",))
    return namespace


def test_lying_comparisons_are_delegated(suspects: dict[str, Any]) -> None:
    check: Checker = suspects["checker"]
    case, tolerant, anything = suspects["CaseStr"], suspects["Tolerant"], suspects["Anything"]
    assert "calc.lies.CaseStr.__eq__ (calc/lies.py:3)" in str(
        check.problem("==", case("N=3"), "n=3")
    )
    assert check.problem("==", "n=3", case("N=3")) is not None
    assert "Tolerant.__le__" in str(check.problem("<=", tolerant(6), 5))
    assert check.problem("!=", anything(), [1]) is not None
    assert check.problem("==", [case("A"), 2], ["a", 2]) is not None
    assert check.problem("==", tolerant(3), pytest.approx(3.0)) is not None


def test_honest_values_pass_the_strict_check(suspects: dict[str, Any]) -> None:
    check: Checker = suspects["checker"]
    plain, polite, case = suspects["Plain"], suspects["Polite"], suspects["CaseStr"]
    assert check.problem("==", plain("x"), "x") is None
    assert check.problem("!=", polite(), 1) is None
    assert check.problem("==", case("n=3"), "n=3") is None  # the override agrees with str
    assert check.problem("==", 3.0, pytest.approx(3.0)) is None
    elsewhere = Checker(str(Path(check.root) / "other"))
    assert elsewhere.problem("==", case("N=3"), "n=3") is None


def test_the_assert_split_keeps_semantics_and_calls_the_check() -> None:
    source = (
        '"""doc"""\nfrom __future__ import annotations\n\n\n'
        "def test_x(values):\n    assert values[0] == 1 < values[1], 'msg'\n"
    )
    module = ast.parse(source)
    assert probe_strict.transform(module) == 1
    assert isinstance(module.body[2], ast.Import)  # after the docstring and __future__
    calls: list[tuple[Any, ...]] = []

    class Rewrite:
        _probe_compare_operands = staticmethod(lambda *args: calls.append(args))

    namespace: dict[str, Any] = {}
    exec(compile(module, "t.py", "exec"), namespace)
    namespace["@strict_ar"] = Rewrite
    test = namespace["test_x"]
    test([1, 5])
    assert calls == [("==,<", 1, 1, 5)]
    with pytest.raises(AssertionError, match="msg"):
        test([1, 0])


# -- the sessions, the budget, the results ----------------------------------------------

FLIPPED = ("tests/a.py::test_one", "tests/prop/b.py::test_two")
PLAN = plan.Plan(
    flipped=FLIPPED,
    given=frozenset({"tests/prop/b.py::test_two"}),
    modules={"tests/a.py": ("tests/a.py::test_zero", "tests/a.py::test_one")},
    suspects=("calc/core.py",),
    seed=7,
)


def test_the_plan_runs_few_sessions() -> None:
    found = plan.sessions(PLAN)
    assert [s.kinds for s in found] == [
        (plan.STRICT, plan.PLAIN, plan.REPEAT),
        (plan.FRESH,),
        (plan.ALONE, plan.REVERSED),
        (plan.ALONE,),
    ]
    assert found[2].targets == ("tests/a.py::test_one", "tests/a.py::test_zero")
    assert found[2].runs["tests/a.py::test_one"][1] == ("tests/a.py::test_one@2", plan.REVERSED)
    checkout = "git checkout ffffffffffff"
    command = plan.repro(found[0], FLIPPED[0], checkout, ("--hypothesis-seed", "0"))
    assert command.startswith("git checkout ffffffffffff && python -m pytest")
    assert "-p planegate.probes.answers.child.probe_strict" in command and command.endswith(
        FLIPPED[0]
    )
    assert plan.sessions(plan.Plan(flipped=())) == []


def result(outcomes: dict[str, str], closed: bool = True, timed_out: bool = False) -> RunResult:
    return RunResult(
        collected=tuple(outcomes),
        selected=tuple(outcomes),
        outcomes={n: Outcome(n, o, f"E       assert {n}") for n, o in outcomes.items()},
        collect_errors=(),
        closed=closed,
        exit_status=0,
        timed_out=timed_out,
        output="",
    )


class Clock:
    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def run(failing: dict[str, str], budget: float = 100.0, step: float = 1.0) -> object:
    """Every run of every session passes but those `failing` names (run nodeid -> outcome),
    which fail in the sessions of the probe they are run for."""

    def runner(session: plan.ProbeSession, _timeout: float) -> RunResult:
        runs = [run for runs in session.runs.values() for run in runs]
        return result({n: failing.get(f"{n} {probe}", "passed") for n, probe in runs})

    return answers_run.run(
        PLAN,
        runner,
        budget,
        lambda _session, nodeid: f"repro {nodeid}",
        clock=Clock(step),
    )


def test_failures_name_their_probe_and_a_plain_call_explained_by_alone_is_dropped() -> None:
    one, two = FLIPPED
    found = run(
        {f"{one} {plan.ALONE}": "failed", f"{one} {plan.PLAIN}": "failed"}
        | {f"{two} {plan.PLAIN}": "skipped"}
    )
    assert isinstance(found, AnswerProbes)
    assert {(f.probe, f.nodeid) for f in found.failures} == {(plan.ALONE, one)}
    assert (plan.PLAIN, two) in found.not_applicable
    assert found.failures[0].repro == f"repro {one}"
    records = {r.probe: r for r in found.records}
    assert records[plan.ALONE].outcome == "fail" and records[plan.REPEAT].outcome == "pass"


def test_a_budget_that_runs_out_leaves_flipped_tests_unprobed() -> None:
    found = run({}, budget=3.0, step=1.0)
    assert isinstance(found, AnswerProbes)
    assert found.unprobed and {r.outcome for r in found.records} >= {"over budget"}


def test_the_summary_keeps_the_counterexample_and_the_assertion() -> None:
    message = (
        ">       assert add(a, b) == add(b, a)\nE       assert -1 == 1\n"
        "E        +  where -1 = add(0, 1)\nE       Failing test case: test_add(\n"
        "E           a=0,\nE           b=1,\nE       )\n"
    )
    assert answers_run.summary(message) == "counterexample: test_add(a=0, b=1) | assert -1 == 1"


def test_the_probes_cross_run_json_and_the_json_report() -> None:
    found = run({f"{FLIPPED[0]} {plan.ALONE}": "failed"})
    assert isinstance(found, AnswerProbes)
    crossed = answers_wire.from_dict(json.loads(json.dumps(answers_wire.to_dict(found))))
    assert crossed == found
    assert answers_wire.from_dict(None) == AnswerProbes()
    report = Report("a" * 40, "b" * 40, "c" * 40, True, "git", (), probes=found.records)
    assert load_report(json_report.render(report), "r.json").probes == found.records


def test_what_a_probe_run_was_tampered_with_is_kept_once_and_crosses_run_json() -> None:
    sign = Tamper("gc.get_objects (a heap walk)", "calc/core.py", 3)

    def runner(session: plan.ProbeSession, _timeout: float) -> RunResult:
        runs = [run for runs in session.runs.values() for run in runs]
        return replace(result({n: "passed" for n, _ in runs}), tampering=(sign,))

    found = answers_run.run(PLAN, runner, 100.0, lambda _session, n: n, clock=Clock(1.0))
    assert found.tampering == (sign,) and not found.failures
    crossed = answers_wire.from_dict(json.loads(json.dumps(answers_wire.to_dict(found))))
    assert crossed == found


def test_fixture_tests_are_candidates_whatever_their_duration_and_sampled_to_the_budget() -> None:
    source = "".join(f"def test_{n}():\n    read('g.txt')\n\n\n" for n in ("slow", "fast", "more"))
    passed = {"t.py::test_slow": 5.0, "t.py::test_fast": 0.5, "t.py::test_more": 0.7}
    chosen = candidates(passed, {"t.py": source}, ["d/g.txt"], ["t.py::test_slow"])
    assert [c.nodeid for c in chosen] == ["t.py::test_slow", "t.py::test_fast", "t.py::test_more"]
    samples = set()
    for seed in range(20):
        kept, left = within_budget(chosen, passed, ["t.py::test_slow"], 0.8, random.Random(seed))
        assert kept[0].nodeid == "t.py::test_slow" and len(kept) == 2 and len(left) == 1
        samples.add(kept[1].nodeid)
    assert samples == {"t.py::test_fast", "t.py::test_more"}  # not always the same one
    kept, left = within_budget(chosen, passed, (), 10.0, random.Random(0))
    assert len(kept) == 3 and left == []


def test_a_comparison_method_main_already_has_is_told_from_a_new_one() -> None:
    main = "class Version(str):\n    def __eq__(self, other):\n        return True\n"
    patched = main + "\n\ndef parse(text):\n    return Version(text)\n"
    changed = main.replace("return True", "return str(self) == other")
    assert method_source(main, "calc.v.Version", "__eq__") == method_source(
        patched, "calc.v.Version", "__eq__"
    )
    assert method_source(main, "calc.v.Version", "__eq__") != method_source(
        changed, "calc.v.Version", "__eq__"
    )
    assert method_source(main, "calc.v.Missing", "__eq__") is None


def test_a_method_is_parsed_once_for_every_lie_that_names_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A parametrized test's lies all name the same method (packaging: 200 lies, one
    `SpecifierSet.__eq__`): the file is parsed once, not twice a lie."""
    parsed: list[str] = []
    real = sourcesize.parse

    def counted(text: str) -> ast.Module | None:
        parsed.append(text)
        return real(text)

    monkeypatch.setattr(sourcesize, "parse", counted)
    source = "class Once(str):\n    def __eq__(self, other):\n        return True\n"
    dumps = {method_source(source, "calc.once.Once", "__eq__") for _ in range(200)}
    assert len(dumps) == 1 and None not in dumps
    assert len(parsed) == 1


class _Facts:
    """The git facts the planes step's probe findings read: the author and the plane map."""

    author = "agent[bot]"
    plane_map = PlaneMap(config_load.parse(CONFIG, "planegate.yml"))


def test_a_flipped_test_the_budget_left_unprobed_is_pg124() -> None:
    found = run({}, budget=3.0, step=1.0)
    assert isinstance(found, AnswerProbes)
    unprobed = {nodeid for _, nodeid in found.unprobed}
    findings = planes_probes.findings(cast(GitFacts, _Facts()), found)
    pg124 = [f for f in findings if f.rule == "PG124"]
    assert {f.nodeid for f in pg124} == unprobed
    assert all(f.severity is Severity.ERROR and f.owner == "agent[bot]" for f in pg124)
    assert all("the probe budget ran out" in f.message for f in pg124)
