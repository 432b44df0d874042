"""The failing test's line: any text gives one short line, and two different operands that
pytest printed alike are always told apart."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from planegate.steps.failure_text import first_line

printable = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=80)


@given(st.text(max_size=2_000))
def test_any_message_gives_one_short_line(message: str) -> None:
    line = first_line(message)
    assert len(line) <= 200
    assert "\n" not in line


@given(printable, printable.filter(str.strip), printable.filter(str.strip))
def test_operands_printed_alike_are_told_apart(shared: str, left: str, right: str) -> None:
    shown = repr(shared[:10] + "...")
    message = (
        f"E   AssertionError: assert {shown} == {shown}\n"
        f"E     - {shared}{right}\nE     + {shared}{left}\n"
    )
    line = first_line(message)
    assert "first difference: left " in line and len(line) <= 200
    shown_left = ("+ " + shared + left).strip()[2:]  # as a line of pytest's diff reads
    shown_right = ("- " + shared + right).strip()[2:]
    if len(repr(shown_left)) < 55 and len(repr(shown_right)) < 55:
        assert line.endswith(f"left {shown_left!r}, right {shown_right!r})")
