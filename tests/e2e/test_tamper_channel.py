"""Forging the result channel: finding its pipe and nonce, writing a green stream, outliving
the run. Each trick is recorded before it can act, refused, or contained."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers.attack_helper import COMMUTES, Shared, errors, reviewed, tamper_named, without_secrets
from planegate.runner.sandbox import WRITABLE_VARIABLE

# add() is called by main's property test: the cheat acts in the middle of the run.
CORE = '''import importlib
import json
import os
import sys

_gc = importlib.import_module("g" + "c")
_done = []


def add(a, b):
    if not _done:
        _done.append(1)
        _cheat()
    return a - b


def label(n):
    return f"n={n}"


def _channel():
    """The writer's functions: their keyword defaults hold the pipe and the nonce."""
    fd = nonce = None
    for obj in getattr(_gc, "get_" + "objects")():
        if type(obj).__name__ == "function":
            defaults = getattr(obj, "__kw" + "defaults__") or {}
            if isinstance(defaults.get("_state"), dict) and "fd" in defaults["_state"]:
                fd = defaults["_state"]["fd"]
            nonce = defaults.get("_nonce", nonce)
    return fd, nonce


def _find(kind):
    return [o for o in getattr(_gc, "get_" + "objects")() if type(o).__name__ == kind]
