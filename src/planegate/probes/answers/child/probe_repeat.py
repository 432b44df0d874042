"""Run selected tests more than once in one process: `--probe-repeat-each N`,
`--probe-again NODEID`.

A pytest plugin module for the answer probes (and for their repro commands:
`python -m pytest -p planegate.probes.answers.child.probe_repeat --probe-repeat-each 2 <nodeid>`).
Listing a nodeid twice on pytest's command line runs it once, so the plugin adds copies of
items, each with fresh fixtures and a nodeid of its own (`<nodeid>@2`, `<nodeid>@3`, ...),
so each run reports on its own:

- `--probe-repeat-each N`: N-1 copies of every selected item, right after it;
- `--probe-again NODEID` (repeatable): one copy of that item at the end of the session, after
  every other test.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pytest

from planegate.probes.answers.child.options import REPEAT_AGAIN as AGAIN
from planegate.probes.answers.child.options import REPEAT_EACH as OPTION
from planegate.probes.answers.child.options import copy_nodeid

if TYPE_CHECKING:
    from planegate.runner.child.plugin_api import PluginContext

COPY = pytest.StashKey[bool]()  # set on the copies: a probe can tell them from the original


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(OPTION, type=int, default=1, help="run each selected test N times")
    parser.addoption(AGAIN, action="append", default=[], help="run this test again, last")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    runs = int(config.getoption(OPTION))
    again = list(config.getoption(AGAIN) or [])
    if runs <= 1 and not again:
        return
    repeated: list[pytest.Item] = []
    for item in items:
        repeated.append(item)
        repeated += [_copy(item, run) for run in range(2, runs + 1)]
    by_id = {item.nodeid: item for item in items}
    repeated += [_copy(by_id[nodeid], runs + 1) for nodeid in again if nodeid in by_id]
    items[:] = repeated


def _copy(item: pytest.Item, run: int) -> pytest.Item:
    if not isinstance(item, pytest.Function):
        return item  # only functions can be rebuilt; anything else runs once more as is
    copy = type(item).from_parent(
        item.parent,
        name=item.name,
        callspec=getattr(item, "callspec", None),
        fixtureinfo=item._fixtureinfo,
        originalname=item.originalname,
    )
    _rename(copy, copy_nodeid(item.nodeid, run))
    copy.stash[COPY] = True
    return copy


def _rename(item: Any, nodeid: str) -> None:
    """pytest 9 keeps a structured id (`_id`), older versions a string (`_nodeid`)."""
    if hasattr(item, "_id"):
        from _pytest.nodeid import coerce_node_id

        item._id = coerce_node_id(nodeid)
    else:
        item._nodeid = nodeid


def plugin(_options: Mapping[str, Any], context: PluginContext, /) -> object:
    """This module's hooks as the child registers them (`runner/child/plugin_api.py`)."""
    return context.hooks_of(sys.modules[__name__])
