"""Which nodeids shard K of N runs: a pure, deterministic split of an inventory.

The same nodeids (in any order) always give the same slices. A test file's tests stay in one
slice unless the file alone would weigh more than a slice's fair share; then its tests are
placed one by one. Items go, heaviest first, to the lightest slice so far (ties: the lower
slice, then the smaller name), so the heaviest and the lightest slice differ by at most the
weight of the largest item placed.
"""

from __future__ import annotations

import heapq
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from planegate.config.planemap import file_of

_SHARD = re.compile(r"([1-9][0-9]{0,5})/([1-9][0-9]{0,5})")


@dataclass(frozen=True, order=True)
class Shard:
    """Shard `index` of `total`, 1-based, as the command line writes it (`2/4`)."""

    index: int
    total: int

    def __post_init__(self) -> None:
        if not 1 <= self.index <= self.total:
            raise ValueError(f"shard {self.index}/{self.total}: K must be between 1 and N")

    def __str__(self) -> str:
        return f"{self.index}/{self.total}"


def parse_shard(text: str) -> Shard:
    """`K/N` with 1 <= K <= N; raises ValueError with the reason otherwise."""
    found = _SHARD.fullmatch(text.strip())
    if found is None:
        raise ValueError(f"{text!r} is not K/N (for example 2/4)")
    return Shard(int(found[1]), int(found[2]))


@dataclass(frozen=True)
class Item:
    """What is placed whole: a test file's tests, or one nodeid of a file split up."""

    key: str
    nodeids: tuple[str, ...]
    weight: float


def items_of(
    nodeids: Iterable[str], total: int, durations: Mapping[str, float] | None = None
) -> tuple[Item, ...]:
    """The items a split of `nodeids` into `total` slices places, sorted as they are placed.

    A nodeid weighs its duration (a nodeid without one: the mean of the known ones, else 1),
    or 1 without durations. A file heavier than the fair share (the sum over `total`) is split
    into its nodeids; any other file is one item."""
    unique = sorted(set(nodeids))
    weights = _weights(unique, durations)
    by_file: dict[str, list[str]] = defaultdict(list)
    for nodeid in unique:
        by_file[file_of(nodeid)].append(nodeid)
    share = sum(weights.values()) / max(1, total)
    items: list[Item] = []
    for path, ids in by_file.items():
        weight = sum(weights[n] for n in ids)
        if weight <= share or len(ids) == 1:
            items.append(Item(path, tuple(ids), weight))
        else:
            items += [Item(n, (n,), weights[n]) for n in ids]
    return tuple(sorted(items, key=lambda item: (-item.weight, item.key)))


def _weights(nodeids: list[str], durations: Mapping[str, float] | None) -> dict[str, float]:
    if durations is None:
        return dict.fromkeys(nodeids, 1.0)
    known = [max(0.0, float(durations[n])) for n in nodeids if n in durations]
    default = sum(known) / len(known) if known and sum(known) > 0 else 1.0
    return {n: max(0.0, float(durations[n])) if n in durations else default for n in nodeids}


def slices(
    nodeids: Iterable[str], total: int, durations: Mapping[str, float] | None = None
) -> tuple[tuple[str, ...], ...]:
    """All `total` slices at once, each sorted; every nodeid is in exactly one."""
    if total < 1:
        raise ValueError(f"{total} slices: N must be at least 1")
    placed: list[list[str]] = [[] for _ in range(total)]
    heap = [(0.0, index) for index in range(total)]
    for item in items_of(nodeids, total, durations):
        load, index = heapq.heappop(heap)
        placed[index] += item.nodeids
        heapq.heappush(heap, (load + item.weight, index))
    return tuple(tuple(sorted(ids)) for ids in placed)


def slice_of(
    nodeids: Iterable[str], k: int, n: int, durations: Mapping[str, float] | None = None
) -> tuple[str, ...]:
    """The nodeids shard `k` of `n` (1-based) runs, sorted."""
    shard = Shard(k, n)
    return slices(nodeids, shard.total, durations)[shard.index - 1]