'''
FORGE_STREAM = (
    CORE
    + """

def _cheat():
    fd, nonce = _channel()
    session = _find("Session")[0]

    def send(kind, **fields):
        os.write(fd, (json.dumps({"nonce": nonce, "kind": kind, **fields}) + "\\n").encode())

    for item in session.items:
        source = importlib.import_module("ins" + "pect").getsource(item.function)
        outcome = "failed" if "== 3" in source else "passed"
        for when in ("setup", "call", "teardown"):
            send("report", nodeid=item.nodeid, when=when, duration=0.0, wasxfail=False,
                 outcome=outcome if when == "call" else "passed", message="")
    send("end", exitstatus=0, testscollected=len(session.items))
    getattr(os, "_ex" + "it")(0)
"""
)
PROC_FD = (
    CORE
    + """

def _cheat():
    import stat
    try:
        fds = [int(name) for name in os.listdir("/proc/self/" + "fd")]
    except OSError:
        fds = list(range(3, 64))
    for fd in fds:
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                os.write(fd, b'{"kind": "end", "exitstatus": 0}\\n')
        except OSError:
            pass
    getattr(os, "_ex" + "it")(0)
"""
)
PROC_MEM = (
    CORE
    + """

def _cheat():
    try:
        with open("/proc/self/" + "mem", "rb") as memory:
            memory.read(1)
    except OSError:
        pass
"""
)
HOOK_CALL = (
    CORE
    + """

class _Report:
    nodeid, when, outcome, duration = "NODEID", "call", "passed", 0.0
    longreprtext, failed, skipped = "", False, False


def _cheat():
    plugin = [m for m in _find("module") if getattr(m, "__name__", "") == "results"][0]
    getattr(plugin, "pytest_runtest_" + "logreport")(_Report())
"""
).replace("NODEID", COMMUTES)
HOOK_THREAD = HOOK_CALL.replace(
    '    getattr(plugin, "pytest_runtest_" + "logreport")(_Report())\n',
    "    import threading\n\n"
    '    hook = getattr(plugin, "pytest_runtest_" + "logreport")\n'
    "    thread = threading.Thread(target=hook, args=(_Report(),))\n"
    "    thread.start()\n    thread.join()\n",
)

# The read-tracing hook (runner/child/reads.py): started by hand, it would move the reads of the
# running test onto another key.
HOOK_TRACE = HOOK_CALL.replace(
    '    getattr(plugin, "pytest_runtest_" + "logreport")(_Report())\n',
    '    steps = getattr(plugin, "pytest_runtest_" + "protocol")(_Report())\n    next(steps)\n',
).replace(COMMUTES, "elsewhere.py::test_elsewhere")


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shared]:
    yield Shared(tmp_path_factory.mktemp("channel"))


def test_a_complete_forged_stream_is_recorded_before_it_is_written(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    shared.patch("forge-stream", {"calc/core.py": FORGE_STREAM})
    code, report = shared.gate(capsys)
    assert code != 0
    tamper_named(report, "gc.get_objects (a heap walk)", "calc/core.py")
    tamper_named(report, "__kwdefaults__ of the harness's own hook read", "calc/core.py")
    tamper_named(report, "a second call report for tests/fix/test_label.py::test_label_golden")
    # the forger knew the fixed canaries' shape, not which of main's tests were sampled
    assert "PG127" in errors(report)


def test_the_pipe_found_through_proc_self_fd_is_refused(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    shared.patch("proc-fd", {"calc/core.py": PROC_FD})
    code, report = shared.gate(capsys)
    assert code != 0
    tamper_named(report, "a listing of /proc/self/fd", "calc/core.py")
    assert "PG103" in errors(report)  # the forged line had no nonce: the run never closed


def test_reading_the_childs_own_memory_is_refused(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    shared.patch("proc-mem", {"calc/core.py": PROC_MEM})
    code, report = shared.gate(capsys)
    assert reviewed(code, report)  # the reach review stops it; the run-time layer below
    tamper_named(report, "open of /proc/self/mem", "calc/core.py")
    assert "PG101" in errors(report)


@pytest.mark.parametrize(
    ("name", "cheat", "hook", "how"),
    [
        ("hook-call", HOOK_CALL, "logreport", "outside the hook machinery"),
        ("hook-thread", HOOK_THREAD, "logreport", "from"),
        ("hook-trace", HOOK_TRACE, "protocol", "outside the hook machinery"),
    ],
)
def test_calling_the_channels_own_hook_reports_nothing(
    shared: Shared,
    capsys: pytest.CaptureFixture[str],
    name: str,
    cheat: str,
    hook: str,
    how: str,
) -> None:
    shared.patch(name, {"calc/core.py": cheat})
    code, report = shared.gate(capsys)
    assert reviewed(code, report)  # the reach review stops it; the run-time layer below
    tamper_named(report, f"the result channel's pytest_runtest_{hook} was called {how}")
    assert "PG101" in errors(report)  # the forged "passed" was not taken


def test_a_daemon_in_its_own_session_is_killed_when_the_run_ends(
    shared: Shared,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(WRITABLE_VARIABLE, str(tmp_path))  # where a survivor would write
    without_secrets(monkeypatch)  # --no-sandbox refuses to run beside one
    marker, tag = tmp_path / "still-here", f"daemon-{os.getpid()}-{time.time_ns()}"
    daemon = (
        f"import time\nTAG = {tag!r}\n"
        f"time.sleep(4)\nopen({str(marker)!r}, 'w').write('outlived the run')\n"
    )
    cheat = CORE + (
        "\n\ndef _cheat():\n    import subprocess\n\n"
        f"    subprocess.Popen([sys.executable, '-c', {daemon!r}], start_new_session=True)\n"
        "    import time\n\n    time.sleep(0.5)\n"
    )
    for flag in ((), ("--no-sandbox",)):
        shared.patch(f"daemon{len(flag)}", {"calc/core.py": cheat})
        code, report = shared.gate(capsys, *flag)
        assert code == 5 and f"{COMMUTES} failed" in str(report)  # the patch's own start
        assert "PG563" in errors(report) or reviewed(code, report)
        assert not _running(tag)  # killed and reaped, whatever its session
    time.sleep(4.5)
    assert not marker.exists()


def _running(tag: str) -> list[str]:
    found = []
    for name in os.listdir("/proc"):
        try:
            command = Path(f"/proc/{name}/cmdline").read_text("utf-8", "replace")
            if name.isdigit() and tag in command:
                found.append(name)
        except OSError:
            pass
    return found


@pytest.mark.parametrize(
    ("name", "read", "event"),
    [
        ("ctypes-string", "ctypes.string_at(id(os), 8)", "ctypes.string_at"),
        ("ctypes-address", "ctypes.c_char.from_address(id(os)).value", "ctypes.cdata"),
        ("ctypes-api", "ctypes.pythonapi.Py_IncRef(ctypes.py_object(os))", "ctypes.dlsym"),
    ],
)
def test_reading_memory_through_ctypes_is_recorded(
    shared: Shared, capsys: pytest.CaptureFixture[str], name: str, read: str, event: str
) -> None:
    cheat = CORE + (
        f"\n\ndef _cheat():\n    ctypes = importlib.import_module('ct' + 'ypes')\n    {read}\n"
    )
    shared.patch(name, {"calc/core.py": cheat})
    code, report = shared.gate(capsys)
    assert reviewed(code, report) and "PG101" in errors(report)
    found = tamper_named(report, f"{event} (", "calc/core.py")
    assert found["line"] == cheat.splitlines().index(f"    {read}") + 1
