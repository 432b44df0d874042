"""PG540/PG541: a comparison the patch loosened without removing it, on real before/after
pairs of a test file, in plain asserts and in unittest's assertion methods."""

from __future__ import annotations

import textwrap

import pytest

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


PLAIN = """\
from shop import receipt


def test_receipt():
    result = receipt(["apple", "pear"])
    assert result == {"total": 3, "lines": ["apple", "pear"]}
"""

PARTS = {
    "len": ("len(result) == 2", "only its length"),
    "keys": ('result.keys() == {"total", "lines"}', "only its keys"),
    "values": ("list(result.values()) == [3, ['apple', 'pear']]", "only its values"),
    "sorted": ('sorted(result) == ["lines", "total"]', "without their order"),
    "set": ('set(result) == {"lines", "total"}', "distinct items"),
    "entry": ('result["total"] == 3', "one entry of it"),
    "attribute": ("result.total == 3", "one attribute of it (.total)"),
    "nested": ('len(result["lines"]) == 2', "only its length"),
}


@pytest.mark.parametrize("case", sorted(PARTS))
def test_pg540_plain_assert_narrowed_to_a_part(case: str) -> None:
    compared, what = PARTS[case]
    head = PLAIN.replace(
        'result == {"total": 3, "lines": ["apple", "pear"]}', compared.replace("'", '"')
    )
    findings = run(PLAIN, head)
    assert rules(findings) == ["PG540"], [f.message for f in findings]
    (finding,) = findings
    assert what in finding.message
    assert finding.line == 6
    assert finding.message.startswith("test_receipt: `")


UNITTEST = """\
import unittest

from shop import Order, order_of


class TestOrder(unittest.TestCase):
    def test_order(self):
        order = order_of("apple")
        self.assertEqual(order, Order(total=3, items=["apple"]))
"""


@pytest.mark.parametrize(
    ("after", "rule", "what"),
    [
        ("self.assertEqual(order.total, 3)", "PG540", "one attribute of it (.total)"),
        ("self.assertEqual(len(order.items), 1)", "PG540", "only its length"),
        ("self.assertCountEqual(order.items, ['apple'])", "PG540", "(.items)"),
        ("self.assertIsNotNone(order)", "PG541", "whether it is None"),
        ("self.assertIsNone(order)", "PG541", "whether it is None"),
        ("self.assertIsInstance(order, Order)", "PG541", "only its type"),
    ],
)
def test_unittest_assertion_methods(after: str, rule: str, what: str) -> None:
    head = UNITTEST.replace('self.assertEqual(order, Order(total=3, items=["apple"]))', after)
    findings = run(UNITTEST, head)
    assert rules(findings) == [rule], [f.message for f in findings]
    assert what in findings[0].message
    assert findings[0].nodeid == "tests/test_shop.py::TestOrder::test_order"


@pytest.mark.parametrize(
    ("after", "what"),
    [
        ("result is None", "whether it is None"),
        ("result is not None", "whether it is None"),
        ("isinstance(result, dict)", "only its type"),
    ],
)
def test_pg541_plain_assert_replaced_by_a_none_or_type_check(after: str, what: str) -> None:
    head = PLAIN.replace('result == {"total": 3, "lines": ["apple", "pear"]}', after)
    findings = run(PLAIN, head)
    assert rules(findings) == ["PG541"], [f.message for f in findings]
    assert what in findings[0].message


SAFE = {
    "a part checked beside the whole": PLAIN.replace(
        '    assert result == {"total": 3, "lines": ["apple", "pear"]}\n',
        '    assert result == {"total": 3, "lines": ["apple", "pear"]}\n'
        "    assert len(result) == 2\n",
    ),
    "the whole value, reformatted": PLAIN.replace(
        'result == {"total": 3, "lines": ["apple", "pear"]}',
        '{"total": 3, "lines": ["apple", "pear"]} == result',
    ),
    "a None check added beside the equality": PLAIN.replace(
        "    assert result ==", "    assert result is not None\n    assert result =="
    ),
}


@pytest.mark.parametrize("case", sorted(SAFE))
def test_no_finding_when_the_whole_value_is_still_compared(case: str) -> None:
    assert [f for f in run(PLAIN, SAFE[case]) if f.rule in ("PG540", "PG541")] == []


def test_a_part_the_base_already_compared_alone_is_not_new() -> None:
    both = "    assert len(result) == 2\n    assert result =="
    base = PLAIN.replace("    assert result ==", both)
    head = base.replace('    assert result == {"total": 3, "lines": ["apple", "pear"]}\n', "")
    found = run(base, head)
    assert rules(found) == ["PG502"]  # the whole comparison removed: PG502 says so
