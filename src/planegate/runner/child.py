"""Entry point of the child process: read the run's spec from stdin, then run pytest."""

from __future__ import annotations

import json
import os
import sys


def main() -> int:
    spec = json.loads(sys.stdin.readline())
    if spec.get("nice"):
        os.nice(int(spec["nice"]))
    from planegate.runner.channel import ChannelPlugin

    plugin = ChannelPlugin(
        spec["fd"], spec["nonce"], frozenset(spec["deselect"]), spec["canary_prefix"]
    )
    rootdir = spec["rootdir"]
    os.chdir(rootdir)
    sys.path.insert(0, rootdir)  # what `python -m pytest` does for the project's own imports
    import pytest

    plugins: list[object] = [plugin]
    if spec.get("probes") is not None:
        from planegate.runner.sweep_probes import ProbesPlugin

        plugins.append(ProbesPlugin(spec["probes"]))
    if spec.get("answer_probes"):
        from planegate.runner import probe_fresh, probe_plain, probe_repeat, probe_strict

        plugins += [probe_fresh, probe_plain, probe_repeat, probe_strict]
    _forget_planegate()
    return int(pytest.main(spec["args"], plugins=plugins))


def _forget_planegate() -> None:
    """Drop the gate's own modules once its plugins exist.

    The plugin objects keep what they need; the project under test then imports its own
    `planegate` (when the gated project is planegate itself) from its tree, not the gate's.
    """
    for name in [n for n in sys.modules if n == "planegate" or n.startswith("planegate.")]:
        del sys.modules[name]
