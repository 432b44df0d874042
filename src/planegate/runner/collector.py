"""A planegate process's set-up without the cyclic garbage collector.

Until its first test child has its spec, a `planegate` process that starts one
(`cli.entry`: the gate, the digest, init, sweep, the demo, the action's run phase) imports itself
(some 400 modules, a hundred dataclasses) and reads git: objects that live on, which each
collection of the young generations walks again (15-20 ms of a gate's set-up of about
0.35 s, measured in docs/performance.md). Only planegate's own code runs in this process, so
no test can tell. When the first spec is sent, what the set-up made is frozen (`gc.freeze`:
no collection walks it again; the few cycles it left are kept, not freed) and the collector
is back on: from then on the process reads the run's records, and their cycles are freed.
A command that starts no test child (the action's judge, `lock`, `ledger`, ...) never turns
it off.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

_PAUSED: list[bool] = []


@contextlib.contextmanager
def off_until_first_spec() -> Iterator[None]:
    """The collector off while the block runs, until `resume`; left alone when it is off
    already (the caller's own choice stands)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    _PAUSED.append(True)
    try:
        yield
    finally:
        if _PAUSED:
            _PAUSED.clear()
            gc.enable()


def resume() -> None:
    """The set-up's objects frozen and the collector back on, if `off_until_first_spec`
    turned it off; nothing otherwise (a process run in-process by a caller, as the tests do)."""
    if _PAUSED:
        _PAUSED.clear()
        gc.freeze()
        gc.enable()
