"""pyimports.parsed: a text parsed once is not parsed again while its tree is kept, within a
budget of source characters (the oldest trees go first)."""

from __future__ import annotations

import ast

import pytest

from planegate import pyimports


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    real = ast.parse

    def parse(source: str) -> ast.Module:
        seen.append(source)
        return real(source)

    monkeypatch.setattr(ast, "parse", parse)
    return seen


def test_a_text_parsed_again_is_the_kept_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _counted(monkeypatch)
    trees = pyimports._Trees(100)
    first = trees.parsed("import a\n")
    assert trees.parsed("import a\n") is first
    assert trees.parsed("def (:\n") is None
    assert trees.parsed("def (:\n") is None
    assert seen == ["import a\n", "def (:\n"]


def test_the_oldest_trees_go_first_and_a_large_text_is_not_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen = _counted(monkeypatch)
    trees = pyimports._Trees(20)
    one, two, three = "import aaaa\n", "import bbbb\n", "import " + "c" * 30 + "\n"
    trees.parsed(one)
    trees.parsed(two)  # 24 characters: `one` goes
    trees.parsed(two)
    trees.parsed(one)
    trees.parsed(three)  # over the budget alone: parsed, never kept
    trees.parsed(three)
    assert seen == [one, two, one, three, three]


def test_imports_are_read_from_the_kept_tree() -> None:
    source = "import os\nfrom . import sibling\n"
    assert pyimports.imports_of(source) == pyimports.imports_of(source)
    assert [i.module for i in pyimports.imports_of(source)] == ["os", ""]
