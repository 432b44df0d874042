"""The child's audit hook: what tampering needs is recorded, or refused, before it happens.

`install()` runs first in the child, before pytest, the allowed plugins or any file of the tree
is imported. Each audit event is attributed to a frame, and the frame to one of three kinds of
file: main's evidence in the tree (`tests`: the protected files the gate restored, conftest
files and the test modules pytest collects), any other file of the tree (`production`), or
anything outside the tree (harness, standard library, dependencies).

Two attributions:
- *direct*: the frame that called the audited function, skipping the standard library's
  frame-handing helpers (`inspect.currentframe`, `traceback.walk_stack`, ...) and code compiled
  from strings. Used where libraries legitimately act for their callers (`logging` and
  `collections.namedtuple` call `sys._getframe`, `dataclasses` calls `exec`).
- *reach*: the innermost frame of the tree on the stack, whatever harness or library code lies
  between (a trampoline like `pytest.raises(Exception, gc.get_objects)` does not hide the
  caller). Used for what no library does for its callers: heap walks, trace hooks, /proc of
  other processes, writes into the interpreter.

On a traced run the `open` handler also hands each open to `runner/child/reads.py`, which keeps
what each test read in this state until the channel's hooks send it; process starts and
foreign-function loads go to `runner/child/launches.py`, kept with them.

A record is written to the result channel before the operation proceeds, so nothing the
operation achieves can erase it. Nothing here keeps state a patch can reach without an audited
step: the hook and its helpers take what they use as keyword-only defaults (reading
`__kwdefaults__` is itself audited) and the module is dropped from `sys.modules`.
"""

from __future__ import annotations

import _thread
import os
import sys
from collections.abc import Callable, Iterable
from types import FrameType, FunctionType, SimpleNamespace
from typing import Any

from planegate.runner.child.frames import (
    PRODUCTION,
    Emit,
    classify,
    direct,
    label,
    origin,
    reach,
    record,
    relative,
)
from planegate.runner.child.launches import FOREIGN_EVENTS, PROCESS_EVENTS
from planegate.runner.child.launches import on_event as trace_start
from planegate.runner.child.reads import count as trace_count
from planegate.runner.child.reads import on_open as trace_open

FRAME_ATTRS = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame"})
FUNCTION_ATTRS = frozenset({"__kwdefaults__", "__defaults__", "__code__"})
# /proc/<pid>/<name> a patch has no business opening: the channel's pipe, memory, secrets.
# Status files (stat, status, cmdline...) stay readable: process tools read them honestly.
SENSITIVE_SELF = frozenset({"environ", "mem", "fd", "fdinfo", "map_files", "pagemap"})
SENSITIVE_OTHER = SENSITIVE_SELF | {"maps", "auxv", "root", "cwd", "syscall", "stack"}
# Standard-library helpers whose job is to hand frames to their caller.
FRAME_HANDERS = {
    "inspect": frozenset(
        {"currentframe", "stack", "trace", "getouterframes", "getinnerframes", "getframeinfo"}
    ),
    "traceback": frozenset({"walk_stack", "walk_tb"}),
}
REACH_EVENTS = {
    "gc.get_objects": "gc.get_objects (a heap walk)",
    "gc.get_referrers": "gc.get_referrers (a heap walk)",
    "gc.get_referents": "gc.get_referents (a heap walk)",
    "sys._current_frames": "sys._current_frames (every thread's frames)",
    "sys._current_exceptions": "sys._current_exceptions (every thread's frames)",
    "sys.settrace": "sys.settrace (a trace hook)",
    "sys.setprofile": "sys.setprofile (a profile hook)",
    "sys.monitoring.register_callback": "sys.monitoring.register_callback (a monitoring hook)",
    "sys.addaudithook": "sys.addaudithook",
}
DIRECT_EVENTS = {
    "sys._getframe": "sys._getframe (a frame walk)",
    "compile": "compile() of code that is not a tracked source file",
    "exec": "exec() of a code object",
    "code.__new__": "a code object built at run time",
    "marshal.loads": "marshal.loads (code that is not a tracked source file)",
    "marshal.load": "marshal.load (code that is not a tracked source file)",
    "os.fork": "os.fork",
    "os.forkpty": "os.forkpty",
}
WRITE_EVENTS = {  # event -> positions of the paths it writes
    "os.rename": (0, 1),
    "os.link": (1,),
    "os.symlink": (1,),
    "os.mkdir": (0,),
    "os.remove": (0,),
    "os.rmdir": (0,),
    "os.truncate": (0,),
    "os.chmod": (0,),
    "os.chown": (0,),
    "os.utime": (0,),
}
IMPORTS = "<frozen importlib._bootstrap_external>"  # where the import system writes bytecode
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
_O_PATH = getattr(os, "O_PATH", 0)
_O_TMPFILE = getattr(os, "O_TMPFILE", 0)  # includes O_DIRECTORY: an unnamed file in a folder


