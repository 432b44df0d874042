"""planegate's pytest plugin, run inside the untrusted child: one JSON record per event.

Records go over an inherited pipe, each tagged with the run's nonce; the parent decides.
The plugin object is handed to pytest.main() directly, so nothing on sys.path can shadow it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Generator
from typing import Any

import pytest

MAX_TEXT = 4000


class ChannelPlugin:
    def __init__(self, fd: int, nonce: str, deselect: frozenset[str], canary_prefix: str) -> None:
        self._fd = fd
        self._nonce = nonce
        self._deselect = deselect
        self._canary_prefix = canary_prefix

    def send(self, kind: str, **fields: Any) -> None:
        record = {"nonce": self._nonce, "kind": kind, **fields}
        os.write(self._fd, (json.dumps(record) + "\n").encode())

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.send("start", pid=os.getpid())

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.send("collect_error", nodeid=report.nodeid, message=_text(report.longreprtext))

    @pytest.hookimpl(hookwrapper=True)
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> Generator[None, None, None]:
        self.send("collected", nodeids=[item.nodeid for item in items])
        yield
        kept = [item for item in items if item.nodeid not in self._deselect]
        dropped = [item for item in items if item.nodeid in self._deselect]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept
        self.send("selected", nodeids=[item.nodeid for item in items])

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_call(self, item: pytest.Item) -> None:
        """The effective Hypothesis budget of a property test, read just before it runs."""
        examples = hypothesis_budget(getattr(item, "obj", None))
        if examples is not None:
            self.send("hypothesis", nodeid=item.nodeid, max_examples=examples)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.send(
            "report",
            nodeid=report.nodeid,
            when=report.when,
            outcome=report.outcome,
            duration=round(report.duration, 6),
            wasxfail=hasattr(report, "wasxfail"),
            message=_text(report.longreprtext) if report.failed or report.skipped else "",
            subtest=subtest_label(report),
        )

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self.send("end", exitstatus=int(exitstatus), testscollected=session.testscollected)


def hypothesis_budget(test: object) -> int | None:
    """max_examples the wrapped test will use (0 when generation is off); None if not @given."""
    if not getattr(test, "is_hypothesis_test", False):
        return None
    settings = getattr(test, "_hypothesis_internal_use_settings", None)
    try:
        examples = int(getattr(settings, "max_examples", 0))
        phases = [getattr(phase, "name", str(phase)) for phase in getattr(settings, "phases", ())]
    except (TypeError, ValueError):
        return 0
    return examples if "generate" in phases else 0


def subtest_label(report: pytest.TestReport) -> str | None:
    """A subtest's report (pytest 9's `subtests` fixture, the pytest-subtests plugin) carries
    a `context`: its label as pytest prints it, else None for the test's own reports."""
    context = getattr(report, "context", None)
    if context is None:
        return None
    parts = []
    msg = getattr(context, "msg", None)
    if msg is not None:
        parts.append(f"[{msg}]")
    kwargs = getattr(context, "kwargs", None) or {}
    if kwargs:
        parts.append("(" + ", ".join(f"{k}={v}" for k, v in kwargs.items()) + ")")
    return " ".join(parts) or "(<subtest>)"


def _text(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 20] + "\n... (cut)"
