"""A locked file opened where the audit hook cannot see: the kernel counts the opens of the
tree's locked files (inotify, in the gate outside the sandbox), the child's audit hook counts
those it saw, and more in the kernel's count is PG565, naming the file, however the program
that read it was started (`cat`, `sh -c`, `os.system`, a Python child, a start that raises no
audit event at all).

`calc.core.label` has a real bug on every attack branch (`n + 1`), so main's fixture test
fails and the gate says exit 1 without the trick; each trick returns the golden's bytes
instead. The golden's path is built at run time, so no scan of the source sees it. Main's run
is in the digest with its own count (none): every PG565 here is an error.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers.attack_helper import Shared, errors

GOLDEN = (
    "import os\nimport subprocess\nimport sys\nfrom pathlib import Path\n\n"
    "_ROOT = Path(__file__).resolve().parents[1]\n"
    "_GOLDEN = _ROOT / ('te' + 'sts') / ('fi' + 'x') / ('da' + 'ta') / ('lab' + 'el.txt')\n\n\n"
)
HEAD = "def add(a, b):\n    return a + b\n\n\n"
FORK_EXEC = (
    "def _cat(path):\n"
    "    import _posixsubprocess\n\n"
    "    r, w = os.pipe()\n    er, ew = os.pipe()\n"
    "    pid = _posixsubprocess.fork_exec([b'cat', path.encode()], [b'/bin/cat'], True, (ew,),"
    " None, None, -1, -1, -1, w, -1, -1, er, ew, True, False, -1, None, None, None, -1,"
    " None, False)\n"
    "    os.close(w)\n    os.close(ew)\n    data = b''\n"
    "    while chunk := os.read(r, 4096):\n        data += chunk\n"
    "    os.close(r)\n    os.close(er)\n    os.waitpid(pid, 0)\n    return data.decode()\n\n\n"
)
READS = {
    "cat": "subprocess.run(['cat', str(_GOLDEN)], capture_output=True, text=True).stdout",
    "sh-c": (
        "subprocess.run(['sh', '-c', 'cat \"$(ls -d t*s)\"/f*/d*/l*.txt'], cwd=_ROOT,"
        " capture_output=True, text=True).stdout"
    ),
    "python-child": (
        "subprocess.run([sys.executable, '-c', 'import sys; sys.stdout.write(open(sys.argv[1])"
        ".read())', str(_GOLDEN)], capture_output=True, text=True).stdout"
    ),
    "fork-exec": "_cat(str(_GOLDEN))",
}
# os.system has no output to catch: the copy goes through a file of the scratch folder
SYSTEM = (
    "def label(n):\n    import tempfile\n\n"
    "    with tempfile.NamedTemporaryFile('r') as copy:\n"
    "        os.system(f'cat {_GOLDEN} > {copy.name}')\n"
    "        return copy.read() or f'n={n + 1}'\n"
)


def cheat(how: str) -> str:
    if how == "os-system":
        return GOLDEN + HEAD + SYSTEM
    body = f"def label(n):\n    return {READS[how]} or f'n={{n + 1}}'\n"
    return GOLDEN + (FORK_EXEC if how == "fork-exec" else "") + HEAD + body


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shared]:
    yield Shared(tmp_path_factory.mktemp("unseen"))


def named(report: dict[str, Any], rule: str) -> list[dict[str, Any]]:
    return [f for s in report["steps"] for f in s["findings"] if f["rule"] == rule]


@pytest.mark.parametrize("how", ["cat", "sh-c", "os-system", "python-child", "fork-exec"])
def test_a_program_reading_the_golden_is_counted_by_the_kernel(
    shared: Shared, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    shared.patch(how, {"calc/core.py": cheat(how)})
    code, report = shared.gate(capsys)
    assert code == 5, errors(report)
    assert "PG101" not in errors(report)  # the trick worked: the test passed
    found = [f for f in named(report, "PG565") if f["severity"] == "error"]
    assert [f["path"] for f in found] == ["tests/fix/data/label.txt"], named(report, "PG565")
    assert "where the audit hook cannot see" in found[0]["message"]
    assert "main's run shows 0" in found[0]["message"]


HONEST_TEST = (
    "import sqlite3\nimport subprocess\nfrom pathlib import Path\n\n"
    "from calc.core import label\n\n\n"
    "def test_label_golden():\n"
    "    expected = (Path(__file__).parent / 'data' / 'label.txt').read_text()\n"
    "    assert label(3) == expected\n\n\n"
    "def test_git_runs():\n"
    "    done = subprocess.run(['git', '--version'], capture_output=True, text=True)\n"
    "    assert done.stdout.startswith('git version')\n\n\n"
    "def test_table():\n"
    "    with sqlite3.connect(Path(__file__).parent / 'data' / 'table.db') as db:\n"
    "        assert db.execute('select count(*) from t').fetchone() == (2,)\n"
)


def table() -> bytes:
    import sqlite3
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = f"{folder}/table.db"
        with sqlite3.connect(path) as db:
            db.execute("create table t (x)")
            db.executemany("insert into t values (?)", [(1,), (2,)])
        db.close()
        with open(path, "rb") as handle:
            return handle.read()


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> Shared:
    files: dict[str, str | bytes] = {
        "tests/fix/test_label.py": HONEST_TEST,
        "tests/fix/data/table.db": table(),
    }
    return Shared(tmp_path_factory.mktemp("honest-unseen"), files, name="unseen-honest")


def test_tests_reading_their_data_with_open_sqlite_and_git_pass(
    honest: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    honest.patch("honest", {"calc/core.py": HEAD + "def label(n):\n    return f'n={n}'\n"})
    code, report = honest.gate(capsys)
    assert code == 0, report
    assert named(report, "PG565") == []


def test_sharded_runs_add_their_counts_at_the_merge(
    shared: Shared, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Each shard's kernel and audit hook count their own run; the merge sums both, so the
    golden read by `cat` in whichever shard ran its test is PG565 in the merged verdict."""
    shared.patch("cat-sharded", {"calc/core.py": cheat("cat")})
    paths = [tmp_path / f"shard-{k}.json" for k in (1, 2)]
    for k, path in enumerate(paths, start=1):
        shared.gate(capsys, "--shard", f"{k}/2", "--evidence", str(path))
    code, report = shared.gate(capsys, "--merge", *map(str, paths))
    assert code == 5, errors(report)
    found = [f for f in named(report, "PG565") if f["severity"] == "error"]
    assert [f["path"] for f in found] == ["tests/fix/data/label.txt"], named(report, "PG565")
    assert "main's run shows 0" in found[0]["message"]


def test_sharded_honest_reads_pass_at_the_merge(
    honest: Shared, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    honest.patch("honest-sharded", {"calc/core.py": HEAD + "def label(n):\n    return f'n={n}'\n"})
    paths = [tmp_path / f"shard-{k}.json" for k in (1, 2)]
    for k, path in enumerate(paths, start=1):
        honest.gate(capsys, "--shard", f"{k}/2", "--evidence", str(path))
    code, report = honest.gate(capsys, "--merge", *map(str, paths))
    assert code == 0, errors(report)
    assert named(report, "PG565") == []
