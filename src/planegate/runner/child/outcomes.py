"""Each call's outcome from the call's own exception, and the report's bindings checked where
the report is built.

Two wrappers of the result channel (runner/child/channel.py), both outermost (`tryfirst`):
- around `pytest_runtest_call`, the exception the test's call raised, caught where pytest's
  `CallInfo.from_call` catches it, before any report object exists;
- around `pytest_runtest_makereport`, once the call's report is built: the namespaces' version
  tags (runner/child/versions.py) and the report bindings (`integrity.check`), so a swap made
  and undone inside the test, or inside the report's construction, is seen and named with the
  call (a subtest's report, made while the call runs, is left to the next check: the tags
  keep every write until then, and no record leaves before it); then the report's outcome
  against the exception the call raised (ours, and `CallInfo.excinfo`, where the unittest
  plugin puts a `TestCase`'s failure). A report that says passed (or skipped, with no skip
  raised and no xfail) for a call that raised is sent as failed and recorded.
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
    return SimpleNamespace(raised={}, forced=set(), running=set())


def hooks(
    audit: SimpleNamespace, checks: SimpleNamespace, calls: SimpleNamespace
) -> dict[str, Any]:
    import pytest
    from _pytest import outcomes

    skips = (outcomes.Skipped, unittest.SkipTest)  # bound before any code of the tree runs

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_call(
        item: pytest.Item,
        *,
        _raised: dict[str, BaseException] = calls.raised,
        _running: set[str] = calls.running,
    ) -> Generator[None, None, None]:
        # nothing here can make a test pass: a call recorded as raising only fails it
        nodeid = item.nodeid
        _running.add(nodeid)
        try:
            return (yield)
        except BaseException as error:
            _raised[nodeid] = error
            raise
        finally:
            _running.discard(nodeid)

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
        # only the call's report is judged here: a setup's or a teardown's is checked where
        # its record goes out (channel.py), and the version tags keep every write since
        if call.when != "call" or not _g(_a, "pytest_runtest_makereport"):
            return report
        nodeid = item.nodeid
        if nodeid not in _calls.running:  # not a subtest's report, made inside the call
            at = f"when {nodeid} reported its call"
            # a broken run (muted) leaves the test's module to the scoring run's next check
            own = nodeid if _a.muted is None else ""  # (decisions.md: "Found since")
            _versions(_c.versions, f"during the call of {nodeid} ({at})", own)
            _check(_c, "report", at)
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
