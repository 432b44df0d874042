"""The `planegate` process ends without the interpreter's teardown (exiting.py), and loses
nothing by it: its output, its exit code, its `atexit` handlers (the scratch folder of merge
objects); the normal exit is kept under a tracer and while a thread that is not a daemon runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import planegate
from helpers.repo_helper import TestRepo

SOURCE = str(Path(planegate.__file__).resolve().parents[1])

# a module-level object whose finalizer prints: it runs in the interpreter's teardown only
PROGRAM = """\
import atexit, os, sys, threading, time
from planegate.exiting import leave

class Torn:
    def __del__(self, write=os.write):
        write(1, b"teardown\\n")

torn = Torn()
atexit.register(print, "atexit")
print("x" * 200_000, end="")  # more than a pipe holds, still in the buffer
print()
mode = sys.argv[1]
if mode == "traced":
    sys.settrace(lambda *args: None)
elif mode == "thread":
    threading.Thread(target=time.sleep, args=(0.3,)).start()
elif mode == "daemon":
    threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
leave(3)
"""


def _env(**extra: str) -> dict[str, str]:
    path = os.pathsep.join([SOURCE, os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "PYTHONPATH": path, **extra}


def _leave(mode: str) -> tuple[int, list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, mode],
        env=_env(),
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert lines[0] == "x" * 200_000  # the buffered output is all there
    return done.returncode, lines[1:]


def test_the_fast_exit_runs_the_atexit_handlers_and_skips_the_teardown() -> None:
    assert _leave("plain") == (3, ["atexit"])
    assert _leave("daemon") == (3, ["atexit"])  # a daemon thread is killed by any exit


def test_a_tracer_or_a_running_thread_keeps_the_normal_exit() -> None:
    assert _leave("traced") == (3, ["atexit", "teardown"])
    assert _leave("thread") == (3, ["atexit", "teardown"])


def test_a_gate_through_the_process_leaves_nothing_behind(
    project: TestRepo, tmp_path: Path
) -> None:
    project.branch("patch")
    project.commit("patch", {"calc/core.py": "def add(a, b):\n    return b + a\n"})
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "planegate", "gate", "--base", "main", "--format", "json"],
        cwd=project.root,
        env=_env(TMPDIR=str(scratch)),
        capture_output=True,
        text=True,
        check=False,
    )
    report = json.loads(done.stdout)  # the whole report reached the pipe
    assert done.returncode == report["exit_code"]
    assert list(scratch.iterdir()) == []  # the merge objects' folder went with the atexit handler
