"""The test-hunk analysis started ahead of its step: it reads git only, so the judge starts it
before the steps that come first, and step 5 takes its findings when its turn comes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from planegate.analysis.hunks.batch import FileChange, start_analysis
from planegate.findings import Finding

if TYPE_CHECKING:  # its module is imported only for a patch that changes many test files
    from planegate.analysis.hunks.processes import Workers


@dataclass(frozen=True)
class OtherFile:
    """A changed file that is not a test file: the production-code scan reads it."""

    path: str
    base: str | None
    head: str | None


@dataclass(frozen=True)
class GitOnly:
    """The step's findings that need no run and read nothing but the changed files and main's
    property-plane files: the production-code scan and lint of each changed file (git's
    order), then the foreign test sources' rules and main's own lint; and main's data files
    (the fixture plane's), which the oracle rules read too."""

    changed: tuple[Finding, ...]
    main: tuple[Finding, ...]
    data_files: tuple[str, ...]


@dataclass(frozen=True)
class StartedAnalysis:
    """Every changed file in git's order, and a call that waits for the analysis of the test
    files among them (its error, if any, is raised there); `git_only` waits for the step's
    git-only findings when the gate worked them out beside the test child (None: the step
    works them out itself)."""

    changed: tuple[FileChange | OtherFile, ...]
    findings: Callable[[], list[Finding]]
    git_only: Callable[[], GitOnly] | None = None

    @property
    def test_files(self) -> tuple[FileChange, ...]:
        return tuple(change for change in self.changed if isinstance(change, FileChange))


def start(
    changed: tuple[FileChange | OtherFile, ...], ready: Workers | None = None
) -> StartedAnalysis:
    """Analyse the test files in worker processes when there are many (the `ready` ones when
    given), else on a thread: the caller goes on with what comes before step 5."""
    test_files = [change for change in changed if isinstance(change, FileChange)]
    return StartedAnalysis(changed, start_analysis(test_files, ready=ready))
