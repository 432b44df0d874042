"""Many changed test files at once: the same findings as `analyze_file` on each, in input
order, with large batches spread over worker processes (the analysis is pure and CPU-bound,
so threads would not help; a patch of tens of files runs inline in milliseconds)."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from planegate.analysis.hunks import limits
from planegate.findings import Finding

if TYPE_CHECKING:  # imported where a batch is large enough for worker processes
    from planegate.analysis.hunks import processes

# Below this many files a pool costs more to start than it saves.
POOL_FROM = 200


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
    return start_analysis(changes, workers=workers, pool_from=pool_from, inline=True)()


def start_analysis(
    changes: Sequence[FileChange],
    *,
    workers: int | None = None,
    pool_from: int = POOL_FROM,
    inline: bool = False,
    ready: processes.Workers | None = None,
) -> Callable[[], list[Finding]]:
    """Start the analysis of `changes`; the call returned waits for their findings. A large
    batch runs in worker processes (those `ready`, else started here); a small one on a
    thread, or in the call itself when `inline`."""
    count = workers if workers is not None else available_cpus()
    if count >= 2 and len(changes) >= pool_from:
        if ready is None:
            from planegate.analysis.hunks import processes

            ready = processes.Workers(count, __name__)
        return ready.run(list(changes), _analyze, _size)
    if ready is not None:
        ready.close()
    if inline:
        return partial(_analyze, list(changes))
    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="planegate-hunks")
    future = executor.submit(_analyze, list(changes))
    executor.shutdown(wait=False)
    return future.result


def ready_workers(test_files: int) -> processes.Workers | None:
    """Workers started ahead, when about `test_files` changed test files will want them: they
    start up while the gate reads its configuration."""
    count = available_cpus()
    if count < 2 or test_files < POOL_FROM:
        return None
    from planegate.analysis.hunks import processes

    return processes.Workers(count, __name__)


def available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _analyze(changes: list[FileChange]) -> list[Finding]:
    out: list[Finding] = []
    if not changes:
        return out
    # imported by the thread or worker process that analyses (the gate's own thread reads
    # only which files are test files before the head's test child starts)
    from planegate.analysis.hunks.analyze import analyze_file

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


def _size(change: FileChange) -> int:
    return len(change.base or "") + len(change.head or "")
