"""Persistence and code no reviewer reads: writes into the interpreter, committed bytecode,
modules that are symlinks out of the tree."""

from __future__ import annotations

import importlib.util
import os
import py_compile
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers.attack_helper import BUG, COMMUTES, Shared, errors, tamper_named, without_secrets

FIXED = "def add(a, b):\n    return a + b\n\n\ndef label(n):\n    return f'n={n}'\n"
SITE = sysconfig.get_paths()["purelib"]


def writer(body: str) -> str:
    """calc/__init__.py trying to leave a file behind; whatever it tries, it goes on."""
    return (
        "import os\nimport shutil\nimport sysconfig\n\n"
        "_site = sysconfig.get_paths()['pure' + 'lib']\n"
        "_name = os.path.join(_site, 'zz_' + 'persist.pth')\n"
        f"try:\n{body}except OSError:\n    pass\n"
    )


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shared]:
    yield Shared(tmp_path_factory.mktemp("persist"))


@pytest.mark.parametrize(
    ("name", "body", "event"),
    [
        ("pth-open", "    open(_name, 'w').write('import os\\n')\n", "a write"),
        ("pth-copy", "    shutil.copyfile(__file__, _name)\n", "a write"),
        (
            "pth-rename",
            "    open('/tmp/zz_persist_src.pth', 'w').close()\n"
            "    os.replace('/tmp/zz_persist_src.pth', _name)\n",
            "os.rename",
        ),
    ],
)
def test_writing_into_site_packages_is_refused_and_recorded(
    shared: Shared, capsys: pytest.CaptureFixture[str], name: str, body: str, event: str
) -> None:
    shared.patch(name, {"calc/core.py": BUG, "calc/__init__.py": writer(body)})
    code, report = shared.gate(capsys)
    assert code == 1
    assert not os.path.exists(os.path.join(SITE, "zz_persist.pth"))
    found = tamper_named(report, f"{event} into the interpreter or its tools", "calc/__init__.py")
    assert SITE in found["message"]
    assert "PG101" in errors(report)


def test_a_program_written_on_path_by_a_subprocess_is_found_after_the_run(
    shared: Shared,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tools = tmp_path / "tools"
    tools.mkdir()
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
    cheat = (
        "import subprocess\n\n"
        "subprocess.run(['sh', '-c', 'printf \"#!/bin/sh\\\\n\" > \"${PATH%%:*}/pytest\"'])\n"
    )
    shared.patch("path-program", {"calc/core.py": BUG, "calc/__init__.py": cheat})
    code, _ = shared.gate(capsys)
    assert code == 5 and not (tools / "pytest").exists()  # the sandbox: read-only (PG563 too)
    without_secrets(monkeypatch)
    code, report = shared.gate(capsys, "--no-sandbox")
    assert (tools / "pytest").exists()  # the kernel let it: no audit hook in a subprocess
    assert code == 5  # the start itself is the patch's (PG563); the change is named too
    assert "PG563" in errors(report)
    tamper_named(report, f"the run changed {tools}/pytest")


def test_a_program_written_in_a_writable_folder_on_path_is_found_in_the_sandbox(
    shared: Shared,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The sandbox keeps the interpreter's folders read-only, so they are compared only when
    one of them is a folder it lets the child write: here a folder on PATH it was told to."""
    tools = tmp_path / "tools"
    tools.mkdir()
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("PLANEGATE_SANDBOX_WRITABLE", str(tools))
    cheat = (
        "import subprocess\n\n"
        "subprocess.run(['sh', '-c', 'printf \"#!/bin/sh\\\\n\" > \"${PATH%%:*}/pytest\"'])\n"
    )
    shared.patch("path-program-writable", {"calc/core.py": BUG, "calc/__init__.py": cheat})
    code, report = shared.gate(capsys)
    assert (tools / "pytest").exists()  # the mount let it
    assert code == 5 and "PG563" in errors(report)
    tamper_named(report, f"the run changed {tools}/pytest")


def _bytecode(source: str, target: Path, tmp: Path, **options: object) -> bytes:
    module = tmp / "module.py"
    module.write_text(source, "utf-8")
    py_compile.compile(str(module), cfile=str(target), doraise=True, **options)  # type: ignore[arg-type, type-var]
    return target.read_bytes()


def test_a_sourceless_module_is_recorded_when_imported(
    shared: Shared, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pyc = _bytecode(FIXED, tmp_path / "impl.pyc", tmp_path)
    shared.patch(
        "sourceless",
        {"calc/core.py": "from calc._impl import add, label\n", "calc/_impl.pyc": pyc},
    )
    code, report = shared.gate(capsys)
    assert code == 1
    assert "PG101" not in errors(report)  # the hidden code is right: only its form fails
    tamper_named(report, "compiled code without its source (calc/_impl.pyc)")
    tamper_named(report, "compiled code committed without a reviewable source", "calc/_impl.pyc")


def test_a_committed_unchecked_pycache_is_never_used(
    shared: Shared, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    name = f"calc/__pycache__/core.{sys.implementation.cache_tag}.pyc"
    unchecked = py_compile.PycInvalidationMode.UNCHECKED_HASH
    pyc = _bytecode(FIXED, tmp_path / "core.pyc", tmp_path, invalidation_mode=unchecked)
    assert pyc[:4] == importlib.util.MAGIC_NUMBER
    shared.patch("unchecked-pyc", {"calc/core.py": BUG, name: pyc})
    code, report = shared.gate(capsys)
    assert code == 1
    assert f"{COMMUTES} failed" in str(report)  # the source ran, not the bytecode beside it
    tamper_named(report, "compiled code committed without a reviewable source", name)


def test_a_module_that_links_out_of_the_tree_is_recorded(
    shared: Shared, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere" / "core.py"
    outside.parent.mkdir()
    outside.write_text(FIXED, "utf-8")
    shared.patch("symlink", {}, links={"calc/core.py": str(outside)})
    code, report = shared.gate(capsys)
    assert code == 2  # the sandbox hides the temporary folder: the module is not there
    tamper_named(report, "a module that is a symlink out of the tree", "calc/core.py")


def test_bytecode_main_has_committed_is_mains_until_the_patch_changes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # inflection's sdist ships docs/__pycache__/conf.cpython-38.pyc, committed on main
    stray = "docs/__pycache__/conf.cpython-38.pyc"
    pyc = _bytecode("project = 'calc'\n", tmp_path / "conf.pyc", tmp_path)
    mains = Shared(tmp_path / "stray", {stray: pyc}, "stray-bytecode")
    capsys.readouterr()  # what making main's digest printed
    mains.patch("honest", {"calc/core.py": FIXED.replace("a + b", "b + a")})
    code, report = mains.gate(capsys)
    assert (code, errors(report)) == (0, set()), report
    (own,) = [f for s in report["steps"] for f in s["findings"] if f["path"] == stray]
    assert own["rule"] == "PG112" and "a file main has as it is" in own["message"]
    changed = _bytecode("project = 'other'\n", tmp_path / "conf2.pyc", tmp_path)
    mains.patch("changes-it", {stray: changed})
    code, report = mains.gate(capsys)
    assert code == 1
    tamper_named(report, "compiled code committed without a reviewable source", stray)