class Denied(PermissionError):
    """Raised from the hook: the operation does not happen."""


def install(
    emit: Emit,
    tree: str,
    trusted: Iterable[str],
    protect: Iterable[str],
) -> SimpleNamespace:
    """Add the hook; return the helpers the channel plugin shares (trust, guard, origin...)."""
    s = _state(emit, tree, trusted, protect)
    s.table = _table(s)
    s.hook = _make_hook(s)
    s.ours.add(s.hook)
    sys.addaudithook(s.hook)
    return s


def _state(
    emit: Emit, tree: str, trusted: Iterable[str], protect: Iterable[str]
) -> SimpleNamespace:
    real = os.path.realpath(tree)
    prefixes = tuple({tree.rstrip("/") + "/", real.rstrip("/") + "/"})
    roots = {p.rstrip("/") for p in prefixes}
    trust: set[str] = set()
    for rel in trusted:
        trust.update(f"{root}/{rel}" for root in roots)
    import ctypes  # noqa: F401  (imported now, from outside the tree, so its folder is known)
    import inspect
    import io
    import tempfile
    import threading
    import traceback

    handers = {inspect.__file__: FRAME_HANDERS["inspect"]}
    handers[traceback.__file__] = FRAME_HANDERS["traceback"]
    return SimpleNamespace(
        emit=emit,
        tree=real,
        prefixes=prefixes,
        trusted=trust,
        protect=tuple(sorted({p.rstrip("/") + "/" for p in protect if p})),
        cache={},
        sent=set(),
        ours=set(),
        busy=set(),
        handers=handers,
        ctypes_dir=os.path.dirname(sys.modules["ctypes"].__file__ or "") + "/",
        ctypes_pydll=sys.modules["ctypes"].PyDLL,
        thread_bootstrap=threading.Thread._bootstrap.__code__,  # type: ignore[attr-defined]
        thread_class=threading.Thread,
        main_thread=_thread.get_ident(),
        pid=os.getpid(),
        getframe=sys._getframe,
        ident=_thread.get_ident,
        os_open=os.open,
        readlink=os.readlink,
        close=os.close,
        getcwd=os.getcwd,
        fsdecode=os.fsdecode,
        pluggy_dir="",
        # tempfile.TemporaryFile's own `_io.open(dir, ..., opener=...)` (`_unnamed`)
        temporary=(tempfile.TemporaryFile.__code__, vars(tempfile), io, vars(io), io.open),
        bottom=None,  # pytest's test loop, once pytest is imported
        floor=None,  # the frame of that loop, once a walk reached it
        clean={},  # running frames a guard's walk found clean, with their files (frames.py)
        table={},
        hook=None,
        trace=None,  # read tracing (runner/child/reads.py), when the run asks for it
        muted=None,  # while a sampled canary runs broken: its reports' failed flags
    )


