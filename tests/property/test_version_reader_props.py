"""The version tags read in one call (`versions.reader`, a view of the memory that holds them)
are the tags the ctypes view of each dict reads, for any set of dicts, before and after any
of them changes."""

from __future__ import annotations

import ctypes

from hypothesis import given
from hypothesis import strategies as st

from planegate.runner.child import versions

OFFSET = versions._offset()


def one_by_one(addresses: list[int]) -> tuple[int, ...]:
    return tuple(ctypes.c_uint64.from_address(address).value for address in addresses)


@given(
    sizes=st.lists(st.integers(0, 40), min_size=1, max_size=60),
    writes=st.lists(st.tuples(st.integers(0, 59), st.text(max_size=3)), max_size=30),
)
def test_the_reader_reads_what_each_view_reads(
    sizes: list[int], writes: list[tuple[int, str]]
) -> None:
    assert OFFSET is not None  # CPython 3.11: every dict has its tag
    spaces: list[dict[str, object]] = [{f"k{n}": n for n in range(size)} for size in sizes]
    addresses = [id(space) + OFFSET for space in spaces]
    read = versions.reader(addresses)
    before = read()
    assert before == one_by_one(addresses)
    for index, key in writes:
        spaces[index % len(spaces)][key] = object()
    after = read()
    assert after == one_by_one(addresses)
    written = {index % len(spaces) for index, _ in writes}
    moved = {
        position
        for position, (old, new) in enumerate(zip(before, after, strict=True))
        if old != new
    }
    assert moved == written
    assert set(versions._moved_positions(before, after)) == moved


def test_no_address_reads_nothing() -> None:
    assert versions.reader([])() == ()
