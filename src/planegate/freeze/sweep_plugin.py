"""The sweep probes as the runner loads them in the child: the `ChildPlugin` a session is
handed (the module `freeze/child/sweep_probes.py`, its options `ProbeOptions.as_dict()`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from planegate.runner.session import ChildPlugin

MODULE = "planegate.freeze.child.sweep_probes"
CHILD_MODULES = (MODULE,)  # every child module the sweep may send (tests/test_child_fence.py)


def probes(options: Mapping[str, Any]) -> tuple[ChildPlugin, ...]:
    """A session's `child_plugins`: the sweep probes with `options`."""
    return (ChildPlugin(MODULE, dict(options)),)


def only(nodeids: Iterable[str]) -> tuple[ChildPlugin, ...]:
    """A session's `child_plugins` that run only `nodeids` (the rest deselected), as collected."""
    return probes({"order": "collected", "only": sorted(nodeids)})
