"""The production-code scan: each harness-reaching construct found, honest code left alone."""

from __future__ import annotations

import pytest

from planegate.analysis.prodscan import DataPaths, scan_change, scan_source
from planegate.findings import Severity, Step

DATA = DataPaths(("tests/fix/data/", "tests/fix/"), ("tests/fix/data/label.txt",))


def rules(source: str) -> list[str]:
    return [hit.rule for hit in scan_source(source, DATA)]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import pytest\n", ["PG550"]),
        ("from _pytest.config import Config\n", ["PG550"]),
        ("from hypothesis import settings\n", ["PG550"]),
        ("mod = __import__('pytest')\n", ["PG550"]),
        ("import importlib\nm = importlib.import_module('hypothesis.core')\n", ["PG550"]),
        ("import os\nname = os.environ.get('PYTEST_CURRENT_TEST')\n", ["PG551"]),
        ("import sys\nharness = sys.modules['pytest']\n", ["PG552"]),
        ("import sys\nharness = sys.modules.get('_pytest.main')\n", ["PG552"]),
        ("import sys\ntested = 'pytest' in sys.modules\n", ["PG552"]),
        ("import sys\ncaller = sys._getframe(1).f_code.co_name\n", ["PG553"]),
        ("import inspect as i\nframes = i.stack()\n", ["PG553"]),
        ("from inspect import currentframe\nframe = currentframe()\n", ["PG553"]),
        ("import gc\nobjs = gc.get_objects()\n", ["PG591", "PG553"]),  # the import too
        ("import os\nos._exit(0)\n", ["PG554"]),
        ("from os import _exit\n_exit(0)\n", ["PG554"]),
        ("import atexit, os\natexit.register(os._exit, 0)\n", ["PG555", "PG554"]),
        ("import builtins\nbuiltins.print = len\n", ["PG556"]),
        ("import builtins\nsetattr(builtins, 'open', None)\n", ["PG556"]),
        ("__builtins__['len'] = max\n", ["PG556"]),
        ("pytest_plugins = ['calc.cheat']\n", ["PG557"]),
        ("class Money:\n    def __eq__(self, other):\n        return True\n", ["PG559"]),
        (
            "class Money:\n    def __eq__(self, other):\n"
            "        if other is None:\n            return True\n        return True\n",
            ["PG559"],
        ),
        ("class Money:\n    __eq__ = lambda self, other: True\n", ["PG559"]),
        ("class Money:\n    def __ne__(self, other):\n        return False\n", ["PG559"]),
        (
            "from dataclasses import dataclass, field\n\n@dataclass\nclass Line:\n"
            "    total: int = field(default=0, compare=False)\n",
            ["PG560"],
        ),
        ("import attr\n\n@attr.s\nclass Line:\n    total = attr.ib(eq=False)\n", ["PG560"]),
        ("GOLDEN = 'tests/fix/data/label.txt'\n", ["PG561"]),
        ("from pathlib import Path\nDATA = Path('tests/fix/data')\n", ["PG561"]),
    ],
)
def test_each_construct_is_found(source: str, expected: list[str]) -> None:
    assert sorted(rules(source)) == sorted(expected)


HONEST = '''\
"""A small CLI with a real __eq__, package data and sys.exit: nothing to flag."""
import argparse
import dataclasses
import sys
from importlib import resources
from pathlib import Path


@dataclasses.dataclass(frozen=True)
class Money:
    cents: int
    currency: str = dataclasses.field(default="EUR", compare=True)
    note: str = dataclasses.field(default="", repr=False)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Money):
            return NotImplemented
        return (self.cents, self.currency) == (other.cents, other.currency)

    def __hash__(self) -> int:
        return hash((self.cents, self.currency))


class Always:
    def __eq__(self, other):
        """Documented PYTEST_CURRENT_TEST in a docstring is not a read."""
        def inner():
            return True
        return inner() and other is self


def rates() -> str:
    return resources.files("calc").joinpath("data/rates.json").read_text()


def template() -> str:
    return (Path(__file__).parent / "templates" / "receipt.txt").read_text()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="calc")
    parser.add_argument("--tests", default="tests")
    args = parser.parse_args(argv)
    print(args.tests, sys.argv[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
'''


def test_honest_production_code_is_not_flagged() -> None:
    assert scan_source(HONEST, DATA) == []


def test_only_constructs_the_head_adds_are_reported() -> None:
    base = "import atexit\n\natexit.register(print, 'bye')\n"
    head = base + "\n\ndef add(a, b):\n    import pytest\n    return a + b\n"
    found = scan_change("calc/core.py", base, head, DATA, "@author")
    assert [(f.rule, f.line, f.step, f.severity) for f in found] == [
        ("PG550", 7, Step.HUNKS, Severity.ERROR)
    ]
    assert found[0].owner == "@author" and found[0].path == "calc/core.py"
    assert "imports pytest" in found[0].message


def test_a_second_copy_of_an_existing_construct_is_added() -> None:
    base = "import os\n\n\ndef stop():\n    os._exit(1)\n"
    head = base + "\n\ndef also():\n    os._exit(0)\n"
    assert [f.line for f in scan_change("calc/x.py", base, head, DATA, "a")] == [9]


def test_pytest11_entry_points_added_in_packaging_files() -> None:
    base = '[project]\nname = "calc"\n'
    head = base + '\n[project.entry-points.pytest11]\ncheat = "calc.cheat"\n'
    (found,) = scan_change("pyproject.toml", base, head, DATA, "a")
    assert (found.rule, found.line) == ("PG558", 5)
    assert "cheat = calc.cheat" in found.message
    cfg = "[options.entry_points]\npytest11 =\n    cheat = calc.cheat\n"
    assert [f.rule for f in scan_change("setup.cfg", None, cfg, DATA, "a")] == ["PG558"]
    txt = "[pytest11]\ncheat = calc.cheat\n"
    path = "calc-1.0.dist-info/entry_points.txt"
    assert [f.rule for f in scan_change(path, None, txt, DATA, "a")] == ["PG558"]
    assert scan_change("pyproject.toml", head, head, DATA, "a") == []


def test_unparseable_or_deleted_files_give_no_finding() -> None:
    assert scan_change("calc/core.py", None, "def broken(:\n", DATA, "a") == []
    assert scan_change("calc/core.py", "import pytest\n", None, DATA, "a") == []
    assert scan_change("README.md", None, "import pytest\n", DATA, "a") == []
