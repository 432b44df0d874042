"""Shared by the runner_units tests."""

from __future__ import annotations

from hypothesis import Phase, given, settings
from hypothesis import strategies as st


@settings(max_examples=7)
@given(st.integers())
def _seven(x: int) -> None:
    assert x == x


@settings(phases=[Phase.explicit])
@given(st.integers())
def _no_generation(x: int) -> None:
    assert x == x
