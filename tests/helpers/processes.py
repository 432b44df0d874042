"""What the integration tier asks of a real process."""

from __future__ import annotations

import os


def alive(pid: int) -> bool:
    """Running: not gone, and not a zombie waiting to be reaped."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as handle:
        return handle.read().rsplit(")", 1)[-1].split()[0] != "Z"
