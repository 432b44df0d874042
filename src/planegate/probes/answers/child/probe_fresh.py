"""Fresh inputs for property tests: `--probe-fresh-seed S --probe-fresh-factor K`.

A pytest plugin module for the answer probes. Every selected `@given` test runs with seed S
(whatever its profile's `derandomize` or the session's `--hypothesis-seed` say) and K times
its example budget, with no example database (nothing replays what the scoring run saw) and
no deadline. A fix that holds only for the inputs the frozen seed generates fails here, and
Hypothesis prints the counterexample.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pytest

from planegate.probes.answers.child.options import FRESH_FACTOR as FACTOR
from planegate.probes.answers.child.options import FRESH_SEED as SEED

if TYPE_CHECKING:
    from planegate.runner.child.plugin_api import PluginContext


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(SEED, type=int, default=None, help="run @given tests with this seed")
    parser.addoption(FACTOR, type=int, default=5, help="... and this many times their budget")


def given_function(obj: Any) -> Any | None:
    """The `@given`-wrapped function behind a test object (a bound method's function)."""
    target = getattr(obj, "__func__", obj)
    return target if getattr(target, "is_hypothesis_test", False) else None


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    seed = config.getoption(SEED)
    if seed is None:
        return
    factor = max(1, int(config.getoption(FACTOR)))
    for item in items:
        target = given_function(getattr(item, "obj", None))
        if target is not None:
            refresh(target, int(seed), factor)


def refresh(target: Any, seed: int, factor: int) -> None:
    """Give a `@given` function a new seed and `factor` times its example budget."""
    from hypothesis import Phase, settings

    current = target._hypothesis_internal_use_settings
    phases = tuple(p for p in Phase if p.name != "explain")
    target._hypothesis_internal_use_settings = settings(
        current,
        max_examples=max(1, current.max_examples) * factor,
        database=None,
        deadline=None,
        derandomize=False,
        phases=phases,
    )
    target._hypothesis_internal_use_seed = seed


def plugin(_options: Mapping[str, Any], context: PluginContext, /) -> object:
    """This module's hooks as the child registers them (`runner/child/plugin_api.py`)."""
    return context.hooks_of(sys.modules[__name__])
