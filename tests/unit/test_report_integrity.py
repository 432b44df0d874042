"""Reports by construction, in this process: the dict version tags that see a write undone
before any checkpoint, the outcome a call's exception gives, and the sampled canaries' choice
of tests from every kind."""

from __future__ import annotations

import unittest
from types import ModuleType, SimpleNamespace
from typing import Any

from _pytest import outcomes as pytest_outcomes

from planegate import collectable
from planegate.runner.child import outcomes, versions


def audit_state() -> tuple[SimpleNamespace, list[dict[str, Any]]]:
    sent: list[dict[str, Any]] = []
    state = SimpleNamespace(
        prefixes=("/tree/",),
        cache={},
        trusted={"/tree/tests/test_core.py"},
        sent=set(),
        emit=lambda kind, fields: sent.append({"kind": kind, **fields}),
    )
    return state, sent


def module(name: str, source: str, filename: str) -> ModuleType:
    made = ModuleType(name)
    exec(compile(source, filename, "exec"), made.__dict__)
    return made


def test_the_version_tag_is_read_here() -> None:
    # CPython 3.6 to 3.13 keep it; the suite runs on one of them
    assert versions.make(audit_state()[0]).usable


def test_a_binding_rebound_and_restored_between_two_checks_is_named() -> None:
    state, sent = audit_state()
    watch = versions.make(state)
    harness = module("harness", "def approx(x):\n    return x\n", "/site/harness.py")
    versions.watch_modules(watch, {"harness": harness}, False)
    versions.check(watch, "at first")
    assert sent == []
    space = vars(harness)
    real = space["approx"]
    space["approx"] = lambda x: x  # swapped, then put back: no state differs
    space["approx"] = real
    versions.check(watch, "during the call of t")
    assert [s["event"] for s in sent] == [
        "harness changed: harness rebound and restored during the call of t"
    ]
    versions.check(watch, "later")  # reported once
    assert len(sent) == 1


def test_what_a_broken_run_rebound_and_restored_is_settled_and_what_came_before_is_not() -> None:
    state, sent = audit_state()
    watch = versions.make(state)
    tests = {
        name: module(name, "from datetime import datetime\n", f"/tree/tests/{name}.py")
        for name in ("test_earlier", "test_during", "test_kept")
    }
    harness = module("harness", "from datetime import datetime\n", "/site/harness.py")
    versions.watch_modules(watch, tests, True)
    versions.watch_modules(watch, {"harness": harness}, False)
    clock = vars(harness)["datetime"]

    def swapped(space: dict[str, Any]) -> None:
        space["datetime"] = object()  # freezegun's start, then its stop
        space["datetime"] = clock

    swapped(vars(tests["test_earlier"]))  # the scoring run's own, not yet checked
    tags = versions.tags(watch)
    swapped(vars(tests["test_during"]))  # the broken run's: settled
    swapped(vars(harness))  # the harness is never settled: its checks run inside the run too
    vars(tests["test_kept"])["datetime"] = object()  # a change the broken run leaves behind
    versions.settle(watch, tags)
    vars(tests["test_kept"])["datetime"] = clock  # undone later, by the scoring run
    versions.check_all(watch, "at the end of the session")
    assert sorted(s["event"] for s in sent) == [
        f"harness changed: {name} rebound and restored at the end of the session"
        for name in ("harness", "test_earlier", "test_kept")
    ]


def test_the_harness_s_own_data_changes_freely_and_a_quiet_namespace_costs_one_read() -> None:
    state, sent = audit_state()
    watch = versions.make(state)
    harness = module("harness", "cache = None\n", "/site/harness.py")
    versions.watch_modules(watch, {"harness": harness}, False)
    vars(harness)["cache"] = {"seen": 1}  # a new object: the harness's own state, not a swap
    versions.check(watch, "after")
    versions.check(watch, "again")
    assert sent == []


def test_a_test_modules_namespace_is_held_to_what_was_collected() -> None:
    state, sent = audit_state()
    watch = versions.make(state)
    tests = module(
        "test_core",
        "EXPECTED = 5\nseen = 0\n\n\ndef test_x():\n    global seen\n    seen += 1\n",
        "/tree/tests/test_core.py",
    )
    prod = module("core", "def sum(values):\n    return 0\n", "/tree/calc/core.py")
    versions.watch_modules(watch, {"test_core": tests}, True)
    versions.assign(watch, {"t": vars(tests)})
    vars(tests)["sum"] = vars(prod)[
        "sum"
    ]  # production code gives the test module a name of its own
    vars(tests)["EXPECTED"] = 6  # and changes its expected value
    versions.check(watch, "during another test")  # only the harness's namespaces
    assert sent == []
    versions.check(watch, "during the call of t", "t")  # and t's own module
    events = sorted(s["event"] for s in sent)
    assert events == [
        "harness changed: test_core.EXPECTED replaced during the call of t",
        "harness changed: test_core.sum added during the call of t",
    ]
    assert {s["path"] for s in sent} == {"", "calc/core.py"}
    # the tests' own code rebinding their own names is theirs
    sent.clear()
    vars(tests)["helper"] = vars(tests)["test_x"]
    vars(tests)["test_x"]()  # it says `global seen`
    versions.check_all(watch, "at the end")
    assert sent == []


def test_a_call_that_raised_fails_whatever_the_report_says() -> None:
    skips = (pytest_outcomes.Skipped, unittest.SkipTest)
    assert outcomes._failing(AssertionError("x"), skips) == "AssertionError"
    assert outcomes._failing(None, skips) is None
    assert outcomes._failing(unittest.SkipTest("no"), skips) is None
    assert outcomes._failing(pytest_outcomes.Skipped("later"), skips) is None
    passed = SimpleNamespace(outcome="passed")
    xfailed = SimpleNamespace(outcome="skipped", wasxfail="reason")
    assert outcomes._claims_success(passed)  # type: ignore[arg-type]
    assert outcomes._claims_success(SimpleNamespace(outcome="skipped"))  # type: ignore[arg-type]
    assert not outcomes._claims_success(xfailed)  # type: ignore[arg-type]
    assert not outcomes._claims_success(SimpleNamespace(outcome="failed"))  # type: ignore[arg-type]


KINDS_SOURCE = """
import unittest

import pytest
from hypothesis import given, strategies as st


def test_plain():
    pass


@pytest.mark.parametrize("n", [1, 2])
def test_cases(n):
    pass


@given(st.integers())
def test_property(n):
    pass


class TestThings:
    def test_method(self):
        pass


class AddChecks(unittest.TestCase):
    def test_add(self):
        pass


class TestCaseLike(unittest.TestCase):
    def test_other(self):
        pass


class Helper:
    def test_not_collected(self):
        pass
"""


def test_every_kind_of_test_main_has_can_be_sampled() -> None:
    assert collectable.test_functions(KINDS_SOURCE) == [
        ("test_plain", "function"),
        ("test_cases", "parametrized"),
        ("test_property", "hypothesis"),
        ("TestThings::test_method", "class"),
        ("AddChecks::test_add", "unittest"),
        ("TestCaseLike::test_other", "unittest"),
    ]
