"""One real before/after pair of a test file for every PG5xx rule."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from helpers.hunk_cases import BASE_TOTAL, SKIP_CASES
from planegate.analysis.hunks import is_test_file
from planegate.analysis.hunks.analyze import analyze_file
from planegate.analysis.hunks.unchanged import blocks, sparsify
from planegate.findings import Finding, Severity, Step
from planegate.rules import RULES

DOCS = Path(__file__).resolve().parents[2] / "docs" / "findings-hunks.md"


def run(
    base: str | None,
    head: str | None,
    *,
    path: str = "tests/test_calc.py",
    fixture_plane: bool = False,
    async_plugin: bool = False,
) -> list[Finding]:
    return analyze_file(
        path,
        None if base is None else textwrap.dedent(base),
        None if head is None else textwrap.dedent(head),
        plane="fixture" if fixture_plane else "property",
        owner="@calc-owners",
        fixture_plane=fixture_plane,
        async_plugin=async_plugin,
    )


def only(findings: list[Finding], rule: str) -> Finding:
    matching = [f for f in findings if f.rule == rule]
    assert len(matching) == 1, [(f.rule, f.message) for f in findings]
    return matching[0]


@pytest.mark.parametrize("case", sorted(SKIP_CASES))
def test_pg501_every_form_of_skip(case: str) -> None:
    base, head, message = SKIP_CASES[case]
    finding = only(run(base, head), "PG501")
    assert message in finding.message
    assert finding.step is Step.HUNKS and finding.severity is Severity.ERROR
    assert finding.owner == "@calc-owners"


def test_pg501_class_decorator_from_unittest() -> None:
    base = (
        "import unittest\n\nclass TestTotal(unittest.TestCase):\n"
        "    def test_a(self):\n        self.assertTrue(1)\n"
    )
    head = base.replace("class TestTotal", '@unittest.skip("later")\nclass TestTotal')
    finding = only(run(base, head), "PG501")
    assert finding.message == "TestTotal: @unittest.skip added"
    assert finding.nodeid == "tests/test_calc.py::TestTotal"


def test_pg501_rewording_a_reason_is_not_a_new_skip() -> None:
    base = BASE_TOTAL.replace("def test_total", '@pytest.mark.skip(reason="a")\ndef test_total')
    head = base.replace('reason="a"', 'reason="tracked in #12"')
    assert run(base, head) == []


def test_pg502_assert_removed_names_count_and_base_line() -> None:
    head = BASE_TOTAL.replace("    assert result > 0\n", "")
    finding = only(run(BASE_TOTAL, head), "PG502")
    assert (
        finding.message == "test_total: 1 of 2 asserts removed (`assert result > 0`, base line 7)"
    )
    assert finding.line == 7
    assert finding.nodeid == "tests/test_calc.py::test_total"


def test_pg502_unittest_assert_calls_count() -> None:
    base = """\
    import unittest

    class TestTotal(unittest.TestCase):
        def test_total(self):
            self.assertEqual(sum([1, 2]), 3)
            self.assertIn(3, [3])
    """
    head = base.replace("        self.assertIn(3, [3])\n", "")
    assert "1 of 2 asserts removed" in only(run(base, head), "PG502").message


def test_pg502_consolidated_asserts_are_not_removed() -> None:
    head = BASE_TOTAL.replace(
        "    assert result == 3\n    assert result > 0\n",
        "    assert (result == 3, result > 0) == (True, True)\n",
    )
    assert [f.rule for f in run(BASE_TOTAL, head)] == []


VACUOUS = {
    "true constant": ("assert result == 3", "assert True", "asserts a true constant"),
    "or True": ("assert result == 3", "assert result == 3 or True", "`or` with a true"),
    "self comparison": ("assert result == 3", "assert result == result", "to itself"),
    "non-empty literal": ("assert result == 3", 'assert (result == 3, "msg")', "non-empty"),
    "truthiness": ("assert result == 3", "assert result", "value check replaced"),
}


@pytest.mark.parametrize("case", sorted(VACUOUS))
def test_pg503_vacuous_asserts(case: str) -> None:
    before, after, why = VACUOUS[case]
    head = BASE_TOTAL.replace(before, after)
    finding = only(run(BASE_TOTAL, head), "PG503")
    assert why in finding.message
    assert finding.line == 6


def test_pg503_unittest_assert_true_of_constant() -> None:
    base = """\
    import unittest

    class TestTotal(unittest.TestCase):
        def test_total(self):
            self.assertEqual(sum([1, 2]), 3)
    """
    head = base.replace("self.assertEqual(sum([1, 2]), 3)", "self.assertTrue(True)")
    assert "asserts a true constant" in only(run(base, head), "PG503").message


DEAD_BASE = textwrap.dedent(
    """\
    import contextlib
    import os
    from calc import total

    def test_total():
        result = total([1, 2])
        assert result == 3
        assert result > 0
