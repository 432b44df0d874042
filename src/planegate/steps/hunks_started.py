"""The test-hunk analysis started ahead of its step: it reads git only, so the judge starts it
before the steps that come first, and step 5 takes its findings when its turn comes."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from planegate.analysis.hunks.batch import FileChange, analyze_files
from planegate.findings import Finding


@dataclass(frozen=True)
class OtherFile:
    """A changed file that is not a test file: the production-code scan reads it."""

    path: str
    base: str | None
    head: str | None


@dataclass(frozen=True)
class StartedAnalysis:
    """Every changed file in git's order, and a call that waits for the analysis of the test
    files among them (its error, if any, is raised there)."""

    changed: tuple[FileChange | OtherFile, ...]
    findings: Callable[[], list[Finding]]

    @property
    def test_files(self) -> tuple[FileChange, ...]:
        return tuple(change for change in self.changed if isinstance(change, FileChange))


def start(changed: tuple[FileChange | OtherFile, ...]) -> StartedAnalysis:
    """Analyse the test files on a thread of its own (a pool of processes below it when there
    are many): the caller goes on with the steps before this one."""
    test_files = [change for change in changed if isinstance(change, FileChange)]
    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="planegate-hunks")
    future = executor.submit(analyze_files, test_files)
    executor.shutdown(wait=False)
    return StartedAnalysis(changed, future.result)
