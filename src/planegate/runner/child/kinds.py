"""What each collected item is, for `planegate init` only: a Hypothesis test, or not a Python
test function at all (a doctest, a plugin's item).

init classifies a nodeid from its file's source; an item the source does not define (an
inherited or generated test) is classified by its collected object, which only the child can
read. When the spec asks (`RunSpec.kinds`; the gate's runs never do), the child sends one
`kinds` record with the items as collected, before anything is deselected.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from planegate.runner.child import frames
from planegate.runner.child.channel import hypothesis_budget

if TYPE_CHECKING:
    import pytest

KIND = "kinds"


def hooks(emit: frames.Emit, audit: SimpleNamespace) -> dict[str, Callable[..., Any]]:
    import pytest

    @pytest.hookimpl(hookwrapper=True)
    def pytest_collection_modifyitems(
        items: list[pytest.Item],
        *,
        _e: frames.Emit = emit,
        _a: Any = audit,
        _g: Any = frames.guard,
        _kinds: Any = item_kinds,
        _f: Any = pytest.Function,
    ) -> Generator[None, None, None]:
        if _g(_a, "pytest_collection_modifyitems"):
            _e(KIND, _kinds(items, _f))
        yield

    return {"pytest_collection_modifyitems": pytest_collection_modifyitems}


def item_kinds(items: list[pytest.Item], function: type) -> dict[str, list[str]]:
    """The Hypothesis tests among the items, and the items that are not test functions."""
    hypothesis, plain = [], []
    for item in items:
        try:
            if hypothesis_budget(getattr(item, "obj", None)) is not None:
                hypothesis.append(item.nodeid)
        except Exception:  # the project's own descriptors may raise; the source decides then
            pass
        if not isinstance(item, function):
            plain.append(item.nodeid)
    return {"hypothesis": hypothesis, "plain": plain}


def kinds_of(extra: Mapping[str, Any]) -> tuple[frozenset[str], frozenset[str]]:
    """(Hypothesis tests, items that are not test functions) from a run's `kinds` record;
    empty when none came or it is not of that shape."""
    record = extra.get(KIND)
    if not isinstance(record, Mapping):
        return frozenset(), frozenset()
    hypothesis, plain = record.get("hypothesis"), record.get("plain")
    if not isinstance(hypothesis, list) or not isinstance(plain, list):
        return frozenset(), frozenset()
    return frozenset(map(str, hypothesis)), frozenset(map(str, plain))
