"""Each call's outcome from the call's own exception, and the report's bindings checked where
the report is built.

Two wrappers of the result channel (runner/child/channel.py), both outermost (`tryfirst`):
- around `pytest_runtest_call`, the exception the test's call raised, caught where pytest's
  `CallInfo.from_call` catches it, before any report object exists;
- around `pytest_runtest_makereport`, once the report is built: the namespaces' version tags
  (runner/child/versions.py) and the report bindings (`integrity.check`), so a swap made
  and undone inside the test, or inside the report's construction, is seen; then the report's
  outcome against the exception the call raised (ours, and `CallInfo.excinfo`, where the
  unittest plugin puts a `TestCase`'s failure). A report that says passed (or skipped, with
  no skip raised and no xfail) for a call that raised is sent as failed and recorded.
"""

from __future__ import annotations

import unittest
from collections.abc import Generator
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from planegate.runner.child import frames, integrity, versions

if TYPE_CHECKING:
    import pytest


def make_calls() -> SimpleNamespace:
    """What the wrappers hand the channel: the call's exception per nodeid, and the reports
    to be sent failed whatever they say."""
    return SimpleNamespace(raised={}, forced=set())


def hooks(
    audit: SimpleNamespace, checks: SimpleNamespace, calls: SimpleNamespace
) -> dict[str, Any]:
    import pytest
    from _pytest import outcomes

    skips = (outcomes.Skipped, unittest.SkipTest)  # bound before any code of the tree runs

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_call(
        item: pytest.Item, *, _raised: dict[str, BaseException] = calls.raised
    ) -> Generator[None, None, None]:
        # nothing here can make a test pass: a call recorded as raising only fails it
        try:
            return (yield)
        except BaseException as error:
            _raised[item.nodeid] = error
            raise

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_makereport(
        item: pytest.Item,
        call: pytest.CallInfo[None],
        *,
        _a: Any = audit,
        _c: Any = checks,
        _calls: Any = calls,
        _g: Any = frames.guard,
        _check: Any = integrity.check,
        _versions: Any = versions.check,
        _skips: tuple[type[BaseException], ...] = skips,
        _j: Any = _judge,
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        if not _g(_a, "pytest_runtest_makereport"):
            return report
        nodeid, when = item.nodeid, call.when
        at = f"when {nodeid} reported its {when}"
        # a sampled canary's broken run (muted) leaves the test module's namespace to the
        # scoring run's own next check (versions.settle): checked here, a change made before
        # the run began would be named at a point drawn at random, never where main's run
        # names it
        own = nodeid if _a.muted is None else ""
        _versions(_c.versions, f"during the {when} of {nodeid} ({at})", own)
        if when != "teardown":  # the teardown's record is checked as it is sent
            _check(_c, "report", at)
        if when == "call":
            _j(_a, _calls, nodeid, call, report, _skips)
        return report

    return {
        "pytest_runtest_call": pytest_runtest_call,
        "pytest_runtest_makereport": pytest_runtest_makereport,
    }


def _judge(
    audit: SimpleNamespace,
    calls: SimpleNamespace,
    nodeid: str,
    call: Any,
    report: pytest.TestReport,
    skips: tuple[type[BaseException], ...],
) -> None:
    """The call's report against the exception the call raised (ours, and `CallInfo`'s)."""
    raised = calls.raised.pop(nodeid, None)
    excinfo = call.excinfo
    failing = _failing(raised, skips) or _failing(
        excinfo.value if excinfo is not None else None, skips
    )
    if failing is None or not _claims_success(report):
        return
    if audit.muted is None:  # a sampled canary's broken run sends no record
        calls.forced.add(nodeid)
    frames.record(
        audit,
        f"{nodeid} was reported {report.outcome}; its call raised {failing} "
        "(the report was not built from the call)",
        None,
    )


def _failing(error: BaseException | None, skips: tuple[type[BaseException], ...]) -> str | None:
    """The class name of an exception that fails a test; None for none, or a skip. Only the
    exception's type is read (no code of the patch runs)."""
    if error is None:
        return None
    kind = type(error)
    if issubclass(kind, skips):
        return None
    return str(type.__dict__["__qualname__"].__get__(kind))


def _claims_success(report: pytest.TestReport) -> bool:
    """Passed, or skipped without being an xfail (an xfail's raise is its expected outcome)."""
    outcome = report.outcome
    return outcome == "passed" or (outcome == "skipped" and not hasattr(report, "wasxfail"))
