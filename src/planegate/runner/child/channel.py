"""The result channel inside the untrusted child: a writer and the pytest plugin that uses it.

Records go over an inherited pipe, each tagged with the run's nonce; the parent decides. The
plugin is a module object of plain functions built per run and handed to pytest.main() directly,
so nothing on sys.path can shadow it and no class of it can be found and patched. Each hook
takes what it uses as keyword-only defaults (pluggy ignores those; reading them is audited),
and refuses to report when it is called by anything but pluggy with no production code on the
stack (`frames.guard`).
"""

from __future__ import annotations

import _thread
import contextlib
import json
import os
import sys
from collections.abc import Callable, Generator
from types import ModuleType, SimpleNamespace
from typing import TYPE_CHECKING, Any

from planegate.runner.child import frames, integrity, outcomes, reads, versions

if TYPE_CHECKING:
    import pytest

MAX_TEXT = 4000
Emit = frames.Emit


def make_writer(fd: int, nonce: str) -> tuple[Emit, Emit, Callable[[], None]]:
    """`emit(kind, fields)` writes one line, after any held ones; `hold(kind, fields)` keeps a
    line until the next `emit` (a test's records go out in one write); the third function
    closes the channel for good (in a forked child, so a copy of the process cannot write to
    the parent's stream). A held line is lost only with a process that dies before its test's
    teardown report: a run that cannot close anyway."""
    state = {"fd": fd}
    held: list[bytes] = []
    line = _liner(nonce)
    lock = _thread.allocate_lock()

    def hold(
        kind: str,
        fields: dict[str, Any],
        *,
        _held: list[bytes] = held,
        _line: Callable[[str, dict[str, Any]], bytes] = line,
        _lock: Any = lock,
    ) -> None:
        data = _line(kind, fields)
        with _lock:
            _held.append(data)

    def emit(
        kind: str,
        fields: dict[str, Any],
        *,
        _state: dict[str, int] = state,
        _held: list[bytes] = held,
        _line: Callable[[str, dict[str, Any]], bytes] = line,
        _write: Callable[[int, bytes], int] = os.write,
        _lock: Any = lock,
    ) -> None:
        data = _line(kind, fields)
        with _lock:
            if _held:
                _held.append(data)
                data = b"".join(_held)
                _held.clear()
            while data and _state["fd"] >= 0:
                try:
                    data = data[_write(_state["fd"], data) :]
                except OSError:
                    return

    return emit, hold, _closer(state, held)


def _liner(nonce: str) -> Callable[[str, dict[str, Any]], bytes]:
    """One record as the line the parent reads: the nonce, the kind, the fields."""
    encode = _encoder()

    def line(
        kind: str,
        fields: dict[str, Any],
        *,
        _nonce: str = nonce,
        _encode: Callable[[object], str] = encode,
    ) -> bytes:
        record: dict[str, Any] = {"nonce": _nonce, "kind": kind}
        record.update(fields)
        return (_encode(record) + "\n").encode()

    return line


def _closer(state: dict[str, int], held: list[bytes]) -> Callable[[], None]:
    def close(
        *,
        _state: dict[str, int] = state,
        _held: list[bytes] = held,
        _close: Callable[[int], None] = os.close,
    ) -> None:
        fd, _state["fd"] = _state["fd"], -1
        _held.clear()
        if fd >= 0:
            with contextlib.suppress(OSError):
                _close(fd)

    return close


def _encoder() -> Callable[[object], str]:
    """The C JSON encoder, bound now: patching `json` later cannot change what is written."""
    from json import encoder as json_encoder

    make = getattr(json_encoder, "c_make_encoder", None)
    if make is None:  # pragma: no cover - CPython always has _json
        return json.JSONEncoder(ensure_ascii=True).encode

    def refuse(value: object) -> object:
        raise TypeError(f"not JSON: {type(value).__name__}")

    chunks = make(None, refuse, json_encoder.encode_basestring_ascii, None, ":", ",", 0, 0, 1)

    def encode(value: object, *, _chunks: Any = chunks, _join: Any = "".join) -> str:
        return str(_join(_chunks(value, 0)))

    return encode


def make_plugin(
    emit: Emit,
    hold: Emit,
    audit: SimpleNamespace,
    checks: SimpleNamespace,
    deselect: frozenset[str],
) -> tuple[ModuleType, ModuleType]:
    """The channel's plugin, and its outcome wrappers' (runner/child/outcomes.py)."""
    calls = outcomes.make_calls()
    hooks = _setup_hooks(audit, checks)
    hooks.update(_collection_hooks(emit, audit, checks, deselect))
    hooks.update(_run_hooks(emit, audit, checks))
    hooks["pytest_runtest_logreport"] = _report_hook(emit, hold, audit, checks, calls)
    wrappers = outcomes.hooks(audit, checks, calls)
    if audit.trace is not None:
        hooks.update(_trace_hooks(emit, audit))
    plugin = ModuleType("results")  # hashable, as pluggy needs; in no sys.modules
    for name, function in hooks.items():
        audit.ours.add(function)
        setattr(plugin, name, function)
    # a second module: one plugin holds one implementation per hook
    outcome = ModuleType("results.calls")
    for name, function in wrappers.items():
        audit.ours.add(function)
        setattr(outcome, name, function)
    return plugin, outcome


