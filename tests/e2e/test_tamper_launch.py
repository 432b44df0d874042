"""Production code reading a golden through another program or a C function: no `open` event
of the interpreter shows the read (PG562 cannot), but the process start or the symbol load
is seen, with the production line that made it (PG563, PG564).

`calc.core.label` has a real bug on every branch (`n + 1`), so main's fixture test fails and
the gate says exit 1 without the trick; each trick returns the golden's bytes instead. The
golden's path is built at run time, so no scan of the source sees it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from helpers.attack_helper import Shared, errors

# the golden's path, built at run time
GOLDEN = (
    "from pathlib import Path\n\n"
    "_ROOT = Path(__file__).resolve().parents[1]\n"
    "_GOLDEN = _ROOT / ('te' + 'sts') / ('fi' + 'x') / ('da' + 'ta') / ('lab' + 'el.txt')\n"
)
HEAD = "def add(a, b):\n    return a + b\n\n\n"
LABEL_BUG = HEAD + "def label(n):\n    return f'n={n + 1}'\n"
CAT = (
    "import subprocess\n" + GOLDEN + "\n\n" + HEAD + "def label(n):\n"
    "    done = subprocess.run(['cat', str(_GOLDEN)], capture_output=True, text=True)\n"
    "    return done.stdout if done.stdout else f'n={n + 1}'\n"
)
FIND = (
    "import subprocess\n" + GOLDEN + "\n\n" + HEAD + "def label(n):\n"
    "    argv = ['find', str(_ROOT), '-name', _GOLDEN.name, '-exec', 'cat', '{}', ';']\n"
    "    done = subprocess.run(argv, capture_output=True, text=True)\n"
    "    return done.stdout if done.stdout else f'n={n + 1}'\n"
)
SHELL = (
    "import os\nimport subprocess\n" + GOLDEN + "\n\n" + HEAD + "def label(n):\n"
    "    script = 'cat \"$(ls -d t*s)\"/f*/d*/l*.txt'\n"
    "    done = subprocess.run(['sh', '-c', script], capture_output=True, text=True, cwd=_ROOT)\n"
    "    return done.stdout if done.stdout else f'n={n + 1}'\n"
)
LIBC = (
    "import ctypes\n" + GOLDEN + "\n\n" + HEAD + "def label(n):\n"
    "    libc = ctypes.CDLL(None)\n"
    "    fd = libc.open(str(_GOLDEN).encode(), 0)\n"
    "    buffer = ctypes.create_string_buffer(64)\n"
    "    size = libc.read(fd, buffer, 64)\n"
    "    libc.close(fd)\n"
    "    return buffer.raw[:size].decode() if size > 0 else f'n={n + 1}'\n"
)

# no frame of the tree on the thread's stack: it runs `subprocess.run` itself
THREAD = (
    "import subprocess\nimport tempfile\nimport threading\n"
    + GOLDEN
    + "\n\n"
    + HEAD
    + "def label(n):\n"
    "    with tempfile.NamedTemporaryFile('r') as copy:\n"
    "        argv = ['cp', str(_GOLDEN), copy.name]\n"
    "        worker = threading.Thread(target=subprocess.run, args=(argv,))\n"
    "        worker.start()\n"
    "        worker.join()\n"
    "        return copy.read() or f'n={n + 1}'\n"
)


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shared]:
    yield Shared(tmp_path_factory.mktemp("launch"))


def line_of(source: str, text: str) -> int:
    return next(n for n, line in enumerate(source.splitlines(), 1) if text in line)


def named(report: dict[str, Any], rule: str) -> list[dict[str, Any]]:
    return [f for s in report["steps"] for f in s["findings"] if f["rule"] == rule]


def test_the_bug_alone_fails_the_fixture_test(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    shared.patch("label-bug", {"calc/core.py": LABEL_BUG})
    code, report = shared.gate(capsys)
    assert code == 1
    assert "PG101" in errors(report) or "PG102" in errors(report)


@pytest.mark.parametrize(
    ("name", "cheat", "at", "shown"),
    [
        ("cat", CAT, "subprocess.run(", "subprocess.Popen (cat tests/fix/data/label.txt)"),
        ("find-exec-cat", FIND, "subprocess.run(argv", "-exec cat {} ;"),
        ("sh-c", SHELL, "subprocess.run(['sh'", "subprocess.Popen (sh -c cat"),
        ("named-like-a-test", CAT, "subprocess.run(", "subprocess.Popen (cat tests/fix/data"),
    ],
)
def test_a_program_reading_the_golden_is_named_with_the_line_that_started_it(
    shared: Shared,
    capsys: pytest.CaptureFixture[str],
    name: str,
    cheat: str,
    at: str,
    shown: str,
) -> None:
    module = "calc/core.py"
    if name == "named-like-a-test":  # a production module named like a test, not collected
        module = "calc/test_label_source.py"
        cheat = cheat.replace("def add(a, b):\n    return a + b\n\n\n", "")
        core = "from calc.test_label_source import label  # noqa: F401\n\n\n" + HEAD
        shared.patch(name, {"calc/core.py": core, module: cheat})
    else:
        shared.patch(name, {module: cheat})
    code, report = shared.gate(capsys)
    if name == "named-like-a-test":
        # a file the patch adds with a test's name is the patch's claim: it runs apart and
        # never reaches main's evidence run, so the module that imports it breaks there
        assert code == 2 and "PG207" in errors(report), errors(report)
        return
    assert code == 5
    assert "PG562" not in errors(report)  # no open of the interpreter read it
    found = [f for f in named(report, "PG563") if f["severity"] == "error"]
    assert found, report
    assert found[0]["path"] == module
    assert found[0]["line"] == line_of(cheat, at)
    assert f"at {module}:{found[0]['line']}" in found[0]["message"]
    assert shown in found[0]["message"]
    assert "tests/fix/test_label.py::test_label_golden" in found[0]["message"]
    assert "PG101" not in errors(report)  # the trick worked: the test passed


def test_libc_open_and_read_through_ctypes_are_named_with_their_lines(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    shared.patch("libc", {"calc/core.py": LIBC})
    code, report = shared.gate(capsys)
    assert code == 5
    found = {
        (f["line"], f["message"].split(": ", 1)[1].split(" at ")[0])
        for f in named(report, "PG564")
        if f["severity"] == "error" and f["path"] == "calc/core.py"
    }
    assert found >= {
        (line_of(LIBC, "CDLL(None)"), "ctypes.dlopen of (the process itself)"),
        (line_of(LIBC, "libc.open("), "ctypes.dlsym of open"),
        (line_of(LIBC, "libc.read("), "ctypes.dlsym of read"),
    }
    assert "PG101" not in errors(report)


def test_a_thread_started_on_subprocess_itself_is_the_patchs_start(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    shared.patch("thread", {"calc/core.py": THREAD})
    code, report = shared.gate(capsys)
    assert code == 5
    found = [f for f in named(report, "PG563") if f["severity"] == "error"]
    assert [f["path"] for f in found] == [None]
    assert "subprocess.Popen (cp tests/fix/data/label.txt" in found[0]["message"]
    assert "with no frame of the tree" in found[0]["message"]
    assert "PG101" not in errors(report)
