"""The kernel's count of opens of the tree's locked files while the test child runs (inotify).

The parent, outside the sandbox, watches the folders that hold the locked files (one watch
per folder, `IN_OPEN` and the closes) from just before the child starts until it and everything it
left behind are gone, and reads the events on a thread meanwhile. The kernel sees every
open of those files, whoever makes it: the test session's interpreter, a process it started
(`cat`, `sh -c`, a Python child, a program the sandbox's view let it reach), C code. The
child's audit hook counts the opens it saw (`runner/child/reads.py`); signs/unseen.py
compares the two. inotify names no process: an open by the gate itself in that window would
count too (it opens none of these files while the child runs). A full event queue
(`IN_Q_OVERFLOW`) leaves the counts unknown, and the result says so; so does a folder the
kernel would not watch (`unavailable`).

The closes are watched only to be ignored: the kernel merges an event into the one queued
before it when the two are identical and unread, so two opens of one file in a row counted
once when this thread was slow to read (a loaded machine). With each close queued between,
an open is merged only with one made while the first was still open (a test holding its
golden open while production code runs) and before this thread read it: docs/security.md.

libc through ctypes, in the parent only: no dependency, and nothing of it in the child.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import select
import struct
import sys
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

IN_OPEN, IN_Q_OVERFLOW, IN_ISDIR = 0x20, 0x4000, 0x40000000
IN_CLOSE = 0x08 | 0x10  # IN_CLOSE_WRITE | IN_CLOSE_NOWRITE: they keep the opens apart
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len; then `len` bytes of name
_BUFFER = 1 << 16


@dataclass(frozen=True)
class Opens:
    """What the kernel saw: tree-relative path -> opens (locked files opened at least once);
    `overflow`: events were lost; `unavailable`: why nothing (or not everything) was watched."""

    counts: dict[str, int] = field(default_factory=dict)
    overflow: bool = False
    unavailable: str = ""

    @property
    def known(self) -> bool:
        return not self.overflow and not self.unavailable


class _Watch:
    def __init__(self, tree: Path, locked: Iterable[str]) -> None:
        self.names: dict[int, tuple[str, frozenset[str]]] = {}
        self.counts: dict[str, int] = {}
        self.overflow, self.unavailable = False, ""
        self.fd = -1
        self.thread: threading.Thread | None = None
        self.stop_read, self.stop_write = -1, -1
        folders: dict[str, set[str]] = {}
        for path in locked:
            folder, _, name = path.rpartition("/")
            folders.setdefault(folder, set()).add(name)
        self.folders = {f: frozenset(n) for f, n in folders.items()}
        self.tree = tree

    def start(self) -> None:
        if not self.folders:
            return
        libc = _libc()
        if libc is None:
            self.unavailable = "inotify needs Linux"
            return
        fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if fd < 0:
            self.unavailable = f"inotify_init1: {os.strerror(ctypes.get_errno())}"
            return
        self.fd = fd
        for folder, names in sorted(self.folders.items()):
            target = self.tree / folder if folder else self.tree
            if not target.is_dir():
                continue  # a locked file the tree does not hold: nothing to open
            wd = libc.inotify_add_watch(fd, os.fsencode(target), IN_OPEN | IN_CLOSE)
            if wd < 0:
                self.unavailable = f"inotify_add_watch {folder or '.'}: " + os.strerror(
                    ctypes.get_errno()
                )
                continue
            self.names[wd] = (f"{folder}/" if folder else "", names)
        self.stop_read, self.stop_write = os.pipe()
        thread = self.thread = threading.Thread(target=self._loop, daemon=True)
        thread.start()

    def stop(self) -> Opens:
        if self.thread is not None:
            os.write(self.stop_write, b"x")
            self.thread.join()
            for fd in (self.stop_read, self.stop_write):
                os.close(fd)
        if self.fd >= 0:
            os.close(self.fd)
        return Opens(dict(sorted(self.counts.items())), self.overflow, self.unavailable)

    def _loop(self) -> None:
        while True:
            ready, _, _ = select.select([self.fd, self.stop_read], [], [])
            if self.fd in ready:
                self._drain()
            if self.stop_read in ready:
                self._drain()  # the child is gone: every open it made is queued by now
                return

    def _drain(self) -> None:
        while True:
            try:
                data = os.read(self.fd, _BUFFER)
            except BlockingIOError:
                return
            self._parse(data)

    def _parse(self, data: bytes) -> None:
        offset = 0
        while offset + _EVENT.size <= len(data):
            wd, mask, _cookie, size = _EVENT.unpack_from(data, offset)
            raw = data[offset + _EVENT.size : offset + _EVENT.size + size]
            offset += _EVENT.size + size
            if mask & IN_Q_OVERFLOW:
                self.overflow = True
            if not mask & IN_OPEN or mask & IN_ISDIR or wd not in self.names:
                continue
            prefix, names = self.names[wd]
            name = os.fsdecode(raw.rstrip(b"\0"))
            if name in names:
                self.counts[prefix + name] = self.counts.get(prefix + name, 0) + 1


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    libc = ctypes.CDLL(None, use_errno=True)
    libc.inotify_init1.argtypes = [ctypes.c_int]
    libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
    return libc


@contextlib.contextmanager
def watching(tree: Path, locked: Iterable[str]) -> Iterator[list[Opens]]:
    """Count the opens of `locked` (paths relative to `tree`) while the block runs; the list
    holds the `Opens` once the block is left."""
    watch, found = _Watch(tree, locked), list[Opens]()
    watch.start()
    try:
        yield found
    finally:
        found.append(watch.stop())
