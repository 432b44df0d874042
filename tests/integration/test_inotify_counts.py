"""The kernel's count of the locked files' opens (runner/inotify.py), whoever opens them."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from planegate.runner import inotify


def test_every_open_of_a_locked_file_is_counted_whoever_makes_it(tmp_path: Path) -> None:
    (tmp_path / "tests" / "data").mkdir(parents=True)
    golden, other = tmp_path / "tests" / "data" / "g.txt", tmp_path / "tests" / "data" / "o.txt"
    golden.write_text("g", "utf-8")
    other.write_text("o", "utf-8")
    (tmp_path / "top.txt").write_text("t", "utf-8")
    locked = ["tests/data/g.txt", "top.txt", "gone/never.txt"]
    with inotify.watching(tmp_path, locked) as found:
        golden.read_text("utf-8")
        subprocess.run(["cat", str(golden), str(other), str(tmp_path / "top.txt")], check=True)
        subprocess.run(["ls", str(golden.parent)], check=True, capture_output=True)
        os.close(os.open(golden, os.O_PATH))  # a path handle opens nothing
        assert found == []  # the result comes when the block is left
    (opens,) = found
    assert opens == inotify.Opens({"tests/data/g.txt": 2, "top.txt": 1})
    assert opens.known


def test_nothing_locked_watches_nothing(tmp_path: Path) -> None:
    with inotify.watching(tmp_path, []) as found:
        (tmp_path / "a").write_text("a", "utf-8")
    assert found == [inotify.Opens()]


def test_opens_in_a_row_stay_apart_while_nothing_reads_the_queue(tmp_path: Path) -> None:
    """The kernel merges an event into the unread one before it when both are the same: the
    closes the watch also asks for keep one file's opens apart (a loaded machine's late
    reader counted two opens as one)."""
    golden = tmp_path / "g.txt"
    golden.write_text("g", "utf-8")
    watch = inotify._Watch(tmp_path, ["g.txt"])
    libc = inotify._libc()
    assert libc is not None
    fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mask = inotify.IN_OPEN | inotify.IN_CLOSE
        wd = libc.inotify_add_watch(fd, os.fsencode(tmp_path), mask)
        watch.names[wd] = ("", frozenset({"g.txt"}))
        for _ in range(3):  # nothing reads the queue in between
            golden.read_bytes()
        watch._parse(os.read(fd, 65536))
    finally:
        os.close(fd)
    assert watch.counts == {"g.txt": 3}
