"""Read tracing in the child: every repository file a test opens, and from which side.

An audit hook sees each `open` event. The file is resolved to its real path (any spelling,
`..`, symlinks) and kept only when it lies in the tree. The side is that of the innermost
frame of the tree on the stack, whatever library code lies between (`json.load(open(p))`
and `pandas.read_csv(p)` are read by their caller): a *test-side* frame is a plane test
module, a conftest, a test helper or any module under a test root; any other file of the
tree is *production* code. Imports are not reads, nor are source lookups: when the import
system, `linecache` or `tokenize` (tracebacks, `inspect.getsource`) sits between the open and
the first frame of the tree, the event is left out.

Reads are attributed to the test whose protocol is running; reads outside any test (module
code at collection, a session fixture's first set-up) are keyed by the reading module's own
path. One `reads` record per key goes over the result channel.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Generator, Iterable, Mapping
from types import FrameType
from typing import Any

import pytest

from planegate.runner.traced import PROD, TEST

Send = Callable[..., None]
# Modules that read source code to show it (tracebacks, inspect, Hypothesis' reports): their
# opens are not the test reading data.
SOURCE_LOOKUPS = frozenset({"linecache", "tokenize"})
_WRITE_ONLY = ("w", "a", "x")


def plugins(send: Send, tree: str, spec: Mapping[str, Any] | None) -> list[object]:
    """The tracing plugin when the run asks for it (the child registers what this returns)."""
    if spec is None:
        return []
    return [ReadsPlugin(send, tree, spec.get("test_files", ()), spec.get("test_roots", ()))]


def _looks_up_source(frame: FrameType) -> bool:
    return frame.f_globals.get("__name__") in SOURCE_LOOKUPS


class ReadsPlugin:
    def __init__(
        self, send: Send, tree: str, test_files: Iterable[str], test_roots: Iterable[str]
    ) -> None:
        self._send = send
        self._tree = os.path.realpath(tree)
        self._prefix = self._tree + os.sep
        self._test_files = {os.path.join(self._tree, path) for path in test_files}
        self._test_dirs = tuple(os.path.join(self._tree, root) + os.sep for root in test_roots)
        self._current = ""
        self._reads: dict[str, tuple[set[str], set[str]]] = {}
        self._paths: dict[str, str | None] = {}
        self._sides: dict[str, str | None] = {}
        sys.addaudithook(self._hook)

    def _hook(self, event: str, args: tuple[Any, ...]) -> None:
        if event != "open" or not args:
            return
        try:
            self._record(args)
        except Exception:  # tracing must never change what the test sees
            return

    def _record(self, args: tuple[Any, ...]) -> None:
        mode = args[1] if len(args) > 1 and isinstance(args[1], str) else "r"
        if mode.startswith(_WRITE_ONLY) and "+" not in mode:
            return
        path = self._relative(args[0])
        if path is None:
            return
        found = self._reader(sys._getframe(2))
        if found is None:
            return
        side, reader = found
        key = self._current or reader
        bucket = self._reads.setdefault(key, (set(), set()))
        bucket[0 if side == TEST else 1].add(path)

    def _relative(self, raw: object) -> str | None:
        """The tree-relative real path of an opened file, None outside the tree."""
        if isinstance(raw, bytes):
            raw = os.fsdecode(raw)
        if not isinstance(raw, str):
            return None  # a file descriptor
        absolute = raw if os.path.isabs(raw) else os.path.join(os.getcwd(), raw)
        if absolute not in self._paths:
            real = os.path.realpath(absolute)
            inside = real.startswith(self._prefix)
            self._paths[absolute] = real[len(self._prefix) :] if inside else None
        return self._paths[absolute]

    def _reader(self, frame: FrameType | None) -> tuple[str, str] | None:
        """(side, tree-relative file) of the innermost frame of the tree; None for imports
        and for opens no code of the tree asked for."""
        while frame is not None:
            filename = frame.f_code.co_filename
            if filename.startswith("<frozen importlib") or _looks_up_source(frame):
                return None
            side = self._side(filename)
            if side is not None:
                return side, os.path.realpath(filename)[len(self._prefix) :]
            frame = frame.f_back
        return None

    def _side(self, filename: str) -> str | None:
        if filename not in self._sides:
            real = os.path.realpath(filename) if os.path.isabs(filename) else ""
            self._sides[filename] = self._classify(real)
        return self._sides[filename]

    def _classify(self, real: str) -> str | None:
        if not real.startswith(self._prefix):
            return None
        name = os.path.basename(real)
        test_like = name == "conftest.py" or name.startswith("test_") or name.endswith("_test.py")
        if test_like or real in self._test_files or real.startswith(self._test_dirs):
            return TEST
        return PROD

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, None, None]:
        self._current = item.nodeid
        yield
        self._flush(item.nodeid)
        self._current = ""

    def pytest_sessionfinish(self) -> None:
        for key in sorted(self._reads):
            self._flush(key)

    def _flush(self, key: str) -> None:
        bucket = self._reads.pop(key, None)
        if bucket is not None:
            self._send("reads", nodeid=key, test=sorted(bucket[0]), prod=sorted(bucket[1]))
