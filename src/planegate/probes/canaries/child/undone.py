"""What a sampled canary's broken run leaves changed of the interpreter the session runs in,
put back (child side).

The broken run makes main's test fail in the middle, where the test's own helpers may never
have expected to stop: colorama's `osname("nt")` sets `os.name` and puts it back only when its
block ends without an error, so a failure inside it left the session on "Windows", where
pathlib makes a `WindowsPath` it cannot use: pytest ended the session (the run's closing
record never came: PG103 on an honest patch, one gate in five on colorama). Plain pytest
never runs a broken function, so the session must not inherit what one did to the
interpreter's identity (`os.name`, `sys.platform`) or the working directory: each is taken
before the run and put back before each of its reports is built and when its teardown
starts (`restore`, from the plugin's hooks, so pytest's own reporting and teardown of the
run work as they would: a report's location is a pathlib path) and when it ends. The standard
streams and the environment are pytest's to manage during the run (its capture,
`PYTEST_CURRENT_TEST`) and are left to it.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any


def taken() -> dict[str, Any]:
    """The state a broken run may leave changed, as it is now."""
    return {"name": os.name, "platform": sys.platform, "cwd": _cwd()}


def restore(state: dict[str, Any]) -> None:
    """Put back what changed since `taken` (nothing is written where nothing changed)."""
    if os.name != state["name"]:
        os.name = state["name"]
    if sys.platform != state["platform"]:
        sys.platform = state["platform"]
    if state["cwd"] is not None and _cwd() != state["cwd"]:
        with contextlib.suppress(OSError):
            os.chdir(state["cwd"])


@contextlib.contextmanager
def process_state(holder: Any) -> Iterator[None]:
    """The state taken into `holder.undo` for the run (the teardown hook restores it), and
    put back when the run ends."""
    holder.undo = taken()
    try:
        yield
    finally:
        restore(holder.undo)
        holder.undo = None


def _cwd() -> str | None:
    try:
        return os.getcwd()
    except OSError:
        return None
