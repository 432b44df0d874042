"""`slice_of`: every nodeid in exactly one slice, the same slices for the same nodeids in any
order, and slices balanced within the largest item placed."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from planegate.shards.slicing import items_of, slice_of, slices

FILES = st.sampled_from([f"tests/t{i}.py" for i in range(8)])
NODEIDS = st.lists(
    st.builds(lambda f, name: f"{f}::test_{name}", FILES, st.integers(0, 60)),
    max_size=120,
    unique=True,
)
TOTALS = st.integers(1, 7)
DURATIONS = st.one_of(
    st.none(),
    st.dictionaries(
        st.builds(lambda f, name: f"{f}::test_{name}", FILES, st.integers(0, 60)),
        st.floats(0.0, 50.0, allow_nan=False),
        max_size=80,
    ),
)


def _weight(nodeid: str, durations: dict[str, float] | None, nodeids: list[str]) -> float:
    if durations is None:
        return 1.0
    known = [durations[n] for n in set(nodeids) if n in durations]
    default = sum(known) / len(known) if known and sum(known) > 0 else 1.0
    return durations.get(nodeid, default)


@given(NODEIDS, TOTALS, DURATIONS)
def test_every_nodeid_is_in_exactly_one_slice(
    nodeids: list[str], total: int, durations: dict[str, float] | None
) -> None:
    parts = [slice_of(nodeids, k, total, durations) for k in range(1, total + 1)]
    flat = [n for part in parts for n in part]
    assert sorted(flat) == sorted(nodeids)
    assert len(flat) == len(set(flat))


@given(NODEIDS, TOTALS, DURATIONS, st.randoms(use_true_random=False))
def test_slices_are_deterministic_and_ignore_input_order(
    nodeids: list[str], total: int, durations: dict[str, float] | None, rng: random.Random
) -> None:
    shuffled = list(nodeids)
    rng.shuffle(shuffled)
    with_duplicates = shuffled + shuffled[: len(shuffled) // 2]
    first = slices(nodeids, total, durations)
    assert slices(nodeids, total, durations) == first
    assert slices(shuffled, total, durations) == first
    assert slices(with_duplicates, total, durations) == first


@given(NODEIDS, TOTALS, DURATIONS)
def test_slices_are_balanced_within_the_largest_item(
    nodeids: list[str], total: int, durations: dict[str, float] | None
) -> None:
    items = items_of(nodeids, total, durations)
    loads = [
        sum(_weight(n, durations, nodeids) for n in part)
        for part in slices(nodeids, total, durations)
    ]
    largest = max((item.weight for item in items), default=0.0)
    assert max(loads) - min(loads) <= largest + 1e-6


@given(NODEIDS, TOTALS)
def test_a_file_stays_whole_unless_it_outweighs_a_fair_share(
    nodeids: list[str], total: int
) -> None:
    share = len(nodeids) / total
    for item in items_of(nodeids, total):
        files = {n.split("::")[0] for n in item.nodeids}
        assert len(files) == 1
        if len(item.nodeids) == 1 and item.key != next(iter(files)):
            # a split file: it alone holds more tests than a fair share
            assert sum(1 for n in nodeids if n.startswith(item.key.split("::")[0] + "::")) > share
    placed = {n: i for i, part in enumerate(slices(nodeids, total)) for n in part}
    for item in items_of(nodeids, total):
        if item.key == item.nodeids[0].split("::")[0]:
            assert len({placed[n] for n in item.nodeids}) == 1