"""
)

DEAD = {
    "early return": ("    return\n    assert result == 3\n", "after the early return at line 7"),
    "if False": ("    if False:\n        assert result == 3\n", "under `if False`"),
    "environment gate": (
        "    if os.environ.get('FULL'):\n        assert result == 3\n",
        "environment-gated",
    ),
    "suppress": (
        "    with contextlib.suppress(AssertionError):\n        assert result == 3\n",
        "suppress(AssertionError)",
    ),
}


@pytest.mark.parametrize("case", sorted(DEAD))
def test_pg504_assert_made_dead(case: str) -> None:
    guarded, why = DEAD[case]
    head = DEAD_BASE.replace("    assert result == 3\n", guarded)
    finding = only(run(DEAD_BASE, head), "PG504")
    assert "of 2 asserts made dead" in finding.message
    assert why in finding.message


def test_pg504_try_except_assertion_error_pass() -> None:
    head = BASE_TOTAL.replace(
        "    assert result == 3\n",
        "    try:\n        assert result == 3\n    except AssertionError:\n        pass\n",
    )
    finding = only(run(BASE_TOTAL, head), "PG504")
    assert "swallowed by `except AssertionError`" in finding.message


RAISES_BASE = textwrap.dedent(
    """\
    import pytest
    from calc import parse

    def test_negative():
        with pytest.raises(ValueError, match="negative"):
            parse("-1")
"""
)


def test_pg505_raises_broadened() -> None:
    head = RAISES_BASE.replace('ValueError, match="negative"', 'Exception, match="negative"')
    finding = only(run(RAISES_BASE, head), "PG505")
    assert finding.message == (
        "test_negative: pytest.raises broadened from ValueError to Exception"
    )


def test_pg505_builtin_superclass_counts_as_broader() -> None:
    base = RAISES_BASE.replace("ValueError", "KeyError")
    head = base.replace("KeyError", "LookupError")
    assert "from KeyError to LookupError" in only(run(base, head), "PG505").message


def test_pg505_match_removed() -> None:
    head = RAISES_BASE.replace(', match="negative"', "")
    finding = only(run(RAISES_BASE, head), "PG505")
    assert finding.message == "test_negative: pytest.raises match removed (was 'negative')"


APPROX_BASE = textwrap.dedent(
    """\
    import pytest
    from calc import mean

    def test_mean():
        assert mean([1, 2]) == pytest.approx(1.5, rel=1e-9)
