"""Run each selected test several times in one session, counting the runs that failed.

Triage reruns failing tests on the head and on the base; one session per commit runs each
of them `runs` times (set up and torn down each time, as pytest runs any test) instead of one
session per run. The channel sees the first run's reports; the counts go in one `repeat`
record as the session ends.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest

KIND = "repeat"


class RepeatPlugin:
    def __init__(self, send: Callable[..., None], runs: int) -> None:
        self._send = send
        self._runs = max(1, runs)
        self._failures: dict[str, int] = {}

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> bool:
        from _pytest.runner import runtestprotocol

        item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
        failures = 0
        for index in range(self._runs):
            reports = runtestprotocol(item, nextitem=nextitem, log=False)
            failures += int(any(report.failed for report in reports))
            if index == 0:
                for report in reports:
                    item.ihook.pytest_runtest_logreport(report=report)
        item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
        self._failures[item.nodeid] = failures
        return True

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self) -> None:
        self._send(KIND, runs=self._runs, failures=self._failures)


def failures_of(extra: Mapping[str, Any]) -> tuple[int, dict[str, int]]:
    """(runs, nodeid -> failed runs) from a run's `repeat` record; (0, {}) when none came."""
    record = extra.get(KIND)
    if not isinstance(record, Mapping) or not isinstance(record.get("failures"), Mapping):
        return 0, {}
    return int(record.get("runs", 0)), {str(k): int(v) for k, v in record["failures"].items()}
