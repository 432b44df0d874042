"""Processes started and foreign functions loaded by production code, on a traced run.

A program the production code starts (`cat`, `find ... -exec cat`, `sh -c` with a path built
at run time) or a C function it calls through ctypes (libc's `open` and `read`) reads files
that no `open` audit event shows: read tracing (`runner/child/reads.py`) cannot see them. What
the audit hook does see is the start and the load: `subprocess.Popen`, `os.exec`,
`os.posix_spawn`, `os.spawn`, `os.system`, `os.fork`, `os.forkpty`; `ctypes.dlopen`,
`ctypes.dlsym` (a symbol of any library but the interpreter's own, which is tampering:
`audit.py`), `ctypes.dlsym/handle` and `ctypes.call_function`.

Each is attributed to the first production frame on the stack (a file of the tree that is not
main's evidence, as the audit hook tells them apart: `frames.classify`; a module the patch
names like a test is production here), with the production frames that called it,
whatever library code lies between
(`multiprocessing`, `ctypes.util.find_library`, `CDLL.__getattr__`), down to pytest's test loop.
A start with only test-side frames of the tree on the stack is the test's own and is not kept;
one with no frame of the tree at all (a thread started on `subprocess.run` itself, say) is kept
without a place. Kept per key, as reads are (the running test, else the starting module), and
sent with that key's `reads` record: (event, program or symbol, file, line, the production
callers' files and lines) and the first command line seen there. The parent compares them
with main's (`signs/spawned.py`).

Only plain values of the event's arguments are read (str, bytes, int, lists of them): no code
of the patch runs here (`os.fspath` of a path object would call its `__fspath__`).
"""

from __future__ import annotations

from types import FrameType, SimpleNamespace
from typing import Any

from planegate.runner.child.frames import PRODUCTION, TESTS, classify, relative
from planegate.runner.child.reads import bucket

PROCESS_EVENTS = frozenset(
    {"subprocess.Popen", "os.exec", "os.posix_spawn", "os.spawn", "os.system", "os.fork",
     "os.forkpty"}
)  # fmt: skip
FOREIGN_EVENTS = frozenset(
    {"ctypes.dlopen", "ctypes.dlsym", "ctypes.dlsym/handle", "ctypes.call_function"}
)
MAX_KEPT = 40  # distinct starts kept per key; one more is kept as "more"
MAX_CALLERS = 9  # the starting line and up to eight production callers
SHOWN = 160
OUTSIDE_TESTS = "(outside any test)"


def on_event(
    s: SimpleNamespace, frame: FrameType | None, event: str, args: tuple[Any, ...]
) -> None:
    """Keep one start or load of a traced run (called by the audit hook, never raising)."""
    t = s.trace
    if t is None:
        return
    places = _starters(s, frame)
    if places is None:
        return
    path, line = places[0] if places else ("", 0)
    key = t.current[0] or path or OUTSIDE_TESTS
    kept: dict[tuple[Any, ...], str] = bucket(t, key)[2]
    name, shown = _what(event, args)
    callers = tuple(f"{p}:{n}" for p, n in places[1:MAX_CALLERS])
    sign: tuple[Any, ...] = (event, name, path, line, callers)
    if sign in kept:
        return
    if len(kept) >= MAX_KEPT:
        sign, shown = ("more", "", "", 0, ()), f"more than {MAX_KEPT} distinct starts"
    kept.setdefault(sign, _untreed(s, shown))


def _starters(s: SimpleNamespace, frame: FrameType | None) -> list[tuple[str, int]] | None:
    """(file, line) of each production frame, the first one first: the line that started it,
    then its production callers (a line of the patch calling main's own helper is the
    patch's start). Empty with no frame of the tree at all; None when only frames of main's
    evidence are there."""
    tests = False
    found: list[tuple[str, int]] = []
    bottom = s.bottom
    while frame is not None:
        code = frame.f_code
        if code is bottom:
            break
        kind = classify(s, code.co_filename)
        if kind == PRODUCTION:
            found.append((relative(s, code.co_filename), frame.f_lineno or 0))
        tests = tests or kind == TESTS
        frame = frame.f_back
    return None if tests and not found else found


def _what(event: str, args: tuple[Any, ...]) -> tuple[str, str]:
    """(program or symbol, what to show a reviewer) of one event's arguments."""
    if event == "subprocess.Popen":  # (executable, args, cwd, env)
        argv = _argv(args[1] if len(args) > 1 else None)
        program = _text(args[0]) if args and args[0] is not None else (argv[:1] or [""])[0]
        return _base(program), " ".join(argv) or program
    if event in ("os.exec", "os.posix_spawn"):  # (path, argv, env)
        argv = _argv(args[1] if len(args) > 1 else None)
        program = _text(args[0]) if args else ""
        return _base(program), " ".join(argv) or program
    if event == "os.spawn":  # (mode, path, args, env)
        program = _text(args[1]) if len(args) > 1 else ""
        return _base(program), " ".join(_argv(args[2] if len(args) > 2 else None)) or program
    if event == "os.system":  # the shell runs the command
        command = _text(args[0]) if args else ""
        return "sh", command
    if event in ("os.fork", "os.forkpty"):
        return "", "a copy of the interpreter"
    if event == "ctypes.dlopen":
        library = "" if not args or args[0] is None else _text(args[0])
        return _base(library) or "(the process itself)", library or "dlopen(NULL)"
    if event in ("ctypes.dlsym", "ctypes.dlsym/handle"):
        symbol = args[1] if len(args) > 1 else ""
        name = str(symbol) if type(symbol) in (str, int) else _text(symbol)
        return name, name
    return "by address", "a C function called by its address"


def _argv(value: object) -> list[str]:
    if type(value) in (list, tuple):
        return [_text(item) for item in value]  # type: ignore[attr-defined]
    return [_text(value)] if value is not None else []


def _text(value: object) -> str:
    if type(value) is str:
        return value
    if type(value) is bytes:
        return value.decode("utf-8", "replace")
    kind = type(value)
    return f"<{kind.__name__ if type(kind) is type else 'object'}>"


def _base(program: str) -> str:
    return program.rstrip("/").rsplit("/", 1)[-1]


def _untreed(s: SimpleNamespace, shown: str) -> str:
    """The command line without the tree's own folder (each run has its own), cut short."""
    for prefix in s.prefixes:
        shown = shown.replace(prefix, "")
    return shown if len(shown) <= SHOWN else shown[: SHOWN - 3] + "..."