"""
)


def test_pg506_approx_rel_raised() -> None:
    head = APPROX_BASE.replace("rel=1e-9", "rel=0.5")
    finding = only(run(APPROX_BASE, head), "PG506")
    assert finding.message == "test_mean: pytest.approx rel raised from 1e-09 to 0.5"
    assert finding.line == 5


def test_pg506_isclose_abs_tol_and_assert_almost_equal_places() -> None:
    base = """\
    import math
    import unittest

    class TestMean(unittest.TestCase):
        def test_mean(self):
            assert math.isclose(1.5, 1.5000001)
            self.assertAlmostEqual(1.5, 1.50001, places=7)
    """
    head = base.replace("1.5000001)", "1.5000001, abs_tol=1)").replace("places=7", "places=2")
    messages = sorted(f.message for f in run(base, head) if f.rule == "PG506")
    assert messages == [
        "TestMean::test_mean: assertAlmostEqual places lowered from 7 to 2",
        "TestMean::test_mean: math.isclose abs_tol raised from 0 to 1",
    ]


def test_pg506_exact_comparison_replaced_by_wide_approx() -> None:
    base = APPROX_BASE.replace("pytest.approx(1.5, rel=1e-9)", "1.5")
    head = APPROX_BASE.replace("rel=1e-9", "abs=1")
    finding = only(run(base, head), "PG506")
    assert finding.message == "test_mean: exact comparison replaced by pytest.approx (abs=1)"
    assert finding.severity is Severity.ERROR


def test_pg507_expected_literal_changed_in_fixture_plane() -> None:
    head = BASE_TOTAL.replace("assert result == 3", "assert result == 4")
    finding = only(run(BASE_TOTAL, head, fixture_plane=True), "PG507")
    assert finding.message == (
        "test_total: expected value changed in a fixture-plane test (3 -> 4)"
    )
    assert finding.plane == "fixture"
    assert [f.rule for f in run(BASE_TOTAL, head, fixture_plane=False)] == []


def test_pg507_module_constant_changed_in_fixture_plane() -> None:
    base = (
        "EXPECTED = {'total': 3}\n\n"
        "def test_total():\n    assert sum([1, 2]) == EXPECTED['total']\n"
    )
    head = base.replace("'total': 3", "'total': 4")
    finding = only(run(base, head, fixture_plane=True), "PG507")
    assert finding.message.startswith("EXPECTED: expected data changed")


PARAM_BASE = textwrap.dedent(
    """\
    import pytest

    @pytest.mark.parametrize("a,b", [(1, 2), (3, 4), (5, 6)])
    def test_less(a, b):
        assert a < b
"""
)


def test_pg508_parametrize_case_removed() -> None:
    head = PARAM_BASE.replace("(3, 4), ", "")
    finding = only(run(PARAM_BASE, head), "PG508")
    assert finding.message == "test_less: 1 of 3 parametrize cases removed for 'a,b': (3, 4)"


def test_pg508_cases_through_a_module_list() -> None:
    base = (
        "import pytest\n\nCASES = [1, 2, 3]\n\n"
        "@pytest.mark.parametrize('n', CASES)\ndef test_n(n):\n    assert n > 0\n"
    )
    head = base.replace("[1, 2, 3]", "[1]")
    assert "2 of 3 parametrize cases removed" in only(run(base, head), "PG508").message


def test_pg509_test_deleted_and_file_deleted() -> None:
    base = BASE_TOTAL + "\ndef test_empty():\n    assert total([]) == 0\n"
    finding = only(run(base, BASE_TOTAL), "PG509")
    assert finding.message == "test_empty: test deleted (it had 1 assert)"
    assert finding.line == 9
    gone = run(base, None)
    assert sorted(f.nodeid or "" for f in gone if f.rule == "PG509") == [
        "tests/test_calc.py::test_empty",
        "tests/test_calc.py::test_total",
    ]


@pytest.mark.parametrize("name", ["check_total", "total_test", "_test_total"])
def test_pg510_renamed_to_a_non_collected_name(name: str) -> None:
    head = BASE_TOTAL.replace("def test_total", f"def {name}")
    finding = only(run(BASE_TOTAL, head), "PG510")
    assert finding.message == f"test_total: renamed to {name}, which pytest does not collect"
    assert finding.nodeid == "tests/test_calc.py::test_total"


def test_pg510_class_given_an_init_or_dunder_test() -> None:
    base = "class TestTotal:\n    def test_a(self):\n        assert sum([1]) == 1\n"
    for head in (
        base.replace("class TestTotal:\n", "class TestTotal:\n    __test__ = False\n"),
        base.replace(
            "class TestTotal:\n", "class TestTotal:\n    def __init__(self):\n        pass\n"
        ),
    ):
        assert "no longer collected" in only(run(base, head), "PG510").message


def test_pg511_made_async_without_plugin() -> None:
    head = BASE_TOTAL.replace("def test_total", "async def test_total")
    finding = only(run(BASE_TOTAL, head), "PG511")
    assert finding.message.startswith("test_total: made `async def`")
    assert run(BASE_TOTAL, head, async_plugin=True) == []


def test_pg512_shadowed_by_duplicate() -> None:
    head = BASE_TOTAL + "\ndef test_total():\n    assert True\n"
    finding = only(run(BASE_TOTAL, head), "PG512")
    assert finding.line == 4
    assert "shadowed by a second definition at line 9" in finding.message


HYPO_BASE = textwrap.dedent(
    """\
    from hypothesis import example, given, settings, strategies as st
    from calc import total

    @settings(max_examples=500, derandomize=True)
    @example([])
    @example([0])
    @given(st.lists(st.integers(min_value=-10, max_value=10), max_size=20))
    def test_total_is_sum(xs):
        assert total(xs) == sum(xs)
