"""The assert split's shortcuts (probes/honest/child/operands.py, scopes.py): what it skips by
the module's text, and the operand text it writes itself, change nothing it produces."""

from __future__ import annotations

import ast
from typing import Any

import pytest

from planegate.probes.honest.child import operands, scopes

PACKAGES = frozenset({"calc", "tests"})
SOURCE = (
    '"""Doc."""\n'
    "import unittest\n"
    "from calc.core import add\n"
    "LIMIT = [n for n in range(3)]\n"
    "EXPECTED = LATER\n"  # 5: a name used before it is bound is a builtin's
    "LATER = add(1, 1)\n"
    "def helper(x):\n"
    "    total = 0\n"
    "    for i in range(x):\n"
    "        total += i\n"  # 10
    "    return total\n"
    "def test_walrus(n):\n"
    "    if (got := add(1, 2)) is not None:\n"
    "        value = [n for n in (1,)]\n"
    "    assert got == EXPECTED\n"  # 15
    "    assert value == [n, EXPECTED, LIMIT]\n"
    "@unittest.skipIf(False, [k for k in ()])\n"
    "class T(unittest.TestCase):\n"
    "    def test_m(self):\n"
    "        x = 1\n"  # 20
    "        self.assertEqual(\n"
    "            add(x, 1), 2)\n"
    "        self \\\n"
    "            .assertIn(add(x, 0), [x])\n"
    "    def setUp(self):\n"  # 25
    "        self.ready = [add(1, 1) for _ in ()]\n"
)


def _split(source: bytes, with_text: bool) -> tuple[int, str]:
    module = ast.parse(source)
    count = operands.transform(module, "tests/t.py", PACKAGES, source if with_text else None)
    return count, ast.dump(module, include_attributes=True)


@pytest.mark.parametrize(
    "source",
    [
        SOURCE.encode(),
        SOURCE.replace("\n", "\r\n").encode(),  # Windows line ends: lines still counted
        SOURCE.replace("x = 1", "x = 1  # \u00e9").encode(),  # not ASCII: nothing skipped
        SOURCE.replace("self \\\n", "self.\uff41ssertEqual(x, 1)\n        self \\\n").encode(),
        SOURCE.replace("    return total\n", "    return total\r").encode(),  # a lone CR
    ],
)
def test_the_text_shortcuts_give_the_tree_a_full_walk_gives(source: bytes) -> None:
    count, tree = _split(source, with_text=True)
    assert (count, tree) == _split(source, with_text=False)
    assert count >= 4


def test_a_module_name_is_read_in_the_order_it_is_bound() -> None:
    module = ast.parse(SOURCE)
    operands.transform(module, "tests/t.py", PACKAGES, SOURCE.encode())
    infos: list[Any] = [
        node.args[1].value
        for node in ast.walk(module)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == operands.CHECK
        and isinstance(node.args[1], ast.Constant)
    ]
    by_line = {info[0]: info for info in infos}
    # EXPECTED is bound to LATER before LATER is bound: a builtin's name, made by the test
    assert by_line["tests/t.py:15"][1:] == (("got", "EXPECTED"), ("", ""), (False, True))
    assert by_line["tests/t.py:21"][1:] == (("add(x, 1)", "2"), ("add", ""), (False, True))


def test_a_method_named_in_other_than_ascii_is_still_split() -> None:
    source = SOURCE.replace("self \\\n", "self.\uff41ssertEqual(x, 1)\n        self \\\n")
    assert _split(source.encode(), with_text=True)[0] == _split(SOURCE.encode(), True)[0] + 1


def test_a_module_that_never_spells_assert_is_left_as_it_is() -> None:
    source = b"def test_x():\n    check(1 == 1)\n"
    module = ast.parse(source)
    before = ast.dump(module, include_attributes=True)
    assert operands.transform(module, "tests/t.py", PACKAGES, source) == 0
    assert ast.dump(module, include_attributes=True) == before


def test_lines_are_counted_as_the_parser_counts_them() -> None:
    source = b"a = 1\nassert a\n\nx = [i for i in y]; assert x\r\n"
    assert operands.lines_of(source, operands.ASSERTS) == [2, 4]
    assert operands.lines_of(source, operands.BINDING) == [4]
    assert operands.lines_of(b"a = 1\rassert a\n", operands.ASSERTS) is None
    assert operands.lines_of("assert '\u00e9'".encode(), operands.ASSERTS) is None


@pytest.mark.parametrize(
    "expression",
    [
        "name",
        "self.cache.get(1, default=None)",
        "d['k'][0]",
        "f(*args, **kwargs)",
        "u'text'",
        "b'\\x00' + 'it\\'s'",
        "(1).real",
        "a[1:2, 3]",
        "f(x for x in y)",
        "1e999",
        "obj.method(True, None, -1, 'a\"b')",
    ],
)
def test_the_operand_text_is_what_ast_unparse_writes(expression: str) -> None:
    node = ast.parse(expression, mode="eval").body
    assert scopes.text(node) == ast.unparse(node)
