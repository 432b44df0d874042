"""Many changed test files at once: the same findings as `analyze_file` on each, in input
order, with large batches spread over a process pool (the analysis is pure and CPU-bound, so
threads would not help; a patch of tens of files runs inline in milliseconds)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from planegate.analysis.hunks import analyze_file, limits
from planegate.findings import Finding

# Below this many files a pool costs more to start than it saves.
POOL_FROM = 200
_CHUNKS_PER_WORKER = 4


@dataclass(frozen=True)
class FileChange:
    """One changed test file: its base and head text (`None` for added / deleted)."""

    path: str
    base: str | None
    head: str | None
    plane: str | None
    owner: str
    fixture_plane: bool
    async_plugin: bool = False
    max_bytes: int = limits.MAX_FILE_BYTES  # a bigger base or head is reported, not parsed


def analyze_files(
    changes: Sequence[FileChange], *, workers: int | None = None, pool_from: int = POOL_FROM
) -> list[Finding]:
    """Every file's findings, file by file in the order given."""
    count = workers if workers is not None else available_cpus()
    if count < 2 or len(changes) < pool_from:
        return _analyze(list(changes))
    return _pooled(list(changes), count)


def available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _analyze(changes: list[FileChange]) -> list[Finding]:
    out: list[Finding] = []
    for change in changes:
        big = next(
            (t for t in (change.head, change.base) if limits.oversized(t, change.max_bytes)), None
        )
        if big is not None:
            out.append(limits.finding(change.path, big, change.max_bytes, change.owner))
            continue
        out += analyze_file(
            change.path,
            change.base,
            change.head,
            plane=change.plane,
            owner=change.owner,
            fixture_plane=change.fixture_plane,
            async_plugin=change.async_plugin,
        )
    return out


def _pooled(changes: list[FileChange], workers: int) -> list[Finding]:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    size = max(1, -(-len(changes) // (workers * _CHUNKS_PER_WORKER)))
    chunks = [changes[start : start + size] for start in range(0, len(changes), size)]
    # forkserver: workers do not inherit the gate's threads or open descriptors.
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    context = multiprocessing.get_context(method)
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        return [finding for part in pool.map(_analyze, chunks) for finding in part]
