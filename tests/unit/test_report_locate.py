"""Failing tests are annotated at their failing line: pytest's failure text, else the def."""

from __future__ import annotations

import dataclasses

from helpers.github_support import finding, report_of
from planegate.findings import Step
from planegate.report.locate import def_line, failure_line, place_failures

LONGREPR = """\
def test_total():
        items = [1, 2]
>       assert helper(items) == 4

tests/test_money.py:12:
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _

    def helper(items):
>       assert sum(items) == 4
E       assert 3 == 4

tests/helpers.py:3: AssertionError"""

SOURCE = """\
import pytest


class TestCart:
    @pytest.mark.parametrize("n", [1, 2])
    def test_add(self, n):
        assert n


async def test_async():
    pass
"""


def test_the_last_entry_in_the_test_file_is_the_failing_line() -> None:
    assert failure_line(LONGREPR, "tests/test_money.py") == 12
    assert failure_line(LONGREPR, "tests/helpers.py") == 3
    assert failure_line(LONGREPR, "tests/test_other.py") is None
    assert failure_line("tests/test_money.py.bak:9: x", "tests/test_money.py") is None


def test_the_def_line_of_a_method_a_parametrized_case_and_an_async_test() -> None:
    assert def_line(SOURCE, "tests/test_cart.py::TestCart::test_add[2]") == 6
    assert def_line(SOURCE, "tests/test_cart.py::test_async") == 10
    assert def_line(SOURCE, "tests/test_cart.py::test_gone") is None
    assert def_line("def broken(:\n", "tests/test_cart.py::broken") is None


def test_place_failures_uses_the_failure_text_then_the_def_line() -> None:
    base = finding(rule="PG101", step=Step.PLANES, path="tests/test_money.py")
    failed = dataclasses.replace(base, line=None, nodeid="tests/test_money.py::test_total")
    skipped = dataclasses.replace(
        failed, rule="PG102", path="tests/test_cart.py", nodeid="tests/test_cart.py::test_async"
    )
    other = finding(7)
    report = report_of([failed, skipped, other])
    texts = {"tests/test_money.py::test_total": LONGREPR}

    placed = place_failures(report, lambda n: texts.get(n, ""), lambda _path: SOURCE.encode())

    lines = {f.rule: f.line for f in placed.findings}
    assert lines == {"PG101": 12, "PG102": 10, "PG301": 7}
