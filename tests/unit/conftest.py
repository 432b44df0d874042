"""Unit tests start no process, and so run no git: every way Python starts one fails the unit
test that tries, in its setup (the module and session fixtures it sets up included), its call
and its teardown (tests/unit/test_process_guard.py proves it)."""

from __future__ import annotations

import contextlib
from collections.abc import Generator, Iterator

import pytest

from helpers.process_guard import MESSAGE, ProcessGuard, refuse_process_starts, where

GUARD = pytest.StashKey[ProcessGuard]()


@contextlib.contextmanager
def _guarded_phase(item: pytest.Item) -> Iterator[None]:
    guard = item.stash.setdefault(GUARD, ProcessGuard())
    with pytest.MonkeyPatch.context() as monkeypatch:
        refuse_process_starts(monkeypatch, guard)
        yield


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    with _guarded_phase(item):
        yield


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    with _guarded_phase(item):
        yield


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, None, None]:
    with _guarded_phase(item):
        yield
    refused = item.stash[GUARD].refused
    if refused:  # the code under test caught the failure: the test fails all the same
        pytest.fail(f"{MESSAGE}: {', '.join(refused)} was called; {where()}")


@pytest.fixture
def process_guard(request: pytest.FixtureRequest) -> ProcessGuard:
    """This test's guard: what it refused so far."""
    guard: ProcessGuard = request.node.stash[GUARD]
    return guard
