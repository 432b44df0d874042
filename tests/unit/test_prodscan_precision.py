"""The production-code scan judges atexit and compare=False by what they change."""

from __future__ import annotations

import pytest

from planegate.analysis.prodscan import DataPaths, scan_change
from planegate.findings import Severity

DATA = DataPaths(("tests/fix/",), ())
BASE = """\
from dataclasses import dataclass, field


@dataclass
class Line:
    total: int
    label: str = field(default="")
"""


def found(base: str | None, head: str) -> list[tuple[str, Severity]]:
    return [(f.rule, f.severity) for f in scan_change("calc/lines.py", base, head, DATA, "a")]


@pytest.mark.parametrize(
    "head",
    [
        BASE + "    cache: dict = field(default_factory=dict, compare=False)\n",
        BASE + "\n\n@dataclass\nclass Row:\n    seen: int = field(default=0, compare=False)\n",
        BASE.replace("label: str", "note: str = field(default='', compare=False)\n    label: str"),
    ],
)
def test_a_new_field_out_of_equality_is_fine(head: str) -> None:
    assert found(BASE, head) == []


def test_a_new_module_with_an_uncompared_field_is_fine() -> None:
    assert (
        found(None, BASE + "    cache: dict = field(default_factory=dict, compare=False)\n") == []
    )


@pytest.mark.parametrize(
    "head",
    [
        BASE.replace("total: int", "total: int = field(compare=False)"),
        BASE.replace('field(default="")', 'field(default="", compare=False)'),
        BASE.replace("total: int", "amount: int = field(compare=False)"),  # renamed out
    ],
)
def test_taking_a_compared_field_out_of_equality_is_an_error(head: str) -> None:
    assert found(BASE, head) == [("PG560", Severity.ERROR)]


def test_attrs_eq_false_on_an_existing_field_is_an_error() -> None:
    base = "import attr\n\n\n@attr.s\nclass Line:\n    total = attr.ib()\n"
    assert found(base, base.replace("attr.ib()", "attr.ib(eq=False)")) == [
        ("PG560", Severity.ERROR)
    ]
    assert found(base, base + "    cache = attr.ib(eq=False, factory=dict)\n") == []


def test_an_atexit_handler_is_a_warning() -> None:
    cli = "import atexit\n\n\ndef main():\n    atexit.register(print, 'bye')\n    return 0\n"
    assert found("def main():\n    return 0\n", cli) == [("PG555", Severity.WARNING)]
