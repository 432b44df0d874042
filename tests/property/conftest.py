"""The `quick` Hypothesis profile (`make quick`) caps every property test's examples, the
budgets a test states for itself included; the default profile keeps every stated budget."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import settings

QUICK = "quick"
HERE = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if settings.get_current_profile_name() != QUICK:
        return
    cap = settings.get_profile(QUICK).max_examples
    for item in (item for item in items if item.path.is_relative_to(HERE)):
        test = getattr(item, "obj", None)
        stated = getattr(test, "_hypothesis_internal_use_settings", None)
        if isinstance(stated, settings) and stated.max_examples > cap:
            # Hypothesis reads a test's settings from this attribute on every call
            test._hypothesis_internal_use_settings = settings(stated, max_examples=cap)  # type: ignore[union-attr]
