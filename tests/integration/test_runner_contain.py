"""Containment with real processes: descendants die whatever their session, the parent is not
dumpable during a run, and what a run leaves in the interpreter's folders or the tree is found.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers.processes import alive
from planegate.runner import contain

DAEMON = """
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                         start_new_session=True)
open(sys.argv[1], "w").write(str(child.pid))
os._exit(0)  # the daemon is orphaned at once: re-parented to the subreaper
"""


def test_an_orphan_in_its_own_session_is_killed_and_reaped(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    with contain.guarded() as before:
        assert contain._prctl_get(contain.PR_GET_DUMPABLE) == 0
        proc = subprocess.Popen([sys.executable, "-c", DAEMON, str(pid_file)])
        proc.wait()
        for _ in range(100):
            if pid_file.exists() and pid_file.read_text():
                break
            time.sleep(0.05)
        orphan = int(pid_file.read_text())
        assert alive(orphan)
        assert contain.kill_descendants(proc.pid, before) == 1
    assert not alive(orphan)
    with pytest.raises(ProcessLookupError):
        os.kill(orphan, 0)  # reaped: no zombie left behind
    assert contain._prctl_get(contain.PR_GET_DUMPABLE) == 1


def test_overlapping_runs_keep_the_guard_and_each_other_s_child() -> None:
    """The base's collection runs in a thread alongside the head's run: the run that ends
    first kills nothing of the other's (started after its own), and the guard holds until
    the last run ends, whichever order they end in."""
    sleeper = [sys.executable, "-c", "import time; time.sleep(60)"]
    first, second = contain.guarded(), contain.guarded()
    before_first = first.__enter__()
    early = contain.launch(lambda: subprocess.Popen(sleeper, start_new_session=True))
    before_second = second.__enter__()
    late = contain.launch(lambda: subprocess.Popen(sleeper, start_new_session=True))
    assert late.pid not in before_first
    early.kill()
    early.wait()
    assert contain.kill_descendants(early.pid, before_first) == 0
    first.__exit__(None, None, None)
    assert alive(late.pid)
    assert contain._prctl_get(contain.PR_GET_DUMPABLE) == 0
    assert contain._prctl_get(contain.PR_GET_CHILD_SUBREAPER) == 1
    late.kill()
    late.wait()
    assert contain.kill_descendants(late.pid, before_second) == 0
    second.__exit__(None, None, None)
    assert contain._prctl_get(contain.PR_GET_DUMPABLE) == 1


def _sleeper(session: bool) -> subprocess.Popen[bytes]:
    code = "import time; time.sleep(60)"
    return subprocess.Popen([sys.executable, "-c", code], start_new_session=session)


def test_overlapping_runs_spare_each_other_and_the_gates_own_children() -> None:
    """The base's run beside the head's: the first run to end kills its own child only; the
    settings hold until the last run ends; a child of the gate in its own session (git,
    started during a run) is not taken for something a run left behind."""
    with contain.guarded() as first:
        one = contain.launch(lambda: _sleeper(True))
        with contain.guarded() as second:
            two = contain.launch(lambda: _sleeper(True))
            gate_own = _sleeper(False)
            assert contain.kill_descendants(one.pid, first) == 0
            one.wait()
            assert alive(two.pid) and alive(gate_own.pid)
        assert contain._prctl_get(contain.PR_GET_DUMPABLE) == 0  # one guard still holds
        assert contain.kill_descendants(two.pid, second) == 0
        two.wait()
        assert alive(gate_own.pid)
    assert contain._prctl_get(contain.PR_GET_DUMPABLE) == 1
    gate_own.kill()
    gate_own.wait()


def test_the_result_stream_pipe_holds_a_megabyte_where_the_kernel_allows() -> None:
    """On a busy machine the parent's reader runs late in bursts; a 64 KiB pipe then stops
    the child in its write after a few hundred tests' records."""
    import fcntl

    from planegate.runner import launch

    allowed = int(Path("/proc/sys/fs/pipe-max-size").read_text("utf-8"))
    read, write = os.pipe()
    try:
        launch.widen(write)
        size = fcntl.fcntl(write, getattr(fcntl, "F_GETPIPE_SZ", 1032))
    finally:
        os.close(read)
        os.close(write)
    assert size >= min(launch.PIPE_SIZE, allowed) > 64 * 1024


def _direct_answer() -> bool:
    """The user check made the old way: one process, waited for at once."""
    try:
        done = subprocess.run(
            [sys.executable, "-s", "-c", "import pytest, planegate.runner.child.main"],
            user=contain.NOBODY,
            group=contain.NOBODY,
            extra_groups=[],
            cwd="/",
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
            capture_output=True,
            check=False,
        )
    except OSError:  # that user cannot start this interpreter at all
        return False
    return done.returncode == 0


def test_a_root_parent_starts_the_user_check_ahead_and_keeps_its_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(contain, "_EARLY", {})
    contain._nobody_runs_python.cache_clear()
    try:
        contain.start_user_check({"PLANEGATE_CHILD_USER": "1000:1000"})
        assert contain._EARLY == {}  # the child's user is configured: no check is made
        contain.start_user_check({})
        if os.geteuid() != 0:
            assert contain._EARLY == {}  # only a root parent switches the child's user
            return
        early = contain._EARLY["nobody"]  # None: the process could not start as that user
        assert early is None or "import pytest" in str(early.args)
        contain.start_user_check({})  # once: a second gate start reuses the first process
        assert contain._EARLY["nobody"] is early
        assert contain._nobody_runs_python() is _direct_answer()
        assert contain._EARLY == {} and (early is None or early.returncode is not None)
        contain.start_user_check({})  # the answer is known: nothing starts again
        assert contain._EARLY == {}
    finally:
        contain._nobody_runs_python.cache_clear()
