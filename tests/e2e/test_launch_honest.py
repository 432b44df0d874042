"""Processes and foreign functions main's own production code starts are main's: a project
whose code runs `git --version`, a multiprocessing pool (fork), ctypes for a C type and a
thread passes, with or without main's run in a digest, when the patch moves those lines.
A line of the patch that reaches main's own `subprocess` helper to read a golden is the
patch's start (PG563 names the patch's line)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers.project import PROJECT, manifest_for
from helpers.repo_helper import TestRepo
from planegate.cli import main

TOOLS = '''"""What the calculator reports of its surroundings."""

import ctypes
import subprocess
import threading
from multiprocessing import get_context


def run(argv):
    return subprocess.run(argv, capture_output=True, text=True, check=False).stdout


def git_version():
    return run(["git", "--version"])


def doubled(values):
    with get_context("fork").Pool(2) as pool:
        return pool.map(abs, values)


def int_width():
    return ctypes.sizeof(ctypes.c_int(0))


def in_thread(value):
    found = []
    worker = threading.Thread(target=found.append, args=(value,))
    worker.start()
    worker.join()
    return found[0]
'''
CORE = (
    "from calc import tools\n\n\ndef add(a, b):\n    return a + b\n\n\n"
    "def label(n):\n"
    "    assert tools.git_version().startswith('git version')\n"
    "    assert tools.doubled([n]) == [n] and tools.int_width() == 4\n"
    "    return f'n={tools.in_thread(n)}'\n"
)
# the golden's path built at run time, read by main's own helper from a line of the patch
CHAINED = CORE.replace(
    "    return f'n={tools.in_thread(n)}'\n",
    "    golden = ['te' + 'sts', 'fi' + 'x', 'da' + 'ta', 'lab' + 'el.txt']\n"
    "    return tools.run(['cat', '/'.join(golden)]) or f'n={n + 1}'\n",
)


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> tuple[TestRepo, Path]:
    root = tmp_path_factory.mktemp("launch-honest")
    repo = TestRepo(root / "project")
    files = {**PROJECT, "calc/tools.py": TOOLS, "calc/core.py": CORE}
    files["tests/fixtures.lock.json"] = manifest_for(files)
    repo.commit("initial", files)
    digest = root / "digest.json"
    assert main(["-C", str(repo.root), "digest", "--out", str(digest), "-q"]) == 0
    return repo, digest


def gate(
    repo: TestRepo, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, dict[str, Any]]:
    argv = ["-C", str(repo.root), "gate", "--base", "main", "--format", "json", "-q", *extra]
    code = main(argv)
    return code, json.loads(capsys.readouterr().out)


def launches(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for s in report["steps"] for f in s["findings"] if f["rule"] in ("PG563", "PG564")]


def notes(report: dict[str, Any]) -> list[str]:
    return [n for s in report["steps"] for n in s["notes"]]


@pytest.mark.parametrize("with_digest", [True, False])
def test_mains_own_starts_moved_by_the_patch_stay_quiet(
    honest: tuple[TestRepo, Path], capsys: pytest.CaptureFixture[str], with_digest: bool
) -> None:
    repo, digest = honest
    repo.checkout("main")
    repo.branch(f"moved-{with_digest}")
    repo.commit(
        "comments",
        {"calc/tools.py": "# tools\n\n" + TOOLS, "calc/core.py": "# core\n" + CORE},
    )
    code, report = gate(repo, capsys, *(["--digest", str(digest)] if with_digest else []))
    assert launches(report) == []
    assert code == 0, report
    assert any("process starts or foreign-function loads as on main" in n for n in notes(report))


def test_a_line_of_the_patch_calling_mains_helper_is_the_patchs_start(
    honest: tuple[TestRepo, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    repo, digest = honest
    repo.checkout("main")
    repo.branch("chained")
    repo.commit("label from the golden", {"calc/core.py": CHAINED})
    code, report = gate(repo, capsys, "--digest", str(digest))
    assert code == 5
    errors = [f for f in launches(report) if f["severity"] == "error"]
    assert [(f["rule"], f["path"]) for f in errors] == [("PG563", "calc/core.py")]
    line = next(n for n, text in enumerate(CHAINED.splitlines(), 1) if "tools.run([" in text)
    assert errors[0]["line"] == line
    assert (
        "subprocess.Popen (cat tests/fix/data/label.txt) at calc/tools.py:10"
        in (errors[0]["message"])
    )
    assert f"called from calc/core.py:{line}, a line of the patch" in errors[0]["message"]
