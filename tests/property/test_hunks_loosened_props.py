"""Loosened comparisons, as properties: any part in place of the whole is PG540, a None or type
check in place of the equality is PG541."""

from __future__ import annotations

import textwrap

from hypothesis import given
from hypothesis import strategies as st

from planegate.analysis.hunks.analyze import analyze_file
from planegate.findings import Finding


def run(base: str, head: str) -> list[Finding]:
    return analyze_file(
        "tests/test_shop.py",
        textwrap.dedent(base),
        textwrap.dedent(head),
        plane="fixture",
        owner="@shop",
        fixture_plane=False,
    )


def rules(findings: list[Finding]) -> list[str]:
    return sorted(f.rule for f in findings)


# --------------------------------------------------------------------------- properties

NAMES = st.sampled_from(["result", "value", "out", "got"])
WRAPS = st.sampled_from(
    ["len({})", "sorted({})", "set({})", "{}.keys()", "{}.values()", "{}[0]", "{}.name"]
)


@given(NAMES, WRAPS, st.booleans())
def test_any_part_in_place_of_the_whole_is_pg540(name: str, wrap: str, unittest: bool) -> None:
    if unittest:
        line = "        self.assertEqual({}, EXPECTED)\n"
        frame = "import unittest\n\n\nclass TestX(unittest.TestCase):\n    def test_x(self):\n"
        body = f"        {name} = make()\n"
    else:
        line = "    assert {} == EXPECTED\n"
        frame = "def test_x():\n"
        body = f"    {name} = make()\n"
    base = frame + body + line.format(name)
    head = frame + body + line.format(wrap.format(name))
    assert rules(run(base, head)) == ["PG540"]
    assert rules(run(base, base)) == []
    assert rules(run(head, head)) == []
    both = frame + body + line.format(name) + line.format(wrap.format(name))
    assert rules(run(base, both)) == []


@given(NAMES, st.sampled_from(["{} is None", "{} is not None", "isinstance({}, int)"]))
def test_any_none_or_type_check_in_place_of_the_equality_is_pg541(name: str, check: str) -> None:
    base = f"def test_x():\n    {name} = make()\n    assert {name} == 3\n"
    head = f"def test_x():\n    {name} = make()\n    assert {check.format(name)}\n"
    assert rules(run(base, head)) == ["PG541"]
    assert rules(run(head, base)) == []
