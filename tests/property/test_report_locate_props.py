"""Properties of where a failing test's annotation goes: pytest's failure text."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from planegate.report.locate import failure_line


@given(st.text(), st.integers(min_value=1, max_value=10_000))
def test_failure_line_finds_a_line_appended_to_any_text(prefix: str, line: int) -> None:
    text = f"{prefix}\ntests/test_x.py:{line}: AssertionError"
    assert failure_line(text, "tests/test_x.py") == line
