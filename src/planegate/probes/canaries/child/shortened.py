"""A sampled canary's broken run kept short (child side): only whether it failed is read, so
it stops at its first failure and formats none of them as pytest would."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from types import FunctionType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pytest


@contextlib.contextmanager
def plain_tracebacks(item: pytest.Item) -> Iterator[None]:
    """The broken run's failures formatted as Python prints them (`--tb=native`): its reports
    are kept from the channel, only whether one failed is read, and pytest's own formatting
    (each frame's source parsed) would cost more than the run itself in a test with many
    subtests, every one of them failing."""
    option = item.config.option
    before = getattr(option, "tbstyle", "auto")
    option.tbstyle = "native"
    try:
        yield
    finally:
        option.tbstyle = before


@contextlib.contextmanager
def first_subtest_only(item: pytest.Item) -> Iterator[None]:
    """A `unittest.TestCase` test stops at its first failing `subTest` in the broken run, as
    under unittest's `failfast` (pytest's item is the test's result object): whether one
    failed is all the run is asked, and every further failing subtest would cost a report."""
    if getattr(type(item), "failfast", None) is not False:
        yield
        return
    item.failfast = True  # type: ignore[attr-defined]
    try:
        yield
    finally:
        del item.failfast  # type: ignore[attr-defined]


@contextlib.contextmanager
def first_failure_only(item: pytest.Item) -> Iterator[None]:
    """A Hypothesis test stops at its first failing example in the broken run: no shrinking
    (which can take longer than the test) and nothing saved to the example database."""
    test = getattr(item, "obj", None)
    test = getattr(test, "__func__", test)  # a test method: its function holds the settings
    current = getattr(test, "_hypothesis_internal_use_settings", None)
    if current is None or type(test) is not FunctionType or "hypothesis" not in sys.modules:
        yield
        return
    from hypothesis import Phase, settings

    quick = settings(current, phases=(Phase.explicit, Phase.generate), database=None)
    test._hypothesis_internal_use_settings = quick  # type: ignore[attr-defined]
    try:
        yield
    finally:
        test._hypothesis_internal_use_settings = current  # type: ignore[attr-defined]
