"""Whose code is asking: frames of the child attributed to the tree's tests, its production
code, or what lies outside the tree (see `runner/child/audit.py`).

Every function takes the audit state `s` built by `audit.install`; none reads a global that a
patch could replace, and none calls code of the patch (only built-in types' own attributes
are read from the objects it is handed).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from types import FrameType, FunctionType, MethodType, SimpleNamespace
from typing import Any

PRODUCTION, TESTS, OUTSIDE, PSEUDO = "production", "tests", "outside", "pseudo"
Emit = Callable[[str, dict[str, Any]], None]


def classify(s: SimpleNamespace, filename: str) -> str:
    kind: str | None = s.cache.get(filename)
    if kind is not None:
        return kind
    if filename.startswith("<"):
        kind = OUTSIDE if filename.startswith("<frozen") else PSEUDO
    elif not filename.startswith("/"):
        kind = PRODUCTION if not filename.startswith("..") else OUTSIDE
    elif filename.startswith(s.prefixes):
        trusted = filename in s.trusted or filename.rsplit("/", 1)[-1] == "conftest.py"
        kind = TESTS if trusted else PRODUCTION
    else:
        kind = OUTSIDE
    s.cache[filename] = kind
    return kind


def trust(s: SimpleNamespace, path: str) -> None:
    """A test module pytest collects is main's evidence (a new one fails the inventory step)."""
    s.trusted.add(path)
    s.cache.pop(path, None)


def direct(s: SimpleNamespace, frame: FrameType | None, extra: str = "") -> FrameType | None:
    """The frame that asked, past frame-handing helpers and code compiled from strings."""
    while frame is not None:
        code = frame.f_code
        kind = classify(s, code.co_filename)
        names = s.handers.get(code.co_filename)
        skip = kind == PSEUDO or (names is not None and code.co_name in names)
        if not skip and not (extra and code.co_filename.startswith(extra)):
            return frame
        frame = frame.f_back
    return None


def reach(s: SimpleNamespace, frame: FrameType | None) -> tuple[str, FrameType | None]:
    """The innermost frame of the tree on the stack, and its kind; (OUTSIDE, None) if none.

    No frame at all, or a thread started on a callable of the tree or a C function, counts
    as production: the harness never calls these from a bare C thread."""
    if frame is None:
        return PRODUCTION, None
    bottom = frame
    while frame is not None:
        kind = classify(s, frame.f_code.co_filename)
        if kind in (PRODUCTION, TESTS):
            return kind, frame
        bottom = frame
        frame = frame.f_back
    if s.ident() != s.main_thread and bottom.f_code is s.thread_bootstrap:
        thread = bottom.f_locals.get("self")
        if type(thread) is not s.thread_class:  # a subclass: whose run() is it?
            if origin(s, type(thread))[0] in (PRODUCTION, None):
                return PRODUCTION, None
            return OUTSIDE, None
        target = object.__getattribute__(thread, "__dict__").get("_target")
        if target is not None and origin(s, target)[0] in (PRODUCTION, None):
            return PRODUCTION, None
    return OUTSIDE, None


def origin(s: SimpleNamespace, value: object) -> tuple[str | None, str, int]:
    """(kind, file, line) of the code behind a value; kind None for C code and plain data.

    Only attributes of built-in types are read, so no code of the patch runs from here."""
    value = _unwrap(value)
    if type(value) is not FunctionType and type(value) is not type:
        value = type(value)
    if type(value) is type:
        items = type.__dict__["__dict__"].__get__(value).values()
        value = next((v for v in map(_unwrap, items) if type(v) is FunctionType), None)
    if type(value) is not FunctionType:
        return None, "", 0
    code = value.__code__
    return classify(s, code.co_filename), code.co_filename, code.co_firstlineno


def _unwrap(value: object) -> object:
    for _ in range(8):
        kind = type(value)
        if kind is MethodType or kind is classmethod or kind is staticmethod:
            value = value.__func__  # type: ignore[attr-defined]
        elif kind is partial:
            value = value.func  # type: ignore[attr-defined]
        elif kind is property:
            value = value.fget  # type: ignore[attr-defined]
        else:
            break
    return value


