"""Hunk rules for tests that are not Python (analysis/foreign_tests.py, PG527-PG531): each
weakening found with its line, and the honest edit beside it that must stay clean."""

from __future__ import annotations

import pytest

from planegate.analysis import foreign_tests
from planegate.analysis.foreign_lines import is_foreign_test, split

PROPS = """\
#include <gtest/gtest.h>
#include <random>
#include "normalize.h"

constexpr int kIterations = 500;

TEST(NormalizeProps, Idempotent) {
  std::mt19937 rng(0x5EED);
  for (int i = 0; i < kIterations; ++i) {
    auto p = random_path(rng);
    EXPECT_EQ(normalize(normalize(p)), normalize(p));
  }
}

TEST(NormalizeProps, NoDots) {
  std::mt19937 rng(0x5EED);
  for (int i = 0; i < 500; ++i) {
    ASSERT_FALSE(has_dot_segment(normalize(random_path(rng))));
  }
}
"""


def found(base: str, head: str, path: str = "tests/props_test.cpp") -> list[tuple[str, int]]:
    where = foreign_tests.Where(path, "agent[bot]", "property")
    return [(f.rule, f.line or 0) for f in foreign_tests.analyse(where, base, head)]


def test_an_honest_edit_is_clean() -> None:
    head = PROPS.replace('#include "normalize.h"', '#include "normalize.h"  // the library')
    head += '\nTEST(NormalizeProps, Empty) { EXPECT_EQ(normalize(""), "."); }\n'
    assert found(PROPS, head) == []


@pytest.mark.parametrize(
    ("old", "new", "line"),
    [
        ("TEST(NormalizeProps, NoDots) {", "TEST(NormalizeProps, DISABLED_NoDots) {", 15),
        ("  std::mt19937 rng(0x5EED);\n  for (int i = 0; i < 500",
         "  std::mt19937 rng(0x5EED);\n  GTEST_SKIP();\n  for (int i = 0; i < 500", 17),
    ],
)  # fmt: skip
def test_a_skip_added_is_pg527_at_its_line(old: str, new: str, line: int) -> None:
    assert found(PROPS, PROPS.replace(old, new, 1)) == [("PG527", line)]


def test_skips_in_go_rust_and_jest() -> None:
    assert found("func TestA(t *testing.T) {\n}\n", "func TestA(t *testing.T) {\n\tt.Skip()\n}\n",
                 "pkg/a_test.go") == [("PG527", 2)]  # fmt: skip
    assert found("#[test]\nfn a() {}\n", "#[test]\n#[ignore]\nfn a() {}\n", "src/lib.rs") == [
        ("PG527", 2)
    ]
    base = "it('adds', () => {\n  expect(add(1, 2)).toBe(3);\n});\n"
    assert found(base, base.replace("it(", "it.skip("), "src/add.test.ts") == [("PG527", 1)]
    assert found(base, base.replace("it(", "xit("), "src/add.test.ts") == [("PG527", 1)]


def test_a_ctest_disabled_property_is_a_skip() -> None:
    base = "add_test(NAME timing COMMAND timing_test)\n"
    head = base + "set_tests_properties(timing PROPERTIES DISABLED TRUE)\n"
    assert found(base, head, "tests/CMakeLists.txt") == [("PG527", 2)]


def test_an_assertion_removed_is_pg528_where_it_was() -> None:
    head = PROPS.replace("    EXPECT_EQ(normalize(normalize(p)), normalize(p));\n", "")
    assert found(PROPS, head) == [("PG528", 11)]


@pytest.mark.parametrize("hide", ["// {}", "/* {} */"])
def test_an_assertion_commented_out_is_pg529(hide: str) -> None:
    line = "    ASSERT_FALSE(has_dot_segment(normalize(random_path(rng))));"
    head = PROPS.replace(line, "    " + hide.format(line.strip()))
    assert found(PROPS, head) == [("PG529", 18)]


