"""Proposed data patterns cover exactly the files tests read."""

from __future__ import annotations

import pathspec
from hypothesis import given
from hypothesis import strategies as st

from planegate.init.discover import data_patterns

NAMES = st.sampled_from(["a", "b", "data", "tests", "x.txt", "y.json", "g.py"])
PATHS = st.lists(NAMES, min_size=1, max_size=4).map("/".join)


@given(st.lists(PATHS, min_size=1, max_size=30, unique=True), st.data())
def test_patterns_match_every_read_file_and_no_other(files: list[str], data: st.DataObject) -> None:
    files = [f for f in files if not any(other.startswith(f + "/") for other in files)]
    read = data.draw(st.lists(st.sampled_from(files), unique=True))
    spec = pathspec.GitIgnoreSpec.from_lines(data_patterns(read, files))
    assert {f for f in files if spec.match_file(f)} == set(read)
