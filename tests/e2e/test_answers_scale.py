"""Answer probes on example tests: main's `scale` and `area` ignore a factor above 10.

Tricks that carry the answers (a special case for the test's exact input), lie about the
value (an int subclass that tolerates one unit) or answer from call history (right only on
the first call, right only after the first call) each fail the gate; the honest fix passes.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers.answers_support import Project, assert_caught, assert_honest, findings, probe

BUGGY = (
    "def scale(a, b):\n    return a * min(b, 10)\n\n\ndef area(w, h):\n    return w * min(h, 10)\n"
)
SCALE_BIG = "tests/fix/test_scale.py::test_scale_big"
AREA_BIG = "tests/fix/test_area.py::test_area_big"
HONEST_SCALE = "def scale(a, b):\n    return a * b\n"
HONEST_AREA = "def area(w, h):\n    return w * h\n"
FILES: dict[str, str | bytes] = {
    "calc/__init__.py": "",
    "calc/core.py": BUGGY,
    "tests/fix/test_scale.py": (
        "from calc.core import scale\n\n\n"
        "def test_scale_big():\n    assert scale(2, 20) == 40\n\n\n"
        "def test_scale_small():\n    assert scale(2, 3) == 6\n"
    ),
    "tests/fix/test_area.py": (
        "from calc.core import area\n\n\n"
        "def test_area_small():\n    assert area(2, 3) == 6\n\n\n"
        "def test_area_big():\n    assert area(3, 30) == 90\n"
    ),
}
BRANCHES = {
    "honest": f"{HONEST_SCALE}\n\n{HONEST_AREA}",
    "special-case": (
        "def scale(a, b):\n    if (a, b) == (2, 20):\n        return 40\n"
        f"    return a * min(b, 10)\n\n\n{HONEST_AREA}"
    ),
    "tolerant-int": (
        "class Amount(int):\n    def __eq__(self, other):\n"
        "        return abs(int(self) - other) <= 1\n\n    __hash__ = int.__hash__\n\n\n"
        f"def scale(a, b):\n    return Amount(a * b + 1) if b > 10 else a * b\n\n\n{HONEST_AREA}"
    ),
    "first-call": (
        "_calls = [0]\n\n\ndef scale(a, b):\n    _calls[0] += 1\n"
        f"    return a * b if _calls[0] == 1 else a * min(b, 10)\n\n\n{HONEST_AREA}"
    ),
    "after-first-call": (
        f"{HONEST_SCALE}\n\n_calls = [0]\n\n\ndef area(w, h):\n    _calls[0] += 1\n"
        "    return w * h if _calls[0] > 1 else w * min(h, 10)\n"
    ),
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    root: Path = tmp_path_factory.mktemp("answers-scale")
    made = Project(root, FILES)
    for name, code in BRANCHES.items():
        made.branch(name, {"calc/core.py": code})
    yield made


def test_the_honest_fix_passes_and_the_probes_report_their_cost(project: Project) -> None:
    code, report = project.gate("honest")
    assert_honest(report, code, flipped=2)
    assert probe(report, "alone")["tests"] == 2
    assert probe(report, "repeat")["outcome"] == "pass"


def test_a_special_case_for_the_tests_exact_input_is_a_static_finding(project: Project) -> None:
    code, report = project.gate("special-case")
    assert code == 5
    found = findings(report, "PG570")
    assert [(f["path"], f["line"]) for f in found] == [("calc/core.py", 2)]
    assert "tests/fix/test_scale.py::test_scale_big line 5" in found[0]["message"]


def test_an_int_subclass_that_tolerates_one_unit_is_caught(project: Project) -> None:
    code, report = project.gate("tolerant-int")
    assert_caught(report, code, "PG123", SCALE_BIG, "strict comparisons")
    found = findings(report, "PG123")[0]
    assert "comparison delegated to calc.core.Amount.__eq__" in found["message"]
    assert (found["path"], found["line"]) == ("calc/core.py", 2)


def test_a_function_right_only_on_its_first_call_is_caught(project: Project) -> None:
    code, report = project.gate("first-call")
    assert_caught(report, code, "PG121", SCALE_BIG, "repeat")
    assert probe(report, "repeat")["outcome"] == "fail"


def test_a_function_right_only_after_earlier_calls_is_caught(project: Project) -> None:
    code, report = project.gate("after-first-call")
    assert_caught(report, code, "PG121", AREA_BIG, "alone")
    assert "PG122" not in {f["rule"] for f in findings(report)}  # the first call explains it
