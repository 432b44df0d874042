"""Run each selected test several times in one session, counting the runs that failed.

Triage reruns failing tests on the head and on the base; one session per commit runs each
of them `runs` times (set up and torn down each time, as pytest runs any test) instead of one
session per run. The channel sees the first run's reports; the counts go in one `repeat`
record as the session ends (before the stream's closing record).

Every run of a method uses the first run's instance, as pytest already does for a plain test
class: pytest makes a `unittest.TestCase` instance per setup, and Hypothesis fails a `@given`
method called from a second instance (its `differing_executors` health check), which would
count every rerun after the first as a failure.
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
    instances: dict[str, object] = {}  # nodeid -> the instance its first run called

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(
        item: pytest.Item,
        nextitem: pytest.Item | None,
        *,
        _runs: int = max(1, runs),
        _f: dict[str, int] = failures,
        _now: set[str] = failed_now,
        _protocol: Any = runtestprotocol,
        _kept: dict[str, object] = instances,
        _counted: Callable[..., int] = _failed_runs,
    ) -> bool:
        item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
        _f[item.nodeid] = _counted(item, nextitem, _runs, _protocol, _now, _kept)
        item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
        return True

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_call(item: pytest.Item, *, _kept: dict[str, object] = instances) -> None:
        instance = item.__dict__.get("_instance")
        if instance is not None:
            _kept.setdefault(item.nodeid, instance)

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
        "pytest_runtest_call": pytest_runtest_call,
        "pytest_runtest_logreport": pytest_runtest_logreport,
        "pytest_sessionfinish": pytest_sessionfinish,
    }


def _failed_runs(
    item: pytest.Item,
    nextitem: pytest.Item | None,
    runs: int,
    protocol: Callable[..., list[pytest.TestReport]],
    failed_now: set[str],
    kept: Mapping[str, object],
) -> int:
    """Run `item` `runs` times; the channel sees the first run's reports. How many failed."""
    failed = 0
    option = item.config.option
    style = getattr(option, "tbstyle", "auto")
    for index in range(runs):
        failed_now.discard(item.nodeid)
        if index:
            option.tbstyle = "no"
            _reuse_instance(item, kept)
        try:
            reports = protocol(item, nextitem=nextitem, log=False)
        finally:
            option.tbstyle = style
        failed += int(any(report.failed for report in reports) or item.nodeid in failed_now)
        if index == 0:
            for report in reports:
                item.ihook.pytest_runtest_logreport(report=report)
    return failed


def _reuse_instance(item: pytest.Item, kept: Mapping[str, object]) -> None:
    """Give a rerun the first run's instance where pytest dropped it at teardown (a
    `unittest.TestCase` method's; a plain class's is kept by pytest itself)."""
    instance = kept.get(item.nodeid)
    if instance is not None and "_instance" not in item.__dict__:
        item.__dict__["_instance"] = instance


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
