"""Entry point of the child process: read the run's spec from stdin, then run pytest."""

from __future__ import annotations

import json
import os
import sys


def main() -> int:
    spec = json.loads(sys.stdin.readline())
    from planegate.runner.plugin import ChannelPlugin

    plugin = ChannelPlugin(
        spec["fd"], spec["nonce"], frozenset(spec["deselect"]), spec["canary_prefix"]
    )
    rootdir = spec["rootdir"]
    os.chdir(rootdir)
    sys.path.insert(0, rootdir)  # what `python -m pytest` does for the project's own imports
    import pytest

    plugins: list[object] = [plugin]
    if spec.get("probes") is not None:
        from planegate.runner.probes import ProbesPlugin

        plugins.append(ProbesPlugin(spec["probes"]))
    return int(pytest.main(spec["args"], plugins=plugins))
