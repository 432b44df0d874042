"""Unit tests start no process, and so run no git: every way Python starts one fails the test
that tries, for the test's whole duration (tests/unit/test_process_guard.py proves it)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from helpers.process_guard import MESSAGE, ProcessGuard, refuse_process_starts, where


@pytest.fixture(autouse=True)
def process_guard(monkeypatch: pytest.MonkeyPatch) -> Iterator[ProcessGuard]:
    guard = refuse_process_starts(monkeypatch)
    yield guard
    if guard.refused:  # the code under test caught the failure: the test fails all the same
        pytest.fail(f"{MESSAGE}: {', '.join(guard.refused)} was called; {where()}")
