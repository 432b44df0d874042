"""The tree's package roots on sys.path, as a property: once each, after the standard library."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from planegate.runner.child.roots import placed

# --------------------------------------------------------------------------- the pure parts

STDLIB = ["/usr/lib/python3.11", "/usr/lib/python3.11/lib-dynload"]
paths = st.lists(st.sampled_from(["/a", "/b", "/site", "/t", "/t/src"]), max_size=6)


@given(paths, st.lists(st.sampled_from(["/t/src", "/t/lib", "/t"]), unique=True, min_size=1))
def test_roots_land_once_after_the_standard_library_and_before_the_rest(
    rest: list[str], roots: list[str]
) -> None:
    before = ["/usr/lib/python311.zip", *STDLIB, *rest]
    after = placed(before, roots, STDLIB)
    start = after.index(roots[0])
    assert after[start : start + len(roots)] == roots
    assert all(after.count(root) == 1 for root in roots)
    assert start == 3  # after the zip and both standard-library folders
    assert [p for p in after if p not in roots] == [p for p in before if p not in roots]
