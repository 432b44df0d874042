"""What the integration tier asks of a real process."""

from __future__ import annotations

import os
from pathlib import Path


def alive(pid: int) -> bool:
    """Running: not gone, and not a zombie waiting to be reaped."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as handle:
        return handle.read().rsplit(")", 1)[-1].split()[0] != "Z"


def children(command: str) -> set[int]:
    """This process's children running `command` (its first argument, as given)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat_line = (entry / "stat").read_text()
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        parent = int(stat_line.rsplit(")", 1)[-1].split()[1])
        if parent == os.getpid() and argv[0] == os.fsencode(command):
            found.add(int(entry.name))
    return found
