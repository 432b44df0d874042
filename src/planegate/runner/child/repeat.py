"""Run each selected test several times in one session, counting the runs that failed.

Triage reruns failing tests on the head and on the base; one session per commit runs each
of them `runs` times (set up and torn down each time, as pytest runs any test) instead of one
session per run. The channel sees the first run's reports; the counts go in one `repeat`
record as the session ends (before the stream's closing record).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from planegate.runner.child import frames

if TYPE_CHECKING:
    import pytest

KIND = "repeat"


def hooks(emit: frames.Emit, audit: SimpleNamespace, runs: int) -> dict[str, Callable[..., Any]]:
    import pytest
    from _pytest.runner import runtestprotocol

    failures: dict[str, int] = {}
    failed_now: set[str] = set()  # nodeids whose reports (subtests' too) failed in this run

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(
        item: pytest.Item,
        nextitem: pytest.Item | None,
        *,
        _runs: int = max(1, runs),
        _f: dict[str, int] = failures,
        _now: set[str] = failed_now,
        _protocol: Any = runtestprotocol,
    ) -> bool:
        item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
        failed = 0
        option = item.config.option
        style = getattr(option, "tbstyle", "auto")
        for index in range(_runs):
            _now.discard(item.nodeid)
            if index:
                option.tbstyle = "no"
            try:
                reports = _protocol(item, nextitem=nextitem, log=False)
            finally:
                option.tbstyle = style
            failed += int(any(report.failed for report in reports) or item.nodeid in _now)
            if index == 0:
                for report in reports:
                    item.ihook.pytest_runtest_logreport(report=report)
        item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
        _f[item.nodeid] = failed
        return True

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(report: pytest.TestReport, *, _now: set[str] = failed_now) -> None:
        if report.failed:
            _now.add(report.nodeid)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(
        *,
        _e: frames.Emit = emit,
        _a: Any = audit,
        _g: Any = frames.guard,
        _runs: int = max(1, runs),
        _f: dict[str, int] = failures,
    ) -> None:
        if _g(_a, "pytest_sessionfinish"):
            _e(KIND, {"runs": _runs, "failures": dict(_f)})

    return {
        "pytest_runtest_protocol": pytest_runtest_protocol,
        "pytest_runtest_logreport": pytest_runtest_logreport,
        "pytest_sessionfinish": pytest_sessionfinish,
    }


def failures_of(extra: Mapping[str, Any]) -> tuple[int, dict[str, int]]:
    """(runs, nodeid -> failed runs) from a run's `repeat` record; (0, {}) when none came or
    it is not of that shape."""
    record = extra.get(KIND)
    if not isinstance(record, Mapping) or not isinstance(record.get("failures"), Mapping):
        return 0, {}
    try:
        return int(record.get("runs", 0)), {str(k): int(v) for k, v in record["failures"].items()}
    except (TypeError, ValueError, OverflowError):
        return 0, {}
