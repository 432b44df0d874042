"""Slicing a suite into shards, by example: one file per test split by count, a slow test alone,
k of n."""

from __future__ import annotations

import pytest

from planegate.shards.slicing import Shard, parse_shard, slice_of


def test_files_of_one_test_each_split_by_count_within_one() -> None:
    nodeids = [f"tests/t{i}.py::test_a" for i in range(10)]
    sizes = sorted(len(slice_of(nodeids, k, 3)) for k in (1, 2, 3))
    assert sizes == [3, 3, 4]


def test_durations_move_a_slow_test_alone() -> None:
    nodeids = ["tests/a.py::test_slow", "tests/b.py::test_1", "tests/c.py::test_2"]
    durations = {"tests/a.py::test_slow": 30.0, "tests/b.py::test_1": 1.0}
    assert slice_of(nodeids, 1, 2, durations) == ("tests/a.py::test_slow",)
    assert slice_of(nodeids, 2, 2, durations) == ("tests/b.py::test_1", "tests/c.py::test_2")


@pytest.mark.parametrize("text", ["0/3", "4/3", "3", "a/b", "1/0", "-1/2", "1/2/3", ""])
def test_a_shard_is_k_of_n_with_k_between_1_and_n(text: str) -> None:
    with pytest.raises(ValueError):
        parse_shard(text)


def test_a_shard_reads_and_prints_as_k_slash_n() -> None:
    assert parse_shard(" 2/4 ") == Shard(2, 4)
    assert str(Shard(2, 4)) == "2/4"
