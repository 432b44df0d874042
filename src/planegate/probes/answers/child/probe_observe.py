"""The production calls a flipped test makes, observed (child side, probe sessions only).

For the first run of each nodeid the gate names (the repeat probe's copies of the tests the
patch flips: an ordinary run, the plain call being the first), a profile hook set
for that test's call phase alone records each production function entered straight from a
test-side frame: its file, qualified name, arguments and what it returned. Values are kept
as `repr` text when they are literals (numbers, strings, bytes, booleans, None, and tuples,
lists, sets and dicts of them, bounded), so the parent can read them back with
`ast.literal_eval` and look for them in the lines the patch adds (probes/answers/observed.py).
The session's `observed` record carries them, one list per test.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable, Generator, Mapping
from types import FrameType, SimpleNamespace
from typing import TYPE_CHECKING, Any

from planegate.probes.canaries.child.sampled import qualname_of, sides
from planegate.runner.child import frames

if TYPE_CHECKING:
    import pytest

    from planegate.runner.child.plugin_api import PluginContext

KIND = "observed"
MAX_CALLS = 64  # per test
MAX_TEXT = 400  # characters of one value's repr
LITERALS = (int, float, str, bytes, bool, type(None), complex)


def plugin(options: Mapping[str, Any], context: PluginContext, /) -> object:
    state = SimpleNamespace(
        wanted=frozenset(str(t) for t in options.get("tests", ())),
        side=sides(context.audit, options),
        found={},
    )
    hooks = {
        "pytest_runtest_call": _call_hook(context.audit, state),
        "pytest_sessionfinish": _finish(context.emit, context.audit, state),
    }
    return context.module(KIND, hooks)


def _finish(emit: frames.Emit, audit: SimpleNamespace, state: SimpleNamespace) -> Any:
    def pytest_sessionfinish(
        *, _e: frames.Emit = emit, _a: Any = audit, _g: Any = frames.guard, _s: Any = state
    ) -> None:
        if _g(_a, "pytest_sessionfinish"):
            _e(KIND, {"tests": dict(_s.found)})

    return pytest_sessionfinish


def _call_hook(audit: SimpleNamespace, state: SimpleNamespace) -> Callable[..., Any]:
    import pytest

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(
        item: pytest.Item,
        *,
        _a: Any = audit,
        _s: SimpleNamespace = state,
        _g: Any = frames.guard,
        _get: Callable[[], Any] = sys.getprofile,
        _set: Callable[[Any], None] = sys.setprofile,
    ) -> Generator[None, None, None]:
        nodeid = item.nodeid
        if nodeid not in _s.wanted or nodeid in _s.found or not _g(_a, "pytest_runtest_call"):
            yield
            return
        calls: list[dict[str, Any]] = []
        _s.found[nodeid] = calls
        previous = _get()
        ours = profiler(calls, _s.side, previous)
        _set(ours)
        try:
            yield
        finally:
            if _get() is ours:
                _set(previous)

    return pytest_runtest_call


def profiler(
    calls: list[dict[str, Any]],
    side: Callable[[str], tuple[str, str]],
    chained: Callable[[FrameType, str, Any], object] | None = None,
) -> Callable[[FrameType, str, Any], None]:
    """A profile hook recording each production call made straight from a test-side frame:
    its arguments when it is entered, its result when it returns."""
    open_calls: dict[int, dict[str, Any]] = {}

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" and len(calls) < MAX_CALLS and frame.f_back is not None:
            code = frame.f_code
            if (
                side(code.co_filename)[0] == "prod"
                and side(frame.f_back.f_code.co_filename)[0] == "test"
            ):
                names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
                entry: dict[str, Any] = {
                    "path": side(code.co_filename)[1],
                    "function": qualname_of(code),
                    "args": [[n, literal(frame.f_locals.get(n))] for n in names if n != "self"],
                    "result": None,
                }
                calls.append(entry)
                open_calls[id(frame)] = entry
        elif event == "return" and open_calls:
            returned = open_calls.pop(id(frame), {})
            if returned:
                returned["result"] = literal(arg)
        if chained is not None:
            chained(frame, event, arg)

    return profile


def literal(value: Any, depth: int = 0) -> str | None:
    """`repr(value)` when it reads back as the same literal (bounded), else None."""
    if not _literal(value, depth):
        return None
    try:
        text = repr(value)
    except Exception:
        return None
    if len(text) > MAX_TEXT:
        return None
    try:
        ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return text


def _literal(value: Any, depth: int) -> bool:
    kind = type(value)
    if kind in LITERALS:
        return kind is not float or value == value  # nan does not read back
    if depth >= 3 or kind not in (tuple, list, set, frozenset, dict):
        return False
    items = list(value.items()) if kind is dict else list(value)
    if len(items) > 50:
        return False
    if kind is dict:
        return all(_literal(k, depth + 1) and _literal(v, depth + 1) for k, v in items)
    return all(_literal(item, depth + 1) for item in items)
