"""pytest's own words when a run stops: its ERROR lines, an internal error's exception, else
the last line."""

from __future__ import annotations

from planegate.runner.startup import pytest_message

INTERNAL = """\
INTERNALERROR> Traceback (most recent call last):
INTERNALERROR>   File "_pytest/mark/structures.py", line 652, in __getattr__
INTERNALERROR>     warnings.warn(
INTERNALERROR> pytest.PytestUnknownMarkWarning: Unknown pytest.mark.no_cover - is this a typo?

no tests ran in 16.35s
"""


def test_an_internal_error_is_told_by_its_exception() -> None:
    assert pytest_message(INTERNAL) == (
        "INTERNALERROR: pytest.PytestUnknownMarkWarning: Unknown pytest.mark.no_cover - is this "
        "a typo?"
    )


def test_error_lines_come_first_and_the_last_line_stands_alone() -> None:
    assert pytest_message("x\nERROR: file not found: tests/\n\n") == "ERROR: file not found: tests/"
    assert pytest_message("....\n2 passed in 0.1s\n") == "2 passed in 0.1s"
    assert pytest_message("") == ""
