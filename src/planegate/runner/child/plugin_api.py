"""The child plugins a run spec names (child side): each is a module imported by name, whose
entry function `plugin` (`PluginEntry`) gets the options the parent wrote as JSON and what the
child offers it (`PluginContext`), and returns the pluggy plugin object handed to pytest.main().

The runner knows no plugin of a capability: the parent's `session.ChildPlugin` values (module
name, options, place) come from the capabilities (the probes' registry, the sweep), and
tests/test_child_fence.py follows each module they may send. A plugin is placed before the
allowed plugins (`before_allowed`: pluggy calls it after them) or after them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType, SimpleNamespace
from typing import Any, Protocol

from planegate.runner.child import frames

ENTRY = "plugin"  # the entry function every child plugin module defines


class PluginContext:
    """What a child plugin may use: the channel's writer, the audit hook's state, the tree and
    its package roots as placed on sys.path."""

    def __init__(
        self, emit: frames.Emit, audit: SimpleNamespace, tree: str, roots: Sequence[str]
    ) -> None:
        self.emit, self.audit, self.tree, self.roots = emit, audit, tree, roots

    def module(self, name: str, hooks: Mapping[str, Callable[..., Any]]) -> ModuleType:
        """A plugin object of plain hook functions, each one the gate's own to the audit hook:
        a module object (hashable, as pluggy needs) in no sys.modules."""
        plugin = ModuleType(name)
        for hook_name, function in hooks.items():
            self.audit.ours.add(function)
            setattr(plugin, hook_name, function)
        return plugin

    def hooks_of(self, module: ModuleType) -> ModuleType:
        """A plugin module's `pytest_*` functions, registered like the channel's and named
        plainly (the registered name of a module is its `__name__`)."""
        hooks = {
            name: value
            for name, value in vars(module).items()
            if name.startswith("pytest_") and callable(value)
        }
        return self.module(module.__name__.rsplit(".", 1)[-1], hooks)


class PluginEntry(Protocol):
    """The entry function of a child plugin module (its name is `ENTRY`): the options the
    parent wrote, what the child offers, and back the plugin object pytest.main() is handed."""

    def __call__(self, options: Mapping[str, Any], context: PluginContext, /) -> object: ...


def load(
    wanted: Sequence[Mapping[str, Any]], context: PluginContext
) -> tuple[list[object], list[object]]:
    """The spec's child plugins, in its order, each built by its module's entry function:
    those placed before the allowed plugins, and those after them."""
    before: list[object] = []
    after: list[object] = []
    for item in wanted:
        entry: PluginEntry = getattr(importlib.import_module(str(item["module"])), ENTRY)
        built = entry(dict(item.get("options") or {}), context)
        (before if item.get("before_allowed") else after).append(built)
    return before, after
