"""The child's own plugins beside the channel (child side): the import record and, when the
spec asks, the repeat plugin, init's item kinds (`runner/child/kinds.py`) and the sampled canaries
(`probes/canaries/child/sampled.py`).

`make_plugins` is called once, after the harness is imported and the tree's package roots are
placed, before pytest runs. Each plugin is built like the channel's (`runner/child/channel.py`): a
module object of plain functions that take what they use as keyword-only defaults (reading
them is audited), and report only when `frames.guard` finds pluggy calling with no production
code on the stack. Their records reach the parent's `RunResult.extra` by kind
(`stream.EXTRA_KINDS`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import ModuleType, SimpleNamespace
from typing import Any

from planegate.runner.child import frames

# the records of these plugins, one of each kind per run (the parent's `runner/stream.py`)
EXTRA_KINDS = frozenset({"imports", "repeat", "kinds", "sampled"})


def make_plugins(
    emit: frames.Emit,
    audit: SimpleNamespace,
    tree: str,
    roots: Sequence[str],
    spec: Mapping[str, Any],
) -> list[object]:
    """The companions the child's `spec` asks for (`repeat`, `kinds`, `sampled`)."""
    repeat, kinds = int(spec.get("repeat") or 1), bool(spec.get("kinds"))
    sampled = spec.get("sampled")
    from planegate.runner.child import provenance

    plugins: list[object] = [_module("imports", provenance.hooks(emit, audit, tree, roots), audit)]
    if repeat > 1:
        from planegate.runner.child import repeat as repeat_mod

        plugins.append(_module("repeat", repeat_mod.hooks(emit, audit, repeat), audit))
    if kinds:
        from planegate.runner.child import kinds as kinds_mod

        plugins.append(_module("kinds", kinds_mod.hooks(emit, audit), audit))
    if sampled is not None:
        from planegate.probes.canaries.child import sampled as sampled_mod

        plugins.append(_module("sampled", sampled_mod.hooks(emit, audit, sampled), audit))
    return plugins


def _module(name: str, hooks: dict[str, Callable[..., Any]], audit: SimpleNamespace) -> ModuleType:
    plugin = ModuleType(name)  # hashable, as pluggy needs; in no sys.modules
    for hook_name, function in hooks.items():
        audit.ours.add(function)
        setattr(plugin, hook_name, function)
    return plugin
