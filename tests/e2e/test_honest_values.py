"""Values that lie in a scoring test the patch does not flip: main's property test passes on
main, the patch breaks `add` and hides the bug behind a value that lies about equality. The
strict probe never sees these tests (they do not flip); the scoring run's own check does."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers.attack_helper import Shared, errors

# unittest.mock.ANY, reached through a computed name: no class of the patch's own
ANY_FOR_BUGGY = (
    "_ANY = getattr(__import__('unittest.mock', fromlist=['x']), 'AN' + 'Y')\n\n\n"
    "def add(a, b):\n    return a - b if a == b else _ANY\n\n\n"
    "def label(n):\n    return f'n={n}'\n"
)
# an int whose equality is written so that no scan sees a constant
IS_ITSELF = (
    "class Total(int):\n"
    "    def __eq__(self, other):\n        return other is other\n\n"
    "    __hash__ = int.__hash__\n\n\n"
    "def add(a, b):\n    return Total(a - b)\n\n\n"
    "def label(n):\n    return f'n={n}'\n"
)
# an int equal to its negation: a - b "equals" b - a
SIGN_BLIND = (
    "class Total(int):\n"
    "    def __eq__(self, other):\n"
    "        return int(self) == other or int(self) == -int(other)\n\n"
    "    __hash__ = int.__hash__\n\n\n"
    "def add(a, b):\n    return Total(a - b)\n\n\n"
    "def label(n):\n    return f'n={n}'\n"
)
HONEST_FIX = (
    "class Total(int):\n    pass\n\n\n"
    "def add(a, b):\n    return Total(a + b)\n\n\n"
    "def label(n):\n    return f'n={n}'\n"
)


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shared]:
    yield Shared(tmp_path_factory.mktemp("honest"))


def _lies(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for s in report["steps"] for f in s["findings"] if f["rule"] == "PG145"]


@pytest.mark.parametrize(
    ("name", "source", "words"),
    [
        ("mock-any", ANY_FOR_BUGGY, "unittest.mock._ANY"),
        ("is-itself", IS_ITSELF, "calc.core.Total"),
        ("sign-blind", SIGN_BLIND, "Total.__eq__"),
    ],
)
def test_a_value_that_lies_in_a_passing_scoring_test_fails_the_gate(
    shared: Shared, capsys: pytest.CaptureFixture[str], name: str, source: str, words: str
) -> None:
    shared.patch(name, {"calc/core.py": source})
    code, report = shared.gate(capsys)
    lies = _lies(report)
    assert code != 0, report
    assert lies, errors(report)
    message = lies[0]["message"]
    assert words in message
    assert "test_add_commutes" in message and "add(" in message
    assert lies[0]["severity"] == "error"


def test_an_honest_fix_with_an_int_subclass_passes(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    shared.patch("honest-total", {"calc/core.py": HONEST_FIX})
    code, report = shared.gate(capsys)
    assert not _lies(report)
    assert code == 0, errors(report)
    records = [p for p in report["probes"] if p["probe"] == "honest values"]
    assert records and records[0]["outcome"] == "pass", records


# main's tests hold a value by a weak reference only: the split operands must not keep it alive
WEAK_CORE = (
    "import fractions\n\n\n"
    "class Int(fractions.Fraction):\n"
    "    def __add__(self, other):\n"
    "        return Int(fractions.Fraction.__add__(self, other))\n\n\n"
    "class Counter:\n"
    "    def __init__(self, cache):\n        self.cache = cache\n        self.count = Int(0)\n\n"
    "    def get(self, key):\n"
    "        try:\n            return self.cache[key]\n"
    "        except KeyError:\n"
    "            value = self.cache[key] = self.count\n"
    "            self.count += 1\n            return value\n\n\n"
    "def add(a, b):\n    return a + b\n\n\ndef label(n):\n    return f'n={n}'\n"
)
WEAK_TESTS = (
    "import gc\nimport unittest\nimport weakref\n\nfrom calc.core import Counter\n\n\n"
    "class WeakTest(unittest.TestCase):\n"
    "    def test_unittest_assert(self):\n"
    "        counter = Counter(weakref.WeakValueDictionary())\n"
    "        self.assertEqual(counter.get(0), 0)\n"
    "        gc.collect()\n"
    "        self.assertEqual(counter.get(0), 1)\n\n\n"
    "def test_plain_assert():\n"
    "    counter = Counter(weakref.WeakValueDictionary())\n"
    "    assert counter.get(0) == 0\n"
    "    gc.collect()\n"
    "    assert counter.get(0) == 1\n"
)


def test_values_compared_by_main_s_asserts_are_let_go_after_the_comparison(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    weak = Shared(
        tmp_path, {"calc/core.py": WEAK_CORE, "tests/fix/test_weak.py": WEAK_TESTS}, "weak"
    )
    capsys.readouterr()  # main's digest, made on first use
    weak.patch("honest-comment", {"calc/core.py": WEAK_CORE + "# honest\n"})
    code, report = weak.gate(capsys)
    assert code == 0, [(f["rule"], f["message"]) for s in report["steps"] for f in s["findings"]]
    planes = next(s for s in report["steps"] if s["step"] == "planes")
    assert planes["notes"][0] == "4/4 expected nodeids passed", planes
