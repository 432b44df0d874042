"""Secrets, names and honesty: the child cannot read the gate's environment, sees no name of
the product, and honest production code (atexit, caches, resources, logging,
dataclasses, threads, Hypothesis itself) passes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers.attack_helper import Shared, errors, reviewed, tamper_named, tampering
from planegate.runner.sandbox import WRITABLE_VARIABLE

TOKEN = "ghs_parentTokenThatMustNotLeak"


def reader(dump: Path, body: str) -> str:
    """calc/core.py whose add() tries to read the gate's environment and keeps what it got."""
    return (
        "import os\nimport pathlib\nimport subprocess\n\n\n"
        f"def _steal():\n    ppid = os.getppid()\n{body}\n\n"
        "def add(a, b):\n    try:\n        data = _steal()\n"
        "    except OSError as error:\n        data = repr(error).encode()\n"
        f"    pathlib.Path({str(dump)!r}).write_bytes(data)\n"
        "    return a - b\n\n\ndef label(n):\n    return f'n={n}'\n"
    )


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shared]:
    yield Shared(tmp_path_factory.mktemp("secrets"))


@pytest.mark.parametrize(
    ("name", "body"),
    [
        ("environ-open", "    return open(f'/proc/{ppid}/environ', 'rb').read()"),
        (
            "environ-path",
            "    return pathlib.Path('/proc', str(ppid), 'en' + 'viron').read_bytes()",
        ),
        (
            "environ-task",
            "    fd = os.open(f'/proc/{ppid}/task/{ppid}/environ', os.O_RDONLY)\n"
            "    return os.read(fd, 1 << 16)",
        ),
    ],
)
def test_reading_the_gates_environment_is_refused_and_recorded(
    shared: Shared, tmp_path: Path, name: str, body: str
) -> None:
    dump = tmp_path / "stolen"
    shared.patch(name, {"calc/core.py": reader(dump, body)})
    code, report = shared.gate_cli({"GITHUB_TOKEN": TOKEN, WRITABLE_VARIABLE: str(tmp_path)})
    assert reviewed(code, report)  # /proc is reviewed; the run-time layer below
    assert TOKEN not in dump.read_bytes().decode("utf-8", "replace")
    found = tamper_named(report, "(another process)", "calc/core.py")
    assert found["message"].startswith("the run was tampered with: open of /proc/")


def test_a_subprocess_cannot_read_the_gates_environment_either(
    shared: Shared, tmp_path: Path
) -> None:
    dump = tmp_path / "stolen"
    body = "    return subprocess.run(['cat', f'/proc/{ppid}/environ'], capture_output=True).stdout"
    shared.patch("environ-cat", {"calc/core.py": reader(dump, body)})
    code, report = shared.gate_cli({"GITHUB_TOKEN": TOKEN, WRITABLE_VARIABLE: str(tmp_path)})
    assert code == 5 and "PG101" in errors(report)  # the cat is the patch's start
    assert "PG563" in errors(report) or reviewed(code, report)
    assert dump.exists() and TOKEN not in dump.read_bytes().decode("utf-8", "replace")


def test_the_child_sees_no_product_name_and_no_pytest_variable(
    shared: Shared,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(WRITABLE_VARIABLE, str(tmp_path))  # the sandbox lets the dump out
    dump = tmp_path / "seen.json"
    core = (
        "import json\nimport os\nimport sys\n\n\ndef add(a, b):\n    return a + b\n\n\n"
        "def label(n):\n"
        "    seen = {'environ': dict(os.environ), 'argv': sys.argv,\n"
        "            'home': os.path.expanduser('~'), 'files': os.listdir('.'),\n"
        "            'cwd': os.getcwd(), 'file': __file__,\n"
        "            'modules': ['planegate'] if 'planegate' in sys.modules else []}\n"
        f"    open({str(dump)!r}, 'w').write(json.dumps(seen))\n"
        "    return f'n={n}'\n"
    )
    shared.patch("names", {"calc/core.py": core})
    code, report = shared.gate(capsys)
    assert code == 0, errors(report)
    seen = json.loads(dump.read_text())
    added = [f for f in seen["files"] if f != "planegate.yml"]  # the project's own config
    places = [seen["environ"], seen["argv"], seen["home"], seen["cwd"], seen["file"], added]
    text = json.dumps(places).lower()
    assert "planegate" not in text and not seen["modules"]
    assert not [f for f in added if f.endswith(".ini")]  # the run's ini left once read
    assert not [name for name in seen["environ"] if name.startswith("PYTEST_")]


# a subprocess the patch adds is its own start (PG563): one main's code makes is quiet
# (test_launch_honest.py)
HONEST_CORE = '''"""Caches, resources, logging, a thread and an atexit hook."""
import atexit
import collections
import functools
import importlib.resources
import logging
import sys
import threading
import typing
from dataclasses import dataclass, field

log = logging.getLogger(__name__)
T = typing.TypeVar("T")
Pair = collections.namedtuple("Pair", "left right")
_opened: list[str] = []
atexit.register(_opened.clear)


@dataclass
class Result:
    value: int
    cache: dict = field(default_factory=dict, compare=False)


@functools.lru_cache(maxsize=None)
def add(a, b):
    return Result(b + a).value


def label(n):
    prefix = importlib.resources.files("calc").joinpath("prefix.txt").read_text().strip()
    worker = threading.Thread(target=_opened.append, args=(str(sys.flags.optimize),))
    worker.start()
    worker.join()
    log.warning("labelled %s", Pair(prefix, n))
    return f"{prefix}{n}"
'''
HONEST_CLI = """import argparse
import atexit
import sys


def main(argv=None):
    parser = argparse.ArgumentParser(prog="calc")
    parser.add_argument("numbers", nargs="*", type=int)
    args = parser.parse_args(argv)
    atexit.register(print, "bye", file=sys.stderr)
    print(sum(args.numbers))
    return 0
"""


def test_honest_production_code_passes(shared: Shared, capsys: pytest.CaptureFixture[str]) -> None:
    files = {"calc/core.py": HONEST_CORE, "calc/cli.py": HONEST_CLI, "calc/prefix.txt": "n=\n"}
    shared.patch("honest", files)
    code, report = shared.gate(capsys)
    assert code == 0, [f["message"] for s in report["steps"] for f in s["findings"]]
    assert not tampering(report)
    warned = {f["rule"] for s in report["steps"] for f in s["findings"]}
    assert warned <= {"PG555"}  # the atexit handlers: a note for the reviewer, not an error
