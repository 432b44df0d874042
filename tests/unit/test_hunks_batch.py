"""Many changed files at once: the pooled analysis says exactly what the file-by-file one says."""

from __future__ import annotations

import ast
import textwrap

from planegate.analysis.hunks import unchanged
from planegate.analysis.hunks.analyze import _split_parse
from planegate.analysis.hunks.parsed_module import ModuleNames, module_names

# The analysis takes two shortcuts on the blocks around a change; each must give what the
# plain way gives. Base files and edits that move, add, drop or repeat blocks around one.
_BASE = textwrap.dedent(
    """\
    import pytest
    from calc import total

    LIMIT = 3


    def helper(x):
        assert x


    @pytest.mark.parametrize("n", [1, 2])
    def test_one(n):
        assert total([n]) == n


    class TestTwo:
        def test_a(self):
            assert total([]) == 0


    def test_three():
        assert total([1, 2]) == 3
    """
)
_EDITS = (
    ("assert total([n]) == n", "assert total([n]) >= 0"),
    ("def test_three():", "@pytest.mark.skip\ndef test_three():"),
    ('@pytest.mark.parametrize("n", [1, 2])\n', ""),
    ("class TestTwo:", "def test_extra():\n    pass\n\n\nclass TestTwo:"),
    ("def test_three():\n    assert total([1, 2]) == 3\n", ""),
    ("LIMIT = 3\n", "LIMIT = 4\n"),
    ("def helper(x):\n    assert x\n", "def helper(x):\n    return x\n"),
    ("import pytest\n", "from __future__ import annotations\nimport pytest\n"),
    ("def test_three():", 'DOC = """\ndef test_three():'),
    ("assert total([1, 2]) == 3\n", 'assert total([1, 2]) == 3\n"doc"; import os\n'),
    ("assert total([]) == 0", "assert total([]) == 0\n\n\ndef test_one(n):\n    assert n"),
    ("class TestTwo:", "def test_three():\n    assert total([1, 2]) == 3\n\n\nclass TestTwo:"),
)


def _pairs() -> list[tuple[str, str]]:
    pairs = [(_BASE, _BASE.replace(old, new, 1)) for old, new in _EDITS]
    pairs += [(head, base) for base, head in pairs]
    pairs.append((_BASE, _BASE + "\n\ndef test_added():\n    assert 1\n"))
    pairs.append(("", "def test_new():\n    pass\n"))
    # the parser ends a line at a lone `\r` too
    old_mac = _BASE.replace("import pytest\n", "import pytest\r", 1)
    pairs.append((old_mac, old_mac.replace("assert total([n]) == n", "assert n", 1)))
    return pairs


def test_blocks_around_the_change_are_cut_once_with_the_same_result() -> None:
    for base, head in _pairs():
        whole = unchanged._sparse(base, head, unchanged._cut(base), unchanged._cut(head))
        assert unchanged.sparsify(base, head) == whole, head


def test_the_shared_header_is_parsed_once_into_the_same_trees() -> None:
    split_once = False
    for base, head in _pairs():
        sparse = unchanged.sparsify(base, head)
        split = None if sparse is None else _split_parse(sparse)
        if sparse is None or split is None:
            continue
        split_once = True
        for text, tree in ((sparse.base, split[0]), (sparse.head, split[1])):
            whole = ast.parse(text)
            assert _dump(tree) == _dump(whole)
            if split[2] is not None:
                assert _names(split[2]) == _names(module_names(whole.body))
    assert split_once


def _dump(tree: ast.AST) -> str:
    return ast.dump(tree, include_attributes=True)


def _names(names: ModuleNames) -> tuple[object, ...]:
    aliases = {name: ast.dump(node) for name, node in names.aliases.items()}
    return names.imports, aliases, names.disabled, names.not_collected
