"""A planegate process's set-up without the cyclic garbage collector (runner/collector.py):
off in the block, back on (what the set-up made frozen) when the first spec is sent or at the
block's end, and a caller's own choice stands."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

import pytest

from planegate import cli
from planegate.runner import collector


@contextlib.contextmanager
def collector_on() -> Iterator[None]:
    """The test process's collector on, and as it was after the test: on, nothing frozen."""
    gc.enable()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.enable()


def test_the_block_turns_it_off_and_the_first_spec_back_on() -> None:
    with collector_on():
        with collector.off_until_first_spec():
            assert not gc.isenabled()
            collector.resume()
            assert gc.isenabled() and gc.get_freeze_count() > 0  # the set-up's objects frozen
            gc.disable()  # someone else's choice after the spec: the block's end leaves it
        assert not gc.isenabled()


def test_a_block_that_sends_no_spec_turns_it_back_on_even_when_it_fails() -> None:
    with collector_on():
        with pytest.raises(RuntimeError), collector.off_until_first_spec():
            assert not gc.isenabled()
            raise RuntimeError("the set-up failed")
        assert gc.isenabled() and gc.get_freeze_count() == 0  # nothing frozen without a spec


def test_a_collector_the_caller_turned_off_stays_off() -> None:
    with collector_on():
        gc.disable()
        with collector.off_until_first_spec():
            collector.resume()  # not the block's to turn on
            assert not gc.isenabled()
        assert not gc.isenabled() and gc.get_freeze_count() == 0
        collector.resume()
        assert not gc.isenabled()


def test_only_a_command_that_starts_a_test_child_sets_up_without_it() -> None:
    assert set(cli.COMMANDS) >= cli.TEST_RUNNING
    assert cli._starts_a_test_child(["-C", "repo", "gate", "--base", "main"], {})
    assert not cli._starts_a_test_child(["-C", "gate", "lock"], {})  # `gate`: -C's folder
    assert cli._starts_a_test_child(["action", "-q"], {})  # INPUT_PHASE unset: all phases
    assert cli._starts_a_test_child(["action"], {"INPUT_PHASE": " Run"})
    assert not cli._starts_a_test_child(["action"], {"INPUT_PHASE": "judge"})
    assert not cli._starts_a_test_child(["action"], {"INPUT_PHASE": "fetch"})
