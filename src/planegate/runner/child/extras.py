"""The child's own plugins beside the channel (child side): the import record and, when the
spec asks, the repeat plugin and init's item kinds (`runner/child/kinds.py`).

`make_plugins` is called once, after the harness is imported and the tree's package roots are
placed, before pytest runs. Each plugin is built like the channel's (`runner/child/channel.py`): a
module object of plain functions that take what they use as keyword-only defaults (reading
them is audited), and report only when `frames.guard` finds pluggy calling with no production
code on the stack. Their records reach the parent's `RunResult.extra` by kind
(`stream.EXTRA_KINDS`), as do those the spec's child plugins declare (`ChildPlugin.records`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from planegate.runner.child.plugin_api import PluginContext

# the records of these plugins, one of each kind per run (the parent's `runner/stream.py`)
EXTRA_KINDS = frozenset({"imports", "repeat", "kinds", "opens"})  # opens: child/reads.py


def make_plugins(context: PluginContext, spec: Mapping[str, Any]) -> list[object]:
    """The companions the child's `spec` asks for (`repeat`, `kinds`)."""
    repeat, kinds = int(spec.get("repeat") or 1), bool(spec.get("kinds"))
    emit, audit = context.emit, context.audit
    from planegate.runner.child import provenance

    hooks = provenance.hooks(emit, audit, context.tree, context.roots)
    plugins: list[object] = [context.module("imports", hooks)]
    if repeat > 1:
        from planegate.runner.child import repeat as repeat_mod

        plugins.append(context.module("repeat", repeat_mod.hooks(emit, audit, repeat)))
    if kinds:
        from planegate.runner.child import kinds as kinds_mod

        plugins.append(context.module("kinds", kinds_mod.hooks(emit, audit)))
    return plugins
