"""Path patterns answer as pathspec's GitIgnoreSpec does, literal lines by set lookups."""

from __future__ import annotations

import pathspec
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from planegate.config.pathmatch import PathPatterns

PART = st.sampled_from(["a", "b", "c.json", ".d", "e f", "a.b"])
PATH = st.lists(PART, min_size=1, max_size=4).map("/".join)
LINE = st.one_of(
    PATH,  # a literal path (anchored when it has a slash)
    PATH.map(lambda p: p + "/"),  # a folder
    PATH.map(lambda p: "/" + p),  # anchored at the root
    PART,  # a bare name, at any depth
    st.lists(st.sampled_from(["a", "b", "*", "**", "/", "!", "#", " ", ".", "?", "[ab]"])).map(
        "".join
    ),  # anything else pathspec reads
)


@given(lines=st.lists(LINE, max_size=6), paths=st.lists(PATH, min_size=1, max_size=6))
@example(lines=["json/remotes/"], paths=["json/remotes", "json/remotes/x.json", "x/json/remotes/y"])
@example(lines=["a/b.json"], paths=["a/b.json", "a/b.json/c", "x/a/b.json"])
@example(lines=["c.json"], paths=["c.json", "a/c.json", "c.json/a", "a/c.jsonx"])
@example(lines=["b/"], paths=["b", "a/b", "a/b/c"])
@example(lines=["a", "!a/b"], paths=["a/b", "a/c"])
def test_path_patterns_match_as_gitignore_does(lines: list[str], paths: list[str]) -> None:
    try:
        spec = pathspec.GitIgnoreSpec.from_lines(lines)
    except ValueError as error:  # a line git would not read: refused the same way
        with pytest.raises(type(error)):
            PathPatterns(lines)
        return
    patterns = PathPatterns(lines)
    for path in paths:
        assert patterns.match_file(path) == bool(spec.match_file(path)), (lines, path)
