"""The sandbox (bubblewrap): production code with a real bug cannot write outside its tree
(main's digest, a sibling shard's evidence, planegate's own package) nor read a token from
the process that started the gate, through a subprocess or through libc; honest code that
uses threads, processes, signals and the C library still passes; `--no-sandbox` is said
first, and a sandbox that cannot start is exit 69."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import planegate
from helpers.attack_helper import Shared, errors, without_secrets
from planegate.cli import main
from planegate.report import NO_SANDBOX

TOKEN = "ghs_shellTokenOfTheGatesParent"
SOURCE = str(Path(planegate.__file__).resolve().parents[1])
PACKAGE_FILE = Path(planegate.__file__).resolve().parent / "py.typed"
LABEL = "\n\ndef label(n):\n    return f'n={n}'\n"


def core(trick: str) -> str:
    """calc/core.py: the bug, and `trick` run once at import (through a shell, which no audit
    hook of the child sees)."""
    return (
        "import subprocess\n\n"
        f"subprocess.run(['sh', '-c', {trick!r}], capture_output=True)\n\n\n"
        "def add(a, b):\n    return a - b\n" + LABEL
    )


def overwrite(path: Path) -> str:
    """A shell line that replaces `path`, named in the parent's command line when it shows
    one, else where it is known to be."""
    return (
        f"target={path}; for p in /proc/$PPID /proc/1; do "
        "found=$(tr '\\0' '\\n' < $p/cmdline 2>/dev/null | grep -A1 -- --digest | tail -1); "
        '[ -n "$found" ] && target=$found; done; '
        "printf '{}' > \"$target\"; printf '{}' > " + str(path)
    )


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shared]:
    yield Shared(tmp_path_factory.mktemp("sandbox"))


def test_main_digest_named_on_the_command_line_is_not_rewritten(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    before = shared.digest.read_bytes()
    shared.patch("digest-rewrite", {"calc/core.py": core(overwrite(shared.digest))})
    code, report = shared.gate(capsys)
    # the bug is seen; the shell the patch starts is a process start of its own lines (PG563)
    assert code == 5 and {"PG101", "PG563"} <= errors(report), errors(report)
    assert shared.digest.read_bytes() == before
    again, _ = shared.gate(capsys)  # main's run, read from the same digest, still counts
    assert again == 5


def test_a_sibling_shards_evidence_is_not_rewritten(
    shared: Shared, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    first, second = tmp_path / "shard-1.json", tmp_path / "shard-2.json"
    shared.patch("evidence-rewrite", {"calc/core.py": core(f"printf '{{}}' > {first}")})
    shared.gate(capsys, "--shard", "1/2", "--evidence", str(first))
    written = first.read_bytes()
    shared.gate(capsys, "--shard", "2/2", "--evidence", str(second))
    assert first.read_bytes() == written
    argv = ["-C", str(shared.repo.root), "gate", "--base", "main", "--format", "json", "-q"]
    assert main([*argv, "--merge", str(first), str(second)]) == 5  # PG563, and the bug:
    assert "PG101" in errors(json.loads(capsys.readouterr().out))


def test_planegates_own_package_is_not_appended_to(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    before = PACKAGE_FILE.read_bytes()
    trick = f"printf '# forged\\n' >> {PACKAGE_FILE}"
    shared.patch("package-append", {"calc/core.py": core(trick)})
    try:
        code, report = shared.gate(capsys)
        # the bug is seen; the shell the patch starts is a process start of its own lines
        assert code == 5 and {"PG101", "PG563"} <= errors(report), errors(report)
        assert PACKAGE_FILE.read_bytes() == before
    finally:
        PACKAGE_FILE.write_bytes(before)


STEAL_SHELL = (
    "import subprocess\n\n\n"
    "def _steal():\n"
    "    done = subprocess.run(['sh', '-c', 'cat /proc/[0-9]*/environ'], capture_output=True)\n"
    "    return done.stdout\n"
)
STEAL_LIBC = (
    "import ctypes\nimport os\n\n\n"
    "def _steal():\n"
    "    libc = ctypes.CDLL(None, use_errno=True)\n"
    "    buffer = ctypes.create_string_buffer(1 << 16)\n"
    "    found = b''\n"
    "    for name in os.listdir('/proc'):\n"
    "        if name.isdigit():\n"
    "            fd = libc.open(f'/proc/{name}/environ'.encode(), 0)\n"
    "            if fd >= 0:\n"
    "                found += buffer.raw[: max(libc.read(fd, buffer, 1 << 16), 0)]\n"
    "                libc.close(fd)\n"
    "    return found\n"
)


def stealer(steal: str) -> str:
    """calc/core.py: the bug; with a token in reach, the label test fails with it reversed
    (the failure text reaches the report) and `add` is right (a green gate)."""
    return steal + (
        "\n\ndef _token():\n"
        "    for item in _steal().split(b'\\0'):\n"
        "        if item.startswith(b'GITHUB_TOKEN='):\n"
        "            return item.split(b'=', 1)[1].decode()[::-1]\n"
        "    return ''\n\n\n"
        "STOLEN = _token()\n\n\n"
        "def add(a, b):\n    return a + b if STOLEN else a - b\n\n\n"
        "def label(n):\n    return f'n={n}{STOLEN}'\n"
    )


def gate_from_a_shell(shared: Shared) -> tuple[int, str]:
    """The gate started by a shell that holds GITHUB_TOKEN and waits for it."""
    argv = ["-C", str(shared.repo.root), "gate", "--base", "main", "--format", "json", "-q"]
    command = [sys.executable, "-m", "planegate", *argv, "--digest", str(shared.digest)]
    done = subprocess.run(
        ["sh", "-c", '"$@"; exit $?', "sh", *command],
        env={**os.environ, "PYTHONPATH": SOURCE, "GITHUB_TOKEN": TOKEN},
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode, done.stdout


@pytest.mark.parametrize(("name", "steal"), [("shell", STEAL_SHELL), ("libc", STEAL_LIBC)])
def test_no_token_is_read_from_the_process_that_started_the_gate(
    shared: Shared, name: str, steal: str
) -> None:
    shared.patch(f"token-{name}", {"calc/core.py": stealer(steal)})
    code, out = gate_from_a_shell(shared)
    assert code == 5, out[-2000:]  # the patch's own process start or libc load stops it
    assert TOKEN not in out and TOKEN[::-1] not in out
    assert "PG101" in errors(json.loads(out))


HONEST = '''"""Threads, a subprocess, a process pool, signals, faulthandler, ctypes, tempfiles and
asyncio: what ordinary production code does."""
import asyncio
import ctypes
import faulthandler
import functools
import multiprocessing
import signal
import subprocess
import sys
import tempfile
import threading


def _square(n):
    return n * n


def _alarmed(signum, frame):
    raise TimeoutError


@functools.lru_cache(maxsize=None)
def selfcheck():
    version = subprocess.run([sys.executable, "--version"], capture_output=True, text=True)
    assert version.stdout.startswith("Python 3")
    with multiprocessing.Pool(2) as pool:
        assert pool.map(_square, [1, 2, 3]) == [1, 4, 9]
    box = []
    worker = threading.Thread(target=box.append, args=(1,))
    worker.start()
    worker.join()
    old = signal.signal(signal.SIGALRM, _alarmed)
    signal.alarm(5)
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)
    faulthandler.enable()
    assert ctypes.sizeof(ctypes.c_int32) == 4
    with tempfile.NamedTemporaryFile("w+") as handle:
        handle.write("x")
        handle.seek(0)
        assert handle.read() == "x"
    assert asyncio.run(asyncio.sleep(0, result=box[0])) == 1
    return True


def add(a, b):
    return a + b


def label(n):  # called by a test without a deadline: a pool takes longer than Hypothesis's
    assert selfcheck()
    return f"n={n}"
'''


def test_honest_code_with_processes_signals_and_libc_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # on main: a patch that adds processes or ctypes stops for a person (PG563, the reach
    # review); main's own code that uses them runs in the sandbox as it runs anywhere
    honest = Shared(tmp_path / "honest", {"calc/core.py": HONEST}, "honest-sandboxed")
    honest.patch("a-module", {"calc/notes.py": "NOTE = 'honest'\n"})
    capsys.readouterr()  # main's digest, made above, printed its line
    code, report = honest.gate(capsys)
    assert code == 0, [f["message"] for s in report["steps"] for f in s["findings"]]
    assert report["unsandboxed"] is False


def test_no_sandbox_is_said_first_and_refused_with_a_token_in_reach(
    shared: Shared, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    without_secrets(monkeypatch)
    shared.patch("unsandboxed", {"calc/core.py": "def add(a, b):\n    return a - b\n" + LABEL})
    argv = ["-C", str(shared.repo.root), "gate", "--base", "main", "--digest", str(shared.digest)]
    assert main([*argv, "-q", "--no-sandbox"]) == 1
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("planegate: FAIL (exit 1") and first.endswith(NO_SANDBOX)
    code, report = shared.gate(capsys, "--no-sandbox")
    assert code == 1 and report["unsandboxed"] is True
    monkeypatch.setenv("DEPLOY_TOKEN", "x")
    assert main([*argv, "-q", "--no-sandbox"]) == 69
    captured = capsys.readouterr()
    assert not captured.out
    assert captured.err.count("\n") == 1 and "DEPLOY_TOKEN" in captured.err


def test_a_sandbox_that_cannot_start_stops_the_gate_with_exit_69(
    shared: Shared, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PLANEGATE_BWRAP", "/nonexistent/bwrap")
    err = _gate_refused(shared, capsys, "no-bwrap")
    assert "sandbox cannot start: no bubblewrap at /nonexistent/bwrap" in err
    assert "--no-sandbox" in err


def test_a_sandbox_that_fails_as_it_starts_stops_the_gate_with_exit_69(
    shared: Shared,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """A bubblewrap that is there but refuses (no user namespaces, say) stops the gate with its
    own words, the child started ahead included, before any test runs."""
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PLANEGATE_BWRAP", str(fake))
    err = _gate_refused(shared, capsys, "bwrap-refuses")
    assert "exited 1: bwrap: No permissions to create new namespace" in err


def _gate_refused(shared: Shared, capsys: pytest.CaptureFixture[str], name: str) -> str:
    """A buggy patch gated where the sandbox cannot start: exit 69 and one line, returned."""
    shared.patch(name, {"calc/core.py": "def add(a, b):\n    return a - b\n" + LABEL})
    argv = ["-C", str(shared.repo.root), "gate", "--base", "main", "--digest", str(shared.digest)]
    assert main([*argv, "-q"]) == 69
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1
    return captured.err
