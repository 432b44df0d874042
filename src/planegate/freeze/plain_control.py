"""Plain pytest in the working tree: the control that tells a test the gate's environment
breaks from a test that is broken.

A test that fails every run of a sweep, and alone, is the base's to fix, unless it passes
under the project's own `python -m pytest` in the working tree: then it depends on what the
gate's environment does not give it (a generated file git does not track, time-zone data, a
variable of the developer's shell), and the sweep proposes an `env` freeze with that evidence.
This runs main's own tests as the person who runs the sweep would, outside the gate's child
(the sweep is run on main, by a maintainer)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

MAX_TESTS = 10  # at most this many: each is a pytest process of its own
TIMEOUT = 600.0
TAIL = 400


@dataclass(frozen=True)
class PlainOutcome:
    """How `command` (run in the working tree) ended for one nodeid: passed or not, and the
    last lines it printed."""

    nodeid: str
    command: tuple[str, ...]
    passed: bool
    output: str


def plain_pytest(
    root: Path, nodeids: Sequence[str], environ: Mapping[str, str] | None = None
) -> dict[str, PlainOutcome]:
    """Each nodeid alone under `python -m pytest` in `root`, with the caller's environment
    (pytest's own variables left out, as a fresh shell would start)."""
    env = {k: v for k, v in (environ or os.environ).items() if not k.startswith("PYTEST_")}
    found: dict[str, PlainOutcome] = {}
    for nodeid in list(nodeids)[:MAX_TESTS]:
        command = (sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", nodeid)
        try:
            done = subprocess.run(
                command,
                cwd=root,
                env=env,
                capture_output=True,
                text=True,
                timeout=TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired:
            found[nodeid] = PlainOutcome(nodeid, command, False, "timed out")
            continue
        text = (done.stdout + done.stderr).strip()
        found[nodeid] = PlainOutcome(nodeid, command, done.returncode == 0, text[-TAIL:])
    return found