def _make_hook(s: SimpleNamespace) -> Callable[[str, tuple[Any, ...]], None]:
    # Positional defaults: CPython calls the hook with two arguments, and filling defaults from
    # a tuple costs far less than keyword-only ones (the hook runs for every audit event).
    pinned = (s.busy, _thread.get_ident, s, FRAME_ATTRS, FUNCTION_ATTRS, s.ours)

    def hook(
        event: str,
        args: tuple[Any, ...],
        _get: Callable[[str], Any] = s.table.get,
        _getattr: Any = _on_getattr,
        _pinned: tuple[Any, ...] = pinned,
    ) -> None:
        handler = _get(event)
        if handler is None:
            return
        # `f_code` and `__code__` are read all the time: only frames of suspended code and
        # the channel's own functions matter
        if (
            handler is _getattr
            and args[1] not in _pinned[3]
            and (args[1] not in _pinned[4] or args[0] not in _pinned[5])
        ):
            return
        busy, ident, state = _pinned[0], _pinned[1], _pinned[2]
        tid = ident()
        if tid in busy:
            return  # an event raised by this hook's own work
        busy.add(tid)
        try:
            handler(state, event, args)
        except Denied:
            raise
        except Exception as error:
            record(state, f"the audit hook failed on {event}: {type(error).__name__}", None)
        finally:
            busy.discard(tid)

    return hook


def _table(
    s: SimpleNamespace,
) -> dict[str, Callable[[SimpleNamespace, str, tuple[Any, ...]], None]]:
    table: dict[str, Callable[[SimpleNamespace, str, tuple[Any, ...]], None]] = {}
    for name in REACH_EVENTS:
        table[name] = _on_reach
    for name in DIRECT_EVENTS:
        table[name] = _on_direct
    for name in WRITE_EVENTS:
        table[name] = _on_write
    table.update(
        {
            "open": _on_open,
            "sqlite3.connect": _on_sqlite,
            "os.listdir": _on_listing,
            "os.scandir": _on_listing,
            "import": _on_import,
            "object.__getattr__": _on_getattr,
            "object.__setattr__": _on_setattr,
        }
    )
    for name in PROCESS_EVENTS | FOREIGN_EVENTS:
        table.setdefault(name, _on_launch)  # os.fork and os.forkpty stay direct events
    for name in ("cdata", "string_at", "wstring_at", "dlsym"):
        table[f"ctypes.{name}"] = _on_ctypes
    return table


# event handlers ------------------------------------------------------------------------


def _caller(s: SimpleNamespace) -> FrameType | None:
    try:
        frame: FrameType = s.getframe(3)  # hook -> handler -> here: 3 is the event's frame
    except ValueError:
        return None
    return frame


def _on_reach(s: SimpleNamespace, event: str, args: tuple[Any, ...]) -> None:
    kind, frame = reach(s, _caller(s))
    if kind == PRODUCTION:
        record(s, REACH_EVENTS[event], frame)


def _on_direct(s: SimpleNamespace, event: str, args: tuple[Any, ...]) -> None:
    caller = _caller(s)
    frame = direct(s, caller)
    if frame is None or classify(s, frame.f_code.co_filename) == PRODUCTION:
        record(s, DIRECT_EVENTS[event], frame)
    if event in PROCESS_EVENTS:  # os.fork, os.forkpty: a process started, wherever from
        trace_start(s, caller, event, args)


def _on_launch(s: SimpleNamespace, event: str, args: tuple[Any, ...]) -> None:
    """A process started or a foreign function loaded (`runner/child/launches.py`)."""
    trace_start(s, _caller(s), event, args)


def _on_ctypes(s: SimpleNamespace, event: str, args: tuple[Any, ...]) -> None:
    """Raw memory through ctypes (from_address, string_at) and the interpreter's own C API
    (`ctypes.pythonapi`). Calling a C library (prctl, say) is not recorded: the kernel, not
    this hook, guards other processes. (`ctypes.cast` and `memmove` raise no audit event.)"""
    if event == "ctypes.dlsym" and not (args and type(args[0]) is s.ctypes_pydll):
        trace_start(s, _caller(s), event, args)  # a C library's symbol: compared with main's
        return
    frame = direct(s, _caller(s), s.ctypes_dir)
    if frame is None or classify(s, frame.f_code.co_filename) == PRODUCTION:
        what = "the interpreter's C API" if event == "ctypes.dlsym" else "raw memory"
        record(s, f"{event} ({what})", frame)