def test_an_assertion_under_if_0_is_commented_out() -> None:
    line = "    ASSERT_FALSE(has_dot_segment(normalize(random_path(rng))));\n"
    head = PROPS.replace(line, "#if 0\n" + line + "#endif\n")
    assert found(PROPS, head) == [("PG529", 19)]


def test_rust_go_and_jest_assertions_removed() -> None:
    base = "fn a() {\n    assert_eq!(add(1, 2), 3);\n    assert!(ok());\n}\n"
    assert found(base, base.replace("    assert!(ok());\n", ""), "src/lib.rs") == [("PG528", 3)]
    base = "func TestA(t *testing.T) {\n\trequire.Equal(t, 3, Add(1, 2))\n}\n"
    assert found(base, base.replace("\trequire.Equal(t, 3, Add(1, 2))\n", ""), "a_test.go") == [
        ("PG528", 2)
    ]
    base = "it('a', () => {\n  expect(add(1, 2)).toBe(3);\n});\n"
    head = base.replace("  expect(add(1, 2)).toBe(3);", "  // expect(add(1, 2)).toBe(3);")
    assert found(base, head, "a.test.js") == [("PG529", 2)]


def test_a_frozen_seed_changed_is_pg530() -> None:
    head = PROPS.replace("rng(0x5EED)", "rng(0x5EEE)", 1)
    assert found(PROPS, head) == [("PG530", 8)]
    head = PROPS.replace("std::mt19937 rng(0x5EED);", "std::mt19937 rng(std::random_device{}());")
    assert [rule for rule, _ in found(PROPS, head)] == ["PG530", "PG530"]


@pytest.mark.parametrize(
    ("old", "new", "line"),
    [("kIterations = 500", "kIterations = 50", 5), ("i < 500", "i < 5", 17)],
)
def test_an_iteration_budget_lowered_is_pg531(old: str, new: str, line: int) -> None:
    assert found(PROPS, PROPS.replace(old, new)) == [("PG531", line)]


def test_a_budget_raised_is_clean() -> None:
    assert found(PROPS, PROPS.replace("i < 500", "i < 5000")) == []


def test_which_files_the_rules_read() -> None:
    assert is_foreign_test("tests/props_test.cpp", protected=False)
    assert is_foreign_test("src/normalize.cpp", protected=True)
    assert not is_foreign_test("src/normalize.cpp", protected=False)
    assert is_foreign_test("src/lib.rs", protected=False)
    assert is_foreign_test("web/__tests__/add.js", protected=False)
    assert not is_foreign_test("tests/test_a.py", protected=True)


def test_comments_and_code_are_split() -> None:
    lines = split("a(); // b\n/* c\nd */ e();\n", "c")
    assert [(x.code, x.comment) for x in lines] == [("a();", "b"), ("", "c"), ("e();", "d")]


NODE = "test('add commutes', () => {\n  assert.strictEqual(add(1, 2), add(2, 1));\n});\n"


@pytest.mark.parametrize(
    "option",
    ["{ skip: true }", "{ skip: 'later' }", "{todo:true}", "{ only: true }", '{ "skip": 1 }'],
)
def test_a_node_test_option_that_skips_is_pg527(option: str) -> None:
    head = NODE.replace("'add commutes', ", f"'add commutes', {option}, ")
    assert found(NODE, head, "test/calc.test.js") == [("PG527", 1)]


def test_a_false_skip_option_and_a_c_label_named_skip_are_clean() -> None:
    head = NODE.replace("'add commutes', ", "'add commutes', { skip: false }, ")
    assert found(NODE, head, "test/calc.test.js") == []
    c_base = "void t(void) {\n  EXPECT_EQ(f(), 1);\n}\n"
    c_head = "void t(void) {\n  EXPECT_EQ(f(), 1);\nskip:\n  return;\n}\n"
    assert found(c_base, c_head, "tests/t_test.c") == []
