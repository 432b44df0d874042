"""The gated repository itself is masked in the test child's sandbox: a program a test starts
cannot read main's golden from the checkout the gate was started on, however it is started,
while the tree's own code (an editable install of a src/ layout, an interpreter in the
repository's `.venv`) still runs.

The repositories here lie outside the temporary folders (which the sandbox masks anyway): in
the checkout's `build/` folder, or in /srv, /opt or /mnt when the checkout is itself in /tmp.
`calc.core.label` has a real bug on every attack branch (`n + 1`); each trick returns the
golden's bytes read from the original checkout instead.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import site
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers.attack_helper import Shared, errors
from helpers.repo_helper import TestRepo

BUILD = Path(__file__).resolve().parents[2] / "build"
HEAD = "def add(a, b):\n    return a + b\n\n\n"
# a process started with no audit event: `_posixsubprocess.fork_exec`, as subprocess calls it
FORK_EXEC = (
    "import os\nimport _posixsubprocess\n\n\ndef _cat(path):\n"
    "    r, w = os.pipe()\n    er, ew = os.pipe()\n"
    "    pid = _posixsubprocess.fork_exec([b'cat', path.encode()], [b'/bin/cat'], True, (ew,),"
    " None, None, -1, -1, -1, w, -1, -1, er, ew, True, False, -1, None, None, None, -1,"
    " None, False)\n"
    "    os.close(w)\n    os.close(ew)\n    data = b''\n"
    "    while chunk := os.read(r, 4096):\n        data += chunk\n"
    "    os.close(r)\n    os.close(er)\n    os.waitpid(pid, 0)\n    return data.decode()\n\n\n"
)


def cheat(how: str, golden: Path) -> str:
    """calc/core.py: `label` returns what `how` read from `golden`, else its buggy value."""
    reads = {
        "fork-exec": f"_cat({str(golden)!r})",
        "cat": f"subprocess.run(['cat', {str(golden)!r}], capture_output=True, text=True).stdout",
        "python-child": (
            "subprocess.run([sys.executable, '-c', 'import sys; sys.stdout.write(open(sys.argv[1])"
            f".read())', {str(golden)!r}], capture_output=True, text=True).stdout"
        ),
    }
    prelude = FORK_EXEC if how == "fork-exec" else "import subprocess\nimport sys\n\n\n"
    body = f"def label(n):\n    try:\n        found = {reads[how]}\n"
    body += "    except OSError:\n        found = ''\n    return found or f'n={n + 1}'\n"
    return prelude + HEAD + body


MASKED_ANYWAY = ("/tmp/", "/var/tmp/", str(Path.home()) + "/")


def _unmasked_base() -> Path:
    """Where the project goes: the checkout's `build/`, unless the checkout itself lies in a
    folder the sandbox masks anyway (a clone in /tmp); then a system folder this user may
    write (CI runs as root), else `build/` all the same (the attacks still fail, by /tmp's
    mask: the first test says which)."""
    if not str(BUILD).startswith(MASKED_ANYWAY):
        return BUILD
    for system in ("/srv", "/opt", "/mnt"):
        if os.path.isdir(system) and os.access(system, os.W_OK):
            return Path(system) / "planegate-tests"
    return BUILD


@pytest.fixture(scope="module")
def outside() -> Iterator[Path]:
    folder = _unmasked_base() / f"masked-checkout-{secrets.token_hex(4)}"
    folder.mkdir(parents=True)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)
    if folder.parent != BUILD:
        with contextlib.suppress(OSError):
            folder.parent.rmdir()  # empty unless another run is using it


@pytest.fixture(scope="module")
def shared(outside: Path) -> Shared:
    return Shared(outside / "shared")


def test_the_checkout_lies_outside_every_folder_the_sandbox_masks_anyway(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without the repository's own mask, the gate process reads the golden at that path and
    the honest reading of it passes: the attacks below fail by the mask alone."""
    golden = shared.repo.root / "tests" / "fix" / "data" / "label.txt"
    assert golden.read_text("utf-8") == "n=3"
    if _unmasked_base() != BUILD or not str(BUILD).startswith(MASKED_ANYWAY):
        assert not str(golden).startswith(MASKED_ANYWAY)
    shared.patch("honest", {"calc/core.py": HEAD + "def label(n):\n    return f'n={n}'\n"})
    code, report = shared.gate(capsys)
    assert code == 0, errors(report)


@pytest.mark.parametrize("how", ["fork-exec", "cat", "python-child"])
def test_a_program_reading_the_original_checkouts_golden_reads_nothing(
    shared: Shared, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    golden = shared.repo.root / "tests" / "fix" / "data" / "label.txt"
    shared.patch(f"checkout-{how}", {"calc/core.py": cheat(how, golden)})
    code, report = shared.gate(capsys)
    assert code != 0
    assert "PG101" in errors(report) or "PG102" in errors(report), errors(report)


CONFIG = """\
version: 1
owner: "@org/plane-map"
planes:
  property:
    owner: "@org/props"
    paths: ["tests/prop/"]
  fixture:
    owner: "@org/goldens"
    paths: ["tests/fix/"]
"""
ADD = "from calc.core import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def editable(root: Path) -> tuple[TestRepo, Path]:
    """A src/ layout on main, branches `bug` and `fine`, and an interpreter in the repository's
    own `.venv` with the project installed editable (what `pip install -e .` writes: a `.pth`
    naming the checkout's `src/`) and this interpreter's packages (planegate, pytest)."""
    repo = TestRepo(root)
    files = {"planegate.yml": CONFIG, "pytest.ini": "[pytest]\ntestpaths = tests\n"}
    files |= {"src/calc/__init__.py": "", "src/calc/core.py": HEAD, "tests/fix/test_add.py": ADD}
    repo.commit("main", {**files, ".gitignore": ".venv/\n"})
    for name, core in [("bug", "def add(a, b):\n    return a - b\n"), ("fine", HEAD + "# ok\n")]:
        repo.checkout("main")
        repo.branch(name)
        repo.commit(name, {"src/calc/core.py": core})
    repo.checkout("main")
    venv = root / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    ours = "; ".join(f"site.addsitedir({path!r})" for path in site.getsitepackages())
    (Path(purelib) / "zz_planegate_tests.pth").write_text(f"import site; {ours}\n", "utf-8")
    (Path(purelib) / "__editable__.calc-0.1.pth").write_text(f"{root / 'src'}\n", "utf-8")
    return repo, python


def test_an_editable_install_in_the_masked_checkouts_venv_gates_the_trees_code(
    outside: Path,
) -> None:
    repo, python = editable(outside / "editable")
    found = subprocess.run(
        [str(python), "-c", "import calc.core; print(calc.core.__file__)"],
        check=True,
        capture_output=True,
        text=True,
        cwd="/",
    )
    assert found.stdout.strip() == str(repo.root / "src" / "calc" / "core.py")  # main's, outside
    verdicts = {}
    for head in ("bug", "fine"):
        argv = ["-C", str(repo.root), "gate", "--base", "main", "--head", head, "--format", "json"]
        done = subprocess.run(
            [str(python), "-m", "planegate", *argv, "-q"], capture_output=True, text=True
        )
        report = json.loads(done.stdout)
        verdicts[head] = (done.returncode, sorted(errors(report)))
    assert verdicts == {"bug": (1, ["PG101"]), "fine": (0, [])}
