"""Read tracing in the child: each test's opened repository files, by side, whatever the path
spelling; imports are not reads."""

from __future__ import annotations

from pathlib import Path

from planegate.runner import session
from planegate.runner.traced import Reads, TraceSpec

FILES = {
    "calc/__init__.py": "",
    "calc/core.py": (
        "import json\nfrom pathlib import Path\n\n"
        "HERE = Path(__file__).parent\n\n\n"
        "def prices():\n"
        "    return json.loads((HERE / 'prices.json').read_text())\n\n\n"
        "def peek(path):\n"
        "    with open(path) as handle:\n"
        "        return handle.read()\n"
    ),
    "calc/prices.json": '{"a": 1}',
    "tests/__init__.py": "",
    "tests/helpers.py": (
        "from pathlib import Path\n\n\n"
        "def golden(name):\n"
        "    return (Path(__file__).parent / 'data' / name).read_text()\n"
    ),
    "tests/data/a.txt": "a",
    "tests/data/b.txt": "b",
    "tests/data/link.txt": "",
    "tests/test_reads.py": (
        "import os\n\n"
        "from calc.core import peek, prices\n"
        "from tests.helpers import golden\n\n"
        "MODULE_LEVEL = open('tests/data/b.txt').read()\n\n\n"
        "def test_helper_reads_a_golden():\n"
        "    assert golden('a.txt') == 'a'\n\n\n"
        "def test_production_reads_its_data():\n"
        "    assert prices() == {'a': 1}\n\n\n"
        "def test_production_peeks_at_a_golden_by_another_name():\n"
        "    assert peek(os.path.join('tests', 'data', '..', 'data', 'a.txt')) == 'a'\n\n\n"
        "def test_reads_nothing():\n"
        "    import inspect\n\n"
        "    import calc.core\n\n"
        "    assert 'def peek' in inspect.getsource(calc.core)\n"
    ),
}


def write_tree(tmp_path: Path, files: dict[str, str]) -> Path:
    tree = tmp_path / "tree"
    for path, text in files.items():
        (tree / path).parent.mkdir(parents=True, exist_ok=True)
        (tree / path).write_text(text)
    return tree


def traced_run(tmp_path: Path) -> session.RunResult:
    tree = write_tree(tmp_path, FILES)
    spec = session.RunSpec(
        tree=tree,
        ini_options={},
        plugins=(),
        targets=("tests",),
        trace=TraceSpec(("tests/test_reads.py", "tests/helpers.py"), ("tests",)),
    )
    return session.run(spec)


def test_each_test_reads_by_side(tmp_path: Path) -> None:
    result = traced_run(tmp_path)
    assert result.closed, result.output
    prefix = "tests/test_reads.py::"
    assert result.reads[prefix + "test_helper_reads_a_golden"] == Reads(test=("tests/data/a.txt",))
    data = result.reads[prefix + "test_production_reads_its_data"]
    assert (data.test, data.prod) == ((), ("calc/prices.json",))
    assert data.via == {"calc/prices.json": ("calc/core.py",)}  # the production file that read it
    peek = result.reads[prefix + "test_production_peeks_at_a_golden_by_another_name"]
    assert (peek.test, peek.prod) == ((), ("tests/data/a.txt",))
    assert prefix + "test_reads_nothing" not in result.reads
    # module code at collection, keyed by the module; no import shows up as a read
    assert result.reads["tests/test_reads.py"] == Reads(test=("tests/data/b.txt",))
    every = {p for r in result.reads.values() for p in (*r.test, *r.prod)}
    assert not any(path.endswith(".py") for path in every)


def test_a_symlink_is_read_as_its_target(tmp_path: Path) -> None:
    files = dict(FILES)
    files["tests/test_reads.py"] += (
        "\n\ndef test_through_a_link():\n    assert golden('link.txt') == 'b'\n"
    )
    tree = write_tree(tmp_path, files)
    (tree / "tests/data/link.txt").unlink()
    (tree / "tests/data/link.txt").symlink_to("b.txt")
    spec = session.RunSpec(
        tree=tree,
        ini_options={},
        plugins=(),
        targets=("tests",),
        trace=TraceSpec(("tests/test_reads.py",), ("tests",)),
    )
    result = session.run(spec)
    assert result.reads["tests/test_reads.py::test_through_a_link"] == Reads(
        test=("tests/data/b.txt",)
    )


def test_without_a_trace_spec_nothing_is_traced(tmp_path: Path) -> None:
    tree = write_tree(tmp_path, FILES)
    result = session.run(session.RunSpec(tree=tree, ini_options={}, plugins=(), targets=("tests",)))
    assert result.closed and result.reads == {}
