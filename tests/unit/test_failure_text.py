"""The finding's line for a failing test: pytest's assertion, and a real difference when its
shortening made the two sides print alike."""

from __future__ import annotations

from planegate.steps.failure_text import first_line

SHORTENED = """\
    def test_receipt_two_items():
>       assert render(items) == expected
E       AssertionError: assert 'apple x2  20...xxxxxxxxxxxxx' == 'apple x2  20...xxxxxxxxxxxxx'
E
E         - apple x2  200
E         + apple x2  2000
E         ?              +
E           xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx

tests/test_receipts.py:11: AssertionError
"""

PLAIN = """\
E       AssertionError: assert 'Total 0\\n' == 'TOTAL 0\\n'
E
E         - TOTAL 0
E         + Total 0
"""


def test_sides_that_read_alike_get_their_first_difference() -> None:
    line = first_line(SHORTENED)
    assert line.startswith("AssertionError: assert 'apple x2  20...")
    assert line.endswith("(first difference: left 'apple x2  2000', right 'apple x2  200')")
    assert len(line) <= 200


def test_sides_that_differ_as_printed_are_left_alone() -> None:
    assert first_line(PLAIN) == "AssertionError: assert 'Total 0\\n' == 'TOTAL 0\\n'"


def test_without_an_e_line_the_last_line_stands() -> None:
    assert first_line("Traceback ...\nValueError: boom\n") == "ValueError: boom"
    assert first_line("") == ""


def test_alike_sides_without_a_diff_keep_the_assertion() -> None:
    assert first_line("E   assert 'ab...yz' == 'ab...yz'\n") == "assert 'ab...yz' == 'ab...yz'"


def test_long_sides_are_cut_and_the_line_stays_short() -> None:
    long_left, long_right = "a" * 300 + "1", "a" * 300 + "2"
    message = f"E   assert 'aaa...aaa' == 'aaa...aaa'\nE     - {long_right}\nE     + {long_left}\n"
    line = first_line(message)
    assert "first difference: left 'aaaa" in line and "...'" in line
    assert len(line) <= 200
