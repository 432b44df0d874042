"""Path patterns: literal lines are not handed to pathspec."""

from __future__ import annotations

from planegate.config.pathmatch import PathPatterns


def test_literal_lines_are_not_handed_to_pathspec() -> None:
    patterns = PathPatterns(["json/tests/a.json", "json/remotes/", "conftest.py", "data/"])
    assert patterns.spec is None
    assert patterns.match_file("json/remotes/x/y.json")
    assert patterns.match_file("tests/conftest.py")
    assert patterns.match_file("tests/data/golden.txt")
    assert not patterns.match_file("json/tests/b.json")
    assert not patterns.match_file("tests/data")  # `data/` names folders only
