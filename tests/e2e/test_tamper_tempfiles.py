"""A golden read through `tempfile.TemporaryFile`'s own code: the child's audit hook takes an
open that can only make an unnamed file (`O_TMPFILE`, and TemporaryFile's `_io.open(dir, ...,
opener=opener)`, which makes no system call on `dir`) without resolving its path, since
pytest's capture makes two such files per test and per subtest. The opener's own `os.open` is
what reaches a file: when a patch makes it open the golden (tempfile's `_os` and its open
flags replaced, so no `O_TMPFILE` reaches the kernel), that open is checked in full, and the
golden read is the production read it is (PG562), not an open only the kernel saw (PG565).

`calc.core.label` has a real bug on every attack branch (`n + 1`), so main's fixture test
fails and the gate says exit 1 without the trick; each trick returns the golden's bytes
instead. The golden's path is built at run time, so no scan of the source sees it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from helpers.attack_helper import Shared, errors

GOLDEN = (
    "import os\nfrom pathlib import Path\n\n"
    "_ROOT = Path(__file__).resolve().parents[1]\n"
    "_GOLDEN = _ROOT / ('te' + 'sts') / ('fi' + 'x') / ('da' + 'ta') / ('lab' + 'el.txt')\n\n\n"
    "def add(a, b):\n    return a + b\n\n\n"
)
# TemporaryFile's opener calls `_os.open(dir, flags | _os.O_TMPFILE & ~_os.O_CREAT)`: with
# tempfile's `_os` a copy of `os` whose O_TMPFILE is a harmless flag and its flags read-only,
# the "temporary file" is the golden itself, opened from tempfile's own frames
TEMPFILE_OS = (
    "def label(n):\n"
    "    import tempfile\n    import types\n\n"
    "    saved = tempfile._os, tempfile._bin_openflags\n"
    "    fake = types.SimpleNamespace(**vars(os))\n"
    "    fake.O_TMPFILE, fake.O_CREAT = os.O_CLOEXEC, 0\n"
    "    tempfile._os, tempfile._bin_openflags = fake, os.O_RDONLY\n"
    "    try:\n"
    "        with tempfile.TemporaryFile(dir=str(_GOLDEN)) as copy:\n"
    "            found = copy.read().decode()\n"
    "    except OSError:\n        found = ''\n"
    "    finally:\n        tempfile._os, tempfile._bin_openflags = saved\n"
    "    return found or f'n={n + 1}'\n"
)
# tempfile's `_io` replaced: TemporaryFile's `_io.open(dir, ...)` is the patch's open
TEMPFILE_IO = (
    "def label(n):\n"
    "    import io\n    import tempfile\n    import types\n\n"
    "    def _open(path, mode, **kwargs):\n"
    "        return io.open(path, 'rb')\n\n"
    "    saved = tempfile._io\n"
    "    tempfile._io = types.SimpleNamespace(open=_open)\n"
    "    try:\n"
    "        with tempfile.TemporaryFile(dir=str(_GOLDEN)) as copy:\n"
    "            found = copy.read().decode()\n"
    "    except OSError:\n        found = ''\n"
    "    finally:\n        tempfile._io = saved\n"
    "    return found or f'n={n + 1}'\n"
)
# TemporaryFile's code run with the patch's globals (its `_io` the patch's)
TEMPFILE_CODE = (
    "def label(n):\n"
    "    import io\n    import tempfile\n    import types\n\n"
    "    def _open(path, mode, **kwargs):\n"
    "        return io.open(path, 'rb')\n\n"
    "    namespace = dict(vars(tempfile))\n"
    "    namespace['_io'] = types.SimpleNamespace(open=_open)\n"
    "    namespace['_O_TMPFILE_WORKS'] = True\n"
    "    made = types.FunctionType(tempfile.TemporaryFile.__code__, namespace)\n"
    "    try:\n"
    "        with made('w+b', -1, None, None, None, None, str(_GOLDEN), errors=None) as copy:\n"
    "            found = copy.read().decode()\n"
    "    except OSError:\n        found = ''\n"
    "    return found or f'n={n + 1}'\n"
)
CHEATS = {"tempfile-os": TEMPFILE_OS, "tempfile-io": TEMPFILE_IO, "tempfile-code": TEMPFILE_CODE}


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shared]:
    yield Shared(tmp_path_factory.mktemp("tempfiles"))


def named(report: dict[str, Any], rule: str) -> list[dict[str, Any]]:
    return [f for s in report["steps"] for f in s["findings"] if f["rule"] == rule]


@pytest.mark.parametrize("how", sorted(CHEATS))
def test_a_golden_read_through_tempfiles_own_code_is_seen(
    shared: Shared, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    shared.patch(how, {"calc/core.py": GOLDEN + CHEATS[how]})
    code, report = shared.gate(capsys)
    assert code != 0, errors(report)
    assert "PG101" not in errors(report)  # the trick worked: the test passed
    found = [f for f in named(report, "PG562") if f["severity"] == "error"]
    assert [f["path"] for f in found] == ["tests/fix/data/label.txt"], errors(report)
    assert named(report, "PG565") == []  # the audit hook saw the open: no kernel-only count


HONEST = (
    "def label(n):\n"
    "    import tempfile\n\n"
    "    with tempfile.TemporaryFile('w+') as scratch:\n"
    "        scratch.write(f'n={n}')\n"
    "        scratch.seek(0)\n"
    "        return scratch.read()\n"
)


def test_production_code_using_temporary_files_passes(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    shared.patch("tempfile-honest", {"calc/core.py": GOLDEN + HONEST})
    code, report = shared.gate(capsys)
    assert code == 0, errors(report)
