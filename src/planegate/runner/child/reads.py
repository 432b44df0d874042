"""Read tracing in the child: every repository file a test opens, and from which side.

The child's audit hook (`runner/child/audit.py`) hands each `open` event of a traced run here, with
the file already resolved to the kernel's view of it (any spelling, `..`, symlinks); a file
is kept only when it lies in the tree, and an open for writing only is not a read. The side
is that of the innermost frame of the tree on the stack, whatever library code lies between
(`json.load(open(p))` and `pandas.read_csv(p)` are read by their caller): a *test-side* frame
is a plane test module, a conftest, a test helper, any module under a test root or a file the
gate trusts as main's evidence; any other file of the tree is *production* code. Imports are
not reads, nor are source lookups: when the import system, `linecache` or `tokenize`
(tracebacks, `inspect.getsource`) sits between the open and the first frame of the tree, the
event is left out.

Reads are attributed to the test whose protocol is running; reads outside any test (module
code at collection, a session fixture's first set-up) are keyed by the reading module's own
path. A production read also names every production file of the tree on the stack (`via`):
the code a harness change comes from is main's only when nothing it read changed
(signs/compare.py `fed_by_patch`).

Every open of a locked file (`locked`: main's test files and evidence) is counted too, from
any frame: the `opens` record at the end compares with the kernel's count (runner/inotify.py).

One `reads` record per key goes over the result channel, written by the channel's own
guarded hooks (`runner/child/channel.py`) through its writer: the state below lives in the audit
state, which no patch reaches without an audited step.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from types import FrameType, SimpleNamespace
from typing import Any

from planegate.runner.child.frames import TESTS, Emit, classify, relative

TEST, PROD = "test", "prod"  # the sides, as `runner/traced.py` keeps them
_WRITE_MODES = ("w", "a", "x")
_ACCMODE, _WRONLY = os.O_ACCMODE, os.O_WRONLY


def install(s: SimpleNamespace, spec: Mapping[str, Any] | None) -> None:
    """Attach the tracing state to the audit state `s` (no tracing when `spec` is None)."""
    if spec is None:
        s.trace = None
        return
    import linecache
    import tokenize

    s.trace = SimpleNamespace(
        root=s.tree.rstrip("/") + "/",
        test_files=frozenset(spec.get("test_files", ())),
        test_dirs=tuple(folder.strip("/") + "/" for folder in spec.get("test_roots", ())),
        lookups=frozenset({linecache.__file__ or "linecache", tokenize.__file__ or "tokenize"}),
        current=[""],
        reads={},
        sides={},
        locked=frozenset(spec.get("locked", ())),
        opens={},
    )


def on_open(
    s: SimpleNamespace, frame: FrameType | None, real: str, mode: object, flags: object
) -> None:
    """Record one open event of the traced run (called by the audit hook, never raising)."""
    t = s.trace
    if not real.startswith(t.root):
        return
    count(t, real[len(t.root) :])
    if _writes_only(mode, flags):
        return
    found = _reader(s, t, frame)
    if found is None:
        return
    side, reader = found
    kept = bucket(t, t.current[0] or reader)
    path = real[len(t.root) :]
    (kept[0] if side == TEST else kept[1]).add(path)
    if side == PROD:
        kept[3].setdefault(path, set()).update(_via(s, t, frame))


def count(t: SimpleNamespace, path: str) -> None:
    """One open of a tree file, from any frame and for any purpose (an import, pytest's own
    read of a test file, `sqlite3.connect`): the kernel's count of the locked ones
    (`runner/inotify.py`) is compared with these."""
    if path in t.locked:
        t.opens[path] = t.opens.get(path, 0) + 1


def bucket(
    t: SimpleNamespace, key: str
) -> tuple[set[str], set[str], dict[Any, str], dict[str, set[str]]]:
    """What `key` read (test side, production), started (`runner/child/launches.py`) and, for
    each production read, the production files of the tree on its stack."""
    found: tuple[set[str], set[str], dict[Any, str], dict[str, set[str]]] | None = t.reads.get(key)
    if found is None:
        found = t.reads[key] = (set(), set(), {}, {})
    return found


def _writes_only(mode: object, flags: object) -> bool:
    if isinstance(mode, str):
        return mode.startswith(_WRITE_MODES) and "+" not in mode
    return isinstance(flags, int) and flags & _ACCMODE == _WRONLY


def _reader(
    s: SimpleNamespace, t: SimpleNamespace, frame: FrameType | None
) -> tuple[str, str] | None:
    """(side, tree-relative file) of the innermost frame of the tree; None for imports, source
    lookups and opens no code of the tree asked for."""
    while frame is not None:
        filename = frame.f_code.co_filename
        if filename.startswith("<frozen importlib") or filename in t.lookups:
            return None
        found = side_of(s, t, filename)
        if found[0]:
            return found
        frame = frame.f_back
    return None


def side_of(s: SimpleNamespace, t: SimpleNamespace, filename: str) -> tuple[str, str]:
    """(side, tree-relative path) of a code file, or ('', '') outside the tree; cached."""
    found: tuple[str, str] | None = t.sides.get(filename)
    if found is None:
        found = t.sides[filename] = _side(s, t, filename)
    return found


def _side(s: SimpleNamespace, t: SimpleNamespace, filename: str) -> tuple[str, str]:
    """('', '') for code outside the tree, else (side, tree-relative path). Only the name is
    looked at, as the audit hook does (`frames.classify`): no Python code that a patch could
    have replaced runs here."""
    if not filename.startswith(s.prefixes):
        return "", ""
    path = relative(s, filename)
    name = path.rsplit("/", 1)[-1]
    test_like = name == "conftest.py" or name.startswith("test_") or name.endswith("_test.py")
    if (
        test_like
        or path in t.test_files
        or path.startswith(t.test_dirs)
        or classify(s, filename) == TESTS
    ):
        return TEST, path
    return PROD, path


def _via(s: SimpleNamespace, t: SimpleNamespace, frame: FrameType | None) -> set[str]:
    """Every production file of the tree on the stack of a production read."""
    found: set[str] = set()
    while frame is not None:
        filename = frame.f_code.co_filename
        side = t.sides.get(filename)
        if side is None:
            side = t.sides[filename] = _side(s, t, filename)
        if side[0] == PROD:
            found.add(side[1])
        frame = frame.f_back
    return found


def begin(s: SimpleNamespace, nodeid: str) -> None:
    """The test whose protocol runs now ('' between tests)."""
    if s.trace is not None:
        s.trace.current[0] = nodeid


def flush(s: SimpleNamespace, emit: Emit, key: str) -> None:
    """Send what `key` (a nodeid, or a module outside any test) read, once."""
    if s.trace is None:
        return
    found = s.trace.reads.pop(key, None)
    if found is not None:
        record: dict[str, Any] = {"nodeid": key, "test": sorted(found[0]), "prod": sorted(found[1])}
        if found[2]:
            record["procs"] = [
                [*sign[:4], shown, list(sign[4])] for sign, shown in sorted(found[2].items())
            ]
        record["via"] = {path: sorted(readers) for path, readers in sorted(found[3].items())}
        emit("reads", record)


def flush_all(s: SimpleNamespace, emit: Emit) -> None:
    """At the end of the session, before the closing record: whatever is left."""
    if s.trace is None:
        return
    for key in sorted(s.trace.reads):
        flush(s, emit, key)
    emit("opens", {"counts": dict(sorted(s.trace.opens.items()))})
