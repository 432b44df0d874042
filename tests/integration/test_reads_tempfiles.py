"""Temporary files in the traced child: an open that can only make an unnamed file (pytest's
capture, `tempfile.TemporaryFile`) is no read, and costs no path resolution; a
`TemporaryFile` whose opener is made to open an existing file is that file's read."""

from __future__ import annotations

from pathlib import Path

from planegate.runner import session
from planegate.runner.traced import Reads, TraceSpec

FILES = {
    "calc/__init__.py": "",
    "calc/core.py": (
        "import os\nimport tempfile\nimport types\n\n\n"
        "def scratch(folder):\n"
        "    with tempfile.TemporaryFile('w+', dir=folder) as handle:\n"
        "        handle.write('x')\n"
        "        handle.seek(0)\n"
        "        return handle.read()\n\n\n"
        "def unnamed(folder):\n"
        "    fd = os.open(folder, os.O_TMPFILE | os.O_RDWR)\n"
        "    os.close(fd)\n\n\n"
        "def copied(path):\n"
        "    saved = tempfile._os, tempfile._bin_openflags\n"
        "    fake = types.SimpleNamespace(**vars(os))\n"
        "    fake.O_TMPFILE, fake.O_CREAT = os.O_CLOEXEC, 0\n"
        "    tempfile._os, tempfile._bin_openflags = fake, os.O_RDONLY\n"
        "    try:\n"
        "        with tempfile.TemporaryFile(dir=path) as handle:\n"
        "            return handle.read().decode()\n"
        "    finally:\n"
        "        tempfile._os, tempfile._bin_openflags = saved\n"
    ),
    "tests/__init__.py": "",
    "tests/data/a.txt": "a",
    "tests/test_temp.py": (
        "from calc.core import copied, scratch, unnamed\n\n\n"
        "def test_scratch_files_in_the_data_folder(subtests):\n"
        "    for n in range(3):\n"
        "        with subtests.test(n=n):\n"
        "            assert scratch('tests/data') == 'x'\n"
        "            unnamed('tests/data')\n\n\n"
        "def test_a_temporary_file_that_is_the_golden():\n"
        "    assert copied('tests/data/a.txt') == 'a'\n"
    ),
}


def test_unnamed_files_are_no_reads_and_a_disguised_open_is_one(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    for path, text in FILES.items():
        (tree / path).parent.mkdir(parents=True, exist_ok=True)
        (tree / path).write_text(text)
    spec = session.RunSpec(
        tree=tree,
        ini_options={},
        plugins=(),
        targets=("tests",),
        trace=TraceSpec(("tests/test_temp.py",), ("tests",)),
    )
    result = session.run(spec)
    assert result.closed, result.output
    prefix = "tests/test_temp.py::"
    assert prefix + "test_scratch_files_in_the_data_folder" not in result.reads
    golden = result.reads[prefix + "test_a_temporary_file_that_is_the_golden"]
    assert (golden.test, golden.prod) == ((), ("tests/data/a.txt",))
    assert golden.via == {"tests/data/a.txt": ("calc/core.py",)}
    assert result.reads.get("tests/test_temp.py", Reads()) == Reads()