def label(value: object) -> str:
    """A readable name, read only through built-in types' own descriptors."""
    if type(value) is FunctionType or type(value) is type:
        return str(value.__qualname__)
    kind = type(value)
    return str(kind.__qualname__) if type(kind) is type else "object"


def relative(s: SimpleNamespace, filename: str) -> str:
    for prefix in s.prefixes:
        if filename.startswith(prefix):
            return filename[len(prefix) :]
    return filename


def record(
    s: SimpleNamespace, event: str, frame: FrameType | None, path: str = "", line: int = 0
) -> None:
    """Send one tamper record (once per event and place) before the operation proceeds."""
    if frame is not None:
        path, line = relative(s, frame.f_code.co_filename), frame.f_lineno or 0
    key = (event, path, line)
    if key in s.sent or len(s.sent) > 200:
        return
    s.sent.add(key)
    s.emit("tamper", {"event": event, "path": path, "line": line})


def _production_frame(
    s: SimpleNamespace, frame: FrameType | None, code: Any = None
) -> FrameType | None:
    """The first production frame on the stack, down to pytest's test loop (below it lies only
    pytest's own start-up): a walk on every record, so kept to dict lookups. `code`: the first
    frame's code when the caller has read it already (each read is an audit event).

    The walk stops early at a frame an earlier walk found clean, with everything below it:
    a running frame's callers cannot change while it runs, so what lies below is what was
    walked then. Only frames of plain functions are kept (a generator's or coroutine's frame
    is resumed from anywhere), each with its file, and only until the test's teardown report
    is sent (`forget_clean`)."""
    get, bottom, clean, floor = s.cache.get, s.bottom, s.clean, s.floor
    walked = []
    while frame is not None:
        if frame in clean or frame is floor:  # keyed by the frame itself: `id()` is audited
            break  # held here, so alive: still on the stack, its callers as they were
        if code is None:
            code = frame.f_code  # an audited read: once per frame
        if code is bottom:
            if floor is None:
                s.floor = frame  # the test loop's first frame runs as long as the session
            break
        filename = code.co_filename
        if (get(filename) or classify(s, filename)) == PRODUCTION:
            return frame
        if not code.co_flags & _RESUMABLE:
            walked.append((frame, filename))
        frame, code = frame.f_back, None
    if len(clean) > _CLEAN_MAX:
        clean.clear()
    clean.update(walked)
    return None


def forget_clean(s: SimpleNamespace) -> None:
    """Let go of the frames found clean (their locals stay alive while they are held)."""
    s.clean.clear()


_RESUMABLE = 0x20 | 0x80 | 0x100 | 0x200  # generator, coroutine, iterable coroutine, async gen
_CLEAN_MAX = 4096


def guard(s: SimpleNamespace, hook_name: str) -> bool:
    """True when a channel hook is called by pluggy in the main thread, no production code on
    the stack; otherwise the call is recorded as tampering and must not report anything."""
    tid = s.ident()
    s.busy.add(tid)  # the audit hook has nothing to say about this function's own frame walk
    try:
        return _guard(s, hook_name)
    finally:
        s.busy.discard(tid)


def _guard(s: SimpleNamespace, hook_name: str) -> bool:
    caller = s.getframe(3)
    where: FrameType | None = None
    problem = ""
    # a caller found clean earlier in this test is still running: its file was kept then
    filename, code = s.clean.get(caller), None
    if filename is None:
        code = caller.f_code  # an audited read: once
        filename = code.co_filename
    if s.ident() != s.main_thread:
        problem = "from another thread"
    elif not filename.startswith(s.pluggy_dir or "\0"):
        problem, where = "outside the hook machinery", direct(s, caller)
    else:
        where = _production_frame(s, caller, code)
        problem = "with production code on the stack" if where is not None else ""
    if not problem:
        return True
    record(s, f"the result channel's {hook_name} was called {problem}", where)
    return False