def _on_getattr(s: SimpleNamespace, event: str, args: tuple[Any, ...]) -> None:
    target, name = args[0], args[1]
    if name in FRAME_ATTRS:
        frame = direct(s, _caller(s))
        if frame is None or classify(s, frame.f_code.co_filename) == PRODUCTION:
            record(s, f"{name} (a frame taken from a {type(target).__name__})", frame)
    elif name in FUNCTION_ATTRS and _is_ours(s, target):
        kind, frame = reach(s, _caller(s))
        if kind == PRODUCTION:
            record(s, f"{name} of the harness's own hook read", frame)


def _on_setattr(s: SimpleNamespace, event: str, args: tuple[Any, ...]) -> None:
    target, name = args[0], args[1]
    frame = direct(s, _caller(s))
    if frame is not None and classify(s, frame.f_code.co_filename) != PRODUCTION:
        return
    if _is_ours(s, target) or origin(s, target)[0] != PRODUCTION:
        record(s, f"{name} of {label(target)} replaced", frame)


def _is_ours(s: SimpleNamespace, target: object) -> bool:
    """Only functions are hashed (by identity): no __hash__ of the patch runs here."""
    return type(target) is FunctionType and target in s.ours


def _on_import(s: SimpleNamespace, event: str, args: tuple[Any, ...]) -> None:
    filename = args[1] if len(args) > 1 else None
    if isinstance(filename, str) and _resolve(s, filename)[0].startswith(s.tree + "/"):
        record(s, f"native code loaded from the tree ({relative(s, filename)})", None, filename)


def _on_open(s: SimpleNamespace, event: str, args: tuple[Any, ...]) -> None:
    path = args[0] if args else None
    if not isinstance(path, (str, bytes)):
        return
    mode, flags = (args[1] if len(args) > 1 else None), (args[2] if len(args) > 2 else 0)
    if _unnamed(s, flags):
        return
    text = _absolute(s, s.fsdecode(path))
    real, exists = _resolve(s, text)
    _check_proc(s, real, "open")
    writes = isinstance(flags, int) and bool(flags & _WRITE_FLAGS)
    if writes or (isinstance(mode, str) and any(c in mode for c in "wax+")):
        _check_protected(s, real, "a write")
    if exists and text.startswith(s.prefixes):
        _check_tree_code(s, text, real)
    if s.trace is not None:
        trace_open(s, _caller(s), real, mode, flags)


def _unnamed(s: SimpleNamespace, flags: object) -> bool:
    """An open that can only make a new, unnamed file (`O_TMPFILE`; pytest's capture makes
    two per test and per subtest through `tempfile.TemporaryFile`): no existing file's bytes
    are reached, so it is neither a read nor a write to check. Either the flags say so (the
    kernel refuses `O_TMPFILE` on anything but a folder), or the event is TemporaryFile's own
    `_io.open(dir, ..., opener=opener)`, with tempfile's `_io` and its `open` the ones this
    hook found at install: `io.open` then makes no system call on the path, its opener does,
    and that `os.open` raises its own event (`O_TMPFILE`, or checked in full when tempfile's
    `_os` was replaced). docs/security.md, "The child's audit hook"."""
    if isinstance(flags, int) and _O_TMPFILE and flags & _O_TMPFILE == _O_TMPFILE:
        return True
    frame = _caller_of_check(s)  # the event's frame
    if frame is None:
        return False
    code, tempfile_globals, io, io_globals, io_open = s.temporary
    return (
        frame.f_code is code
        and frame.f_globals is tempfile_globals
        and tempfile_globals.get("_io") is io
        and io_globals.get("open") is io_open
    )


def _on_sqlite(s: SimpleNamespace, event: str, args: tuple[Any, ...]) -> None:
    """sqlite3 opens the database in C: one open of that file for the count of locked files'
    opens (runner/child/reads.py; the argument is already bytes or str)."""
    path = args[0] if args else None
    if s.trace is not None and isinstance(path, (str, bytes)):
        real = _resolve(s, _absolute(s, s.fsdecode(path)))[0]
        if real.startswith(s.trace.root):
            trace_count(s.trace, real[len(s.trace.root) :])


