"""A small gated project with tests in five files, for sharding: a patch that breaks
production code, and an honest one."""

from __future__ import annotations

from helpers.project import CONFIG, manifest_for

CORE = (
    "def add(a, b):\n    return a + b\n\n\n"
    "def mul(a, b):\n    return a * b\n\n\n"
    "def label(n):\n    return f'n={n}'\n"
)

PROPS_HEAD = "from hypothesis import given, strategies as st\n\nfrom calc.core import add, mul\n"

FILES: dict[str, str] = {
    "planegate.yml": CONFIG,
    "pytest.ini": "[pytest]\ntestpaths = tests\n",
    "CODEOWNERS": "* @org/maintainers\n",
    "calc/__init__.py": "",
    "calc/core.py": CORE,
    "tests/prop/test_add_props.py": PROPS_HEAD
    + "\n\n@given(st.integers(), st.integers())\ndef test_add_commutes(a, b):\n"
    "    assert add(a, b) == add(b, a)\n"
    "\n\n@given(st.integers())\ndef test_add_zero(a):\n    assert add(a, 0) == a\n",
    "tests/prop/test_mul_props.py": PROPS_HEAD
    + "\n\n@given(st.integers(), st.integers())\ndef test_mul_commutes(a, b):\n"
    "    assert mul(a, b) == mul(b, a)\n"
    "\n\n@given(st.integers())\ndef test_mul_one(a):\n    assert mul(a, 1) == a\n",
    "tests/fix/test_label.py": (
        "from pathlib import Path\n\nfrom calc.core import label\n\n\n"
        "def test_label_golden():\n"
        "    expected = (Path(__file__).parent / 'data' / 'label.txt').read_text()\n"
        "    assert label(3) == expected\n"
    ),
    "tests/fix/test_examples.py": (
        "from calc.core import add, mul\n\n\n"
        "def test_add_2_3():\n    assert add(2, 3) == 5\n\n\n"
        "def test_add_negative():\n    assert add(-2, -3) == -5\n\n\n"
        "def test_mul_2_3():\n    assert mul(2, 3) == 6\n\n\n"
        "def test_mul_zero():\n    assert mul(7, 0) == 0\n"
    ),
    "tests/fix/data/label.txt": "n=3",
}


def project_files() -> dict[str, str | bytes]:
    """The project on main, its fixture manifest locked."""
    return {**FILES, "tests/fixtures.lock.json": manifest_for(dict(FILES))}


def add_bug() -> dict[str, str | bytes]:
    """A real bug: every sum is off by one (the commutative property still holds)."""
    return {"calc/core.py": CORE.replace("return a + b", "return a + b + 1")}


def honest_fix() -> dict[str, str | bytes]:
    """A refactor that changes no answer."""
    return {"calc/core.py": CORE.replace("return a + b", "total = a + b\n    return total")}
