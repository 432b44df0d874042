"""The child's own plugins beside the channel, set up from the run's spec (child side).

`child_plugins` is called once, after the harness is imported and before pytest runs: it
places the tree's package roots on sys.path (after the standard library, before
site-packages) and returns the import recorder and, when the spec asks, the repeat plugin.
Their records reach the parent's `RunResult.extra` by kind (`EXTRA_KINDS`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any

EXTRA_KINDS = frozenset({"imports", "repeat"})


def child_plugins(send: Callable[..., None], spec: Mapping[str, Any]) -> list[object]:
    from planegate.runner import provenance, roots

    tree = str(spec["rootdir"])
    package_roots = [str(root) for root in spec.get("roots") or [tree]]
    sys.path[:] = roots.placed(sys.path, package_roots, roots.stdlib_paths())
    plugins: list[object] = [provenance.ImportRecords(send, tree, package_roots)]
    if int(spec.get("repeat") or 1) > 1:
        from planegate.runner.repeat import RepeatPlugin

        plugins.append(RepeatPlugin(send, int(spec["repeat"])))
    return plugins
