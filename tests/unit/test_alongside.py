"""Work alongside the test child: it waits for the next child's start, or for whoever asks
for its result first, and hands back its value or its error."""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass

import pytest

from planegate.errors import ConfigError
from planegate.gate.alongside import Alongside
from planegate.runner import contain


@dataclass(frozen=True)
class _Started:
    """What `contain.launch` registers of a child: its pid (no process is started here)."""

    pid: int


def test_the_work_waits_for_the_next_child_and_runs_while_it_runs() -> None:
    began = threading.Event()

    def work() -> str:
        began.set()
        return "done"

    beside = Alongside(work)
    assert not began.wait(0.2)  # no child started since: the gate is still preparing it
    child = contain.launch(lambda: _Started(-424242))  # type: ignore[arg-type,return-value]
    try:
        assert began.wait(5)  # the child's start lets it go, with nobody asking yet
        assert beside.result() == "done"
    finally:
        contain._ACTIVE.discard(child.pid)
    assert beside.seconds >= 0.0


def test_unarmed_it_waits_for_a_child_started_after_it_is_armed() -> None:
    began = threading.Event()

    def work() -> int:
        began.set()
        return 3

    beside = Alongside(work, armed=False)
    early = contain.launch(lambda: _Started(-424243))  # type: ignore[arg-type,return-value]
    try:
        assert not began.wait(0.2)  # another thread's child, before the head's is prepared
        beside.arm()
        assert not began.wait(0.2)
        head = contain.launch(lambda: _Started(-424244))  # type: ignore[arg-type,return-value]
        contain._ACTIVE.discard(head.pid)
        assert began.wait(5)
        assert beside.result() == 3
    finally:
        contain._ACTIVE.discard(early.pid)


def test_asked_before_any_child_started_the_work_runs_at_once() -> None:
    sys.modules.pop("colorsys", None)
    beside = Alongside(lambda: 7, ["colorsys"])
    assert beside.result() == 7
    assert "colorsys" in sys.modules  # imported on its thread first


def test_the_work_s_error_is_raised_to_whoever_asks() -> None:
    def work() -> int:
        raise ConfigError("broken", "fix it")

    beside = Alongside(work)
    with pytest.raises(ConfigError, match="broken"):
        beside.result()