"""
)


def test_pg513_max_examples_lowered() -> None:
    head = HYPO_BASE.replace("max_examples=500", "max_examples=5")
    finding = only(run(HYPO_BASE, head), "PG513")
    assert finding.message == "test_total_is_sum: max_examples lowered from 500 to 5"


def test_pg514_assume_and_filter_added() -> None:
    head = (
        HYPO_BASE.replace("max_size=20))", "max_size=20).filter(bool))")
        .replace("    assert total", "    assume(len(xs) < 3)\n    assert total")
        .replace("from hypothesis import", "from hypothesis import assume,")
    )
    messages = sorted(f.message for f in run(HYPO_BASE, head) if f.rule == "PG514")
    assert messages == [
        "test_total_is_sum: .filter() added (0 -> 1)",
        "test_total_is_sum: assume() added (0 -> 1)",
    ]


def test_pg515_example_removed() -> None:
    head = HYPO_BASE.replace("@example([0])\n", "")
    finding = only(run(HYPO_BASE, head), "PG515")
    assert finding.message == "test_total_is_sum: 1 @example case removed: example([0])"


def test_pg516_strategy_bounds_tightened() -> None:
    head = HYPO_BASE.replace("max_value=10", "max_value=1")
    finding = only(run(HYPO_BASE, head), "PG516")
    assert "max_value lowered from 10 to 1" in finding.message


def test_pg516_sampled_from_one_value() -> None:
    base = (
        "from hypothesis import given, strategies as st\n\n"
        "@given(st.sampled_from([1, 2, 3]))\ndef test_n(n):\n    assert n > 0\n"
    )
    head = base.replace("[1, 2, 3]", "[2]")
    assert "(a single value)" in only(run(base, head), "PG516").message


def test_pg517_phases_limited() -> None:
    head = HYPO_BASE.replace("derandomize=True", "derandomize=True, phases=[Phase.explicit]")
    finding = only(run(HYPO_BASE, head), "PG517")
    assert finding.message == (
        "test_total_is_sum: phases limited, generate, reuse, target no longer run"
    )


def test_pg518_derandomize_and_seed_changed() -> None:
    head = HYPO_BASE.replace(", derandomize=True", "").replace(
        "@example([])", "@seed(1234)\n@example([])"
    )
    messages = sorted(f.message for f in run(HYPO_BASE, head) if f.rule == "PG518")
    assert messages == [
        "test_total_is_sum: seed changed from (none) to @seed(1234)",
        "test_total_is_sum: settings derandomize changed from True to (unset)",
    ]


def test_pg519_invariant_removed() -> None:
    base = textwrap.dedent(
        """\
    from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

    class Counter(RuleBasedStateMachine):
        value = 0

        @rule()
        def bump(self):
            self.value += 1

        @invariant()
        def never_negative(self):
            assert self.value >= 0

    TestCounter = Counter.TestCase
    """
    )
    head = base.replace(
        "    @invariant()\n    def never_negative(self):\n        assert self.value >= 0\n", ""
    )
    finding = only(run(base, head), "PG519")
    assert finding.message.startswith("Counter::never_negative: invariant removed")


CONFTEST = "import pytest\n\n@pytest.fixture\ndef db():\n    return {}\n"


def test_pg520_new_hook_in_conftest() -> None:
    head = CONFTEST + "\ndef pytest_collection_modifyitems(config, items):\n    items.clear()\n"
    finding = only(run(CONFTEST, head, path="tests/conftest.py"), "PG520")
    assert finding.message.startswith("new hook pytest_collection_modifyitems")
    assert finding.line == 7


def test_pg525_changed_hook_is_a_warning() -> None:
    base = (
        CONFTEST
        + "\ndef pytest_configure(config):\n    config.addinivalue_line('markers', 'slow')\n"
    )
    head = base.replace("'slow'", "'slow: long'")
    finding = only(run(base, head, path="tests/conftest.py"), "PG525")
    assert finding.severity is Severity.WARNING


def test_pg521_collect_ignore_extended() -> None:
    head = CONFTEST + "\ncollect_ignore = ['test_slow.py']\n"
    finding = only(run(CONFTEST, head, path="tests/conftest.py"), "PG521")
    assert finding.message == "collect_ignore adds 'test_slow.py'"


def test_pg522_pytest_plugins_extended() -> None:
    head = "pytest_plugins = ['myplugin']\n" + CONFTEST
    finding = only(run(CONFTEST, head, path="conftest.py"), "PG522")
    assert finding.message == "pytest_plugins adds 'myplugin'"


def test_pg523_autouse_fixture_that_monkeypatches() -> None:
    head = CONFTEST + (
        "\n@pytest.fixture(autouse=True)\ndef fast(monkeypatch):\n"
        "    monkeypatch.setattr('calc.total', lambda xs: 3)\n"
    )
    finding = only(run(CONFTEST, head, path="tests/conftest.py"), "PG523")
    assert finding.message.startswith("autouse fixture fast patches")


def test_pg524_unparsable_head_falls_back_to_lines() -> None:
    head = BASE_TOTAL.replace("    assert result > 0\n", "    print(result +\n").replace(
        "def test_total", "@pytest.mark.skip\ndef test_total"
    )
    findings = run(BASE_TOTAL, head)
    assert {f.rule for f in findings} == {"PG524"}
    assert all("head does not parse" in f.message for f in findings)
    assert any("skip or xfail added" in f.message for f in findings)
    assert any("1 assert line removed" in f.message for f in findings)


def test_pg524_unparsable_without_weakening_is_a_warning() -> None:
    head = BASE_TOTAL + "\ndef broken(:\n"
    finding = only(run(BASE_TOTAL, head), "PG524")
    assert finding.severity is Severity.WARNING
    assert "line-based check found no weakening" in finding.message


def test_added_file_with_honest_tests_has_no_finding() -> None:
    assert run(None, BASE_TOTAL) == []
    assert [f.rule for f in run(None, BASE_TOTAL.replace("assert result > 0", "assert True"))] == [
        "PG503"
    ]


def test_is_test_file() -> None:
    assert is_test_file("tests/test_calc.py")
    assert is_test_file("pkg/calc_test.py")
    assert is_test_file("tests/sub/conftest.py")
    assert not is_test_file("src/calc.py")
    assert not is_test_file("tests/test_data.json")


def _emitted_rules() -> set[str]:
    analysis = Path(__file__).resolve().parents[2] / "src/planegate/analysis"
    paths = [*analysis.joinpath("hunks").rglob("*.py"), analysis / "foreign_tests.py"]
    source = "".join(path.read_text("utf-8") for path in paths)
    return set(re.findall(r'"(PG5\d\d)"', source))


def test_every_emitted_rule_is_catalogued_and_documented() -> None:
    emitted = _emitted_rules() | {"PG501"}
    docs = DOCS.read_text("utf-8")
    for rule_id in sorted(emitted):
        rule = RULES[rule_id]
        assert rule.step is Step.HUNKS
        assert not rule.agent_may_fix
        assert rule.title and rule.why and rule.how_to_fix
        assert f"## {rule_id}" in docs
    # PG550-PG599 belong to the production-code scan and the property lint
    assert emitted == {rule_id for rule_id in RULES if "PG501" <= rule_id <= "PG549"}


def test_blocks_keep_decorators_else_and_strings_with_their_statement() -> None:
    source = (
        "import x\n\n@dec(\n    1,\n)\ndef test_a():\n    pass\n"
        "if x:\n    pass\nelse:\n    pass\n"
        'DOC = """\ndef test_fake():\n"""\n'
    )
    found = [(block.line, block.name) for block in blocks(source)]
    assert found == [(1, None), (3, "test_a"), (8, None), (12, None), (13, "test_fake")]


def test_a_def_inside_a_string_falls_back_to_the_whole_file() -> None:
    base = 'DOC = """\ndef test_fake():\n    pass\n"""\n\ndef test_a():\n    assert 1 == 1\n'
    head = base.replace("assert 1 == 1", "assert True")
    assert sparsify(base, head) is not None
    assert [f.rule for f in run(base, head)] == ["PG503"]
