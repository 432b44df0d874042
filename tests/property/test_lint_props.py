"""Properties of lint (frozen seed)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from helpers.lint_cases import (
    HEADER,
    STATEMENTS,
)
from planegate.analysis.lint import scan


@given(st.lists(STATEMENTS, min_size=1, max_size=12))
def test_generated_honest_property_modules_give_no_finding(body: list[str]) -> None:
    source = HEADER + "".join(f"    {line}\n" for line in body)
    compile(source, "generated.py", "exec")
    assert scan(source) == []


@given(st.lists(STATEMENTS, min_size=1, max_size=8), st.integers(0, 8))
def test_one_process_wide_call_in_an_honest_module_is_one_finding(
    body: list[str], where: int
) -> None:
    body.insert(min(where, len(body)), "noise = random.randint(0, 9)")
    source = HEADER + "".join(f"    {line}\n" for line in body)
    assert [v.rule for v in scan(source)] == ["PG582"]