def _hooks(names: dict[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in names.items() if name.startswith("pytest_")}


def _setup_hooks(audit: SimpleNamespace, checks: SimpleNamespace) -> dict[str, Any]:
    import pytest

    trust, check = frames.trust, integrity.check

    @pytest.hookimpl(trylast=True)
    def pytest_load_initial_conftests(
        early_config: pytest.Config, *, _a: Any = audit, _c: Any = checks, _env: Any = os.environ
    ) -> None:
        """After pytest's own set-up, before the first conftest: the harness as it must stay."""
        for name in ("PYTEST_VERSION", "PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
            _env.pop(name, None)
        integrity.baseline(_c)

    @pytest.hookimpl(tryfirst=True)
    def pytest_pycollect_makemodule(module_path: Any, *, _a: Any = audit, _t: Any = trust) -> None:
        _t(_a, str(module_path))

    @pytest.hookimpl(hookwrapper=True)
    def pytest_make_collect_report(
        collector: pytest.Collector,
        *,
        _c: Any = checks,
        _check: Any = check,
        _m: Any = pytest.Module,
    ) -> Generator[None, None, None]:
        if isinstance(collector, _m):
            _check(_c, "import", f"before {collector.nodeid} was imported")
        yield

    return _hooks(locals())


def _collection_hooks(
    emit: Emit, audit: SimpleNamespace, checks: SimpleNamespace, deselect: frozenset[str]
) -> dict[str, Any]:
    import pytest

    guard = frames.guard

    def pytest_collectreport(
        report: pytest.CollectReport, *, _e: Emit = emit, _a: Any = audit, _g: Any = guard
    ) -> None:
        if report.failed and _g(_a, "pytest_collectreport"):
            _e("collect_error", {"nodeid": report.nodeid, "message": _text(report.longreprtext)})

    @pytest.hookimpl(hookwrapper=True)
    def pytest_collection_modifyitems(
        session: pytest.Session,
        config: pytest.Config,
        items: list[pytest.Item],
        *,
        _e: Emit = emit,
        _a: Any = audit,
        _c: Any = checks,
        _g: Any = guard,
        _d: frozenset[str] = deselect,
    ) -> Generator[None, None, None]:
        if _g(_a, "pytest_collection_modifyitems"):
            _e("collected", {"nodeids": [item.nodeid for item in items]})
        yield
        kept = [item for item in items if item.nodeid not in _d]
        dropped = [item for item in items if item.nodeid in _d]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept
        integrity.after_collection(_c, config, items)
        if _g(_a, "pytest_collection_modifyitems"):
            _e("selected", {"nodeids": [item.nodeid for item in items]})

    return _hooks(locals())


def _run_hooks(emit: Emit, audit: SimpleNamespace, checks: SimpleNamespace) -> dict[str, Any]:
    import pytest

    guard, check = frames.guard, integrity.check

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_call(
        item: pytest.Item, *, _e: Emit = emit, _a: Any = audit, _g: Any = guard
    ) -> None:
        """The effective Hypothesis budget of a property test, read just before it runs."""
        examples = hypothesis_budget(getattr(item, "obj", None))
        if examples is not None and _g(_a, "pytest_runtest_call"):
            _e("hypothesis", {"nodeid": item.nodeid, "max_examples": examples})

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(
        session: pytest.Session,
        exitstatus: int,
        *,
        _e: Emit = emit,
        _a: Any = audit,
        _c: Any = checks,
        _g: Any = guard,
        _check: Any = check,
        _all: Any = versions.check_all,
        _flush: Any = reads.flush_all,
        _times: Any = os.times,
        _streams: tuple[Any, ...] = (sys.__stdout__, sys.__stderr__),
    ) -> None:
        if not _g(_a, "pytest_sessionfinish"):
            return
        _check(_c, "full", "at the end of the session")
        _all(_c.versions, "at the end of the session")
        _flush(_a, _e)
        fields = {"exitstatus": int(exitstatus), "testscollected": session.testscollected}
        spent = _times()  # the gate stops the child at this record: its CPU goes with it
        fields["cpu"] = round(spent[0] + spent[1] + spent[2] + spent[3], 3)
        for stream in _streams:  # what pytest printed (an INTERNALERROR) is in the log first
            with contextlib.suppress(Exception):
                stream.flush()
        _e("end", fields)

    return _hooks(locals())


def _report_hook(
    emit: Emit, hold: Emit, audit: SimpleNamespace, checks: SimpleNamespace, calls: Any
) -> Any:
    """Each report that decides a test's outcome, checked and sent; a passed setup is not
    sent (its seconds go with the call's record): a third of the records of a passing run.
    A test's records go out together, with its teardown's: one write per test. The call's
    outcome is the one its own exception gives (runner/child/outcomes.py) when they differ."""
    guard, check, watch = frames.guard, integrity.check, versions.check

    def pytest_runtest_logreport(
        report: pytest.TestReport,
        *,
        _e: Emit = emit,
        _h: Emit = hold,
        _a: Any = audit,
        _c: Any = checks,
        _g: Any = guard,
        _check: Any = check,
        _watch: Any = watch,
        _forced: set[str] = calls.forced,
        _setups: dict[str, float] = {},  # noqa: B006 (the passed setups' seconds, until the call)
        _forget: Any = frames.forget_clean,
    ) -> None:
        try:
            if _a.muted is None and report.when == "setup" and report.outcome == "passed":
                # nothing to send: a passed setup decides nothing, and its seconds go with the
                # call's record (whoever calls this only adds seconds to a test's duration)
                _setups[report.nodeid] = report.duration
                return
            if not _g(_a, "pytest_runtest_logreport"):
                return
            if _a.muted is not None:  # a sampled canary's run with its function broken
                _a.muted.append(bool(report.failed))
                return
            at = f"when {report.nodeid} reported its {report.when}"
            if report.when != "call":  # a call's records are held until its teardown's check
                _watch(
                    _c.versions,
                    f"before {report.nodeid} sent its {report.when} ({at})",
                    report.nodeid,
                )
            if report.when == "teardown" or not report.passed:
                # a passed call's report was checked where it was built
                # (runner/child/outcomes.py), just before this record
                _check(_c, "report", at)
            fields = _report_fields(report)
            if report.when == "call":
                fields["duration"] = round(report.duration + _setups.pop(report.nodeid, 0.0), 6)
                if report.nodeid in _forced:
                    _forced.discard(report.nodeid)
                    fields["outcome"] = "failed"
            (_e if report.when == "teardown" else _h)("report", fields)
        finally:  # the test's own last report: the frames its walks kept are done
            if report.when == "teardown" and getattr(report, "context", None) is None:
                _forget(_a)

    return pytest_runtest_logreport


def _trace_hooks(emit: Emit, audit: SimpleNamespace) -> dict[str, Any]:
    """Read tracing (runner/child/reads.py): each test's reads go out once its protocol ends."""
    import pytest

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(
        item: pytest.Item,
        *,
        _e: Emit = emit,
        _a: Any = audit,
        _g: Any = frames.guard,
        _begin: Any = reads.begin,
        _flush: Any = reads.flush,
    ) -> Generator[None, None, None]:
        # guarded on both sides: called by anything but pluggy, it changes nothing
        nodeid = item.nodeid if _g(_a, "pytest_runtest_protocol") else None
        if nodeid is not None:
            _begin(_a, nodeid)
        yield
        if nodeid is not None and _g(_a, "pytest_runtest_protocol"):
            _begin(_a, "")
            _flush(_a, _e, nodeid)

    return _hooks(locals())


def _report_fields(report: pytest.TestReport) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "nodeid": report.nodeid,
        "when": report.when,
        "outcome": report.outcome,
        "duration": round(report.duration, 6),
        "wasxfail": hasattr(report, "wasxfail"),
        "message": _text(report.longreprtext) if report.failed or report.skipped else "",
    }
    label = subtest_label(report)
    if label is not None:
        fields["subtest"] = label
    return fields


def subtest_label(report: pytest.TestReport) -> str | None:
    """A subtest's report (pytest 9's `subtests` fixture, the pytest-subtests plugin) carries
    a `context`: its label as pytest prints it; None for the test's own reports. Only plain
    values are formatted (pytest 9 hands their `saferepr`): no code of the patch runs here."""
    context = getattr(report, "context", None)
    if context is None:
        return None
    parts = []
    msg = getattr(context, "msg", None)
    if msg is not None:
        parts.append(f"[{_plain(msg)}]")
    kwargs = getattr(context, "kwargs", None)
    if type(kwargs) is dict and kwargs:
        parts.append("(" + ", ".join(f"{_plain(k)}={_plain(v)}" for k, v in kwargs.items()) + ")")
    return " ".join(parts) or "(<subtest>)"


def _plain(value: object) -> str:
    if type(value) in (str, int, float, bool) or value is None:
        return str(value)
    kind = type(value)
    return f"<{kind.__qualname__ if type(kind) is type else 'object'}>"


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


def _text(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 20] + "\n... (cut)"