def _on_listing(s: SimpleNamespace, event: str, args: tuple[Any, ...]) -> None:
    path = args[0] if args else "."
    if isinstance(path, (str, bytes)):
        _check_proc(s, _resolve(s, _absolute(s, s.fsdecode(path)))[0], "a listing")


def _on_write(s: SimpleNamespace, event: str, args: tuple[Any, ...]) -> None:
    for index in WRITE_EVENTS[event]:
        path = args[index] if len(args) > index else None
        if isinstance(path, (str, bytes)):
            _check_protected(s, _resolve(s, _absolute(s, s.fsdecode(path)))[0], event)


def _check_proc(s: SimpleNamespace, real: str, action: str) -> None:
    if not real.startswith("/proc/"):
        return
    parts = real[6:].split("/")
    if not parts[0].isdigit():
        return
    pid = int(parts[0])
    if len(parts) > 3 and parts[1] == "task":
        parts = parts[2:]
    sensitive = SENSITIVE_SELF if pid == s.pid else SENSITIVE_OTHER
    if len(parts) < 2 or parts[1] not in sensitive:
        return
    if pid == s.pid:
        what = f"{action} of /proc/self/{parts[1]}"
    else:
        what = f"{action} of /proc/{pid}/{parts[1]} (another process)"
    kind, frame = reach(s, _caller_of_check(s))
    if kind == PRODUCTION:
        record(s, what, frame)
        raise Denied(13, f"Permission denied: {what}", real)


def _check_protected(s: SimpleNamespace, real: str, action: str) -> None:
    if not real.startswith(s.protect) or real.startswith(s.tree + "/"):
        return
    asking = _caller_of_check(s)
    kind, frame = reach(s, asking)
    if kind == PRODUCTION:
        if "/__pycache__" in real and asking is not None and asking.f_code.co_filename == IMPORTS:
            # the import system caching a module production code imports: refused unrecorded
            # (the import goes on without the cache, as on a read-only site-packages)
            raise Denied(13, "Permission denied", real)
        what = f"{action} into the interpreter or its tools ({real})"
        record(s, what, frame)
        raise Denied(13, f"Permission denied: {what}", real)


def _caller_of_check(s: SimpleNamespace) -> FrameType | None:
    try:
        frame: FrameType = s.getframe(4)  # hook -> handler -> check -> here
    except ValueError:
        return None
    return frame


def _check_tree_code(s: SimpleNamespace, text: str, real: str) -> None:
    rel = relative(s, text)
    if real.endswith((".pyc", ".pyo")) and real.rpartition("/")[0].endswith("/__pycache__"):
        return  # a cache this run wrote: the parent removes the tree's before each run
    if real.endswith((".pyc", ".pyo")):
        record(s, f"compiled code without its source ({rel})", None, rel)
    elif text.endswith(".py") and not real.startswith(s.tree + "/"):
        record(s, f"a module that is a symlink out of the tree ({rel} -> {real})", None, rel)


def _absolute(s: SimpleNamespace, path: str) -> str:
    return path if path.startswith("/") else f"{s.getcwd()}/{path}"


def _resolve(s: SimpleNamespace, path: str) -> tuple[str, bool]:
    """The kernel's view of a path (every symlink followed), and whether it exists."""
    if not _O_PATH:
        return os.path.realpath(path), os.path.exists(path)
    try:
        fd = s.os_open(path, _O_PATH | os.O_CLOEXEC)
    except OSError:
        parent, _, name = path.rstrip("/").rpartition("/")
        try:
            fd = s.os_open(parent or "/", _O_PATH | os.O_CLOEXEC)
        except OSError:
            return path, False
        try:
            return f"{s.readlink(f'/proc/self/fd/{fd}').rstrip('/')}/{name}", False
        finally:
            s.close(fd)
    try:
        return str(s.readlink(f"/proc/self/fd/{fd}")), True
    finally:
        s.close(fd)
