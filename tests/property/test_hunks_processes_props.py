"""The hunk analysis's shares of work, as a property: runs of the items, in order."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from planegate.analysis.hunks import processes


@given(st.lists(st.text(max_size=30), max_size=60), st.integers(min_value=1, max_value=8))
def test_shares_are_runs_of_the_items_in_order(items: list[str], count: int) -> None:
    shares = processes._shares(items, count, len)
    assert [item for share in shares for item in share] == items
    assert len(shares) <= count
    assert all(shares)
    if len(items) >= count and all(items):
        # one item never weighs more than a worker's share: every worker gets work
        heaviest = max(map(len, items))
        if heaviest * count <= sum(map(len, items)):
            assert len(shares) == count
