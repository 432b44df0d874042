"""What every step reads: git's facts about the two commits, and what the run and the digest
said. Each step is `check(facts, run) -> StepResult`; the gate calls them in DESIGN §4 order."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Protocol

from planegate.config.evidence import DefaultEvidence
from planegate.config.load import Config
from planegate.config.owners import Owners
from planegate.config.planemap import PlaneMap
from planegate.config.protection import Protection
from planegate.findings import Finding
from planegate.repo.git import GitRepo
from planegate.repo.gitdiff import Change
from planegate.repo.snapshot import Snapshot
from planegate.report import StepResult
from planegate.runner.answer_probes import AnswerProbes
from planegate.runner.fixture_probe import ProbeResult
from planegate.runner.rerun import Rerun
from planegate.runner.session import RunResult
from planegate.signs.compare import MainsSigns
from planegate.steps.hunks_started import StartedAnalysis


class GitFacts(Protocol):
    """Facts taken from git, never from running project code (the gate's Context)."""

    @property
    def repo(self) -> GitRepo: ...
    @property
    def base(self) -> Snapshot: ...  # the merge base
    @property
    def head(self) -> Snapshot: ...
    @property
    def cfg(self) -> Config: ...  # the base's configuration
    @property
    def who(self) -> Owners: ...
    @property
    def plane_map(self) -> PlaneMap: ...
    @property
    def protection(self) -> Protection: ...
    @property
    def evidence(self) -> DefaultEvidence: ...  # the base's evidence beyond the patterns
    @property
    def changes(self) -> tuple[Change, ...]: ...  # git's diff from the base to the head
    @property
    def ledger_base(self) -> str | None: ...
    @property
    def ledger_head(self) -> str | None: ...
    @property
    def agent(self) -> bool: ...
    @property
    def author(self) -> str: ...
    @property
    def today(self) -> date: ...


@dataclass(frozen=True)
class RunFacts:
    """What the judge holds beside git: the head's run, the base's inventory (the digest's or
    the collected one), the fixture probe, triage labels, and the digest check's findings."""

    head_run: RunResult
    base_inventory: Mapping[str, list[str]]
    probed: ProbeResult = field(default_factory=ProbeResult)
    overlay_notes: tuple[str, ...] = ()
    triage: Mapping[str, tuple[str, str]] = field(default_factory=dict)  # nodeid: label, repro
    digest_findings: tuple[Finding, ...] = ()
    on_base: Rerun | None = None  # the base's outcomes of the tests that did not pass on head
    answers: AnswerProbes = field(default_factory=AnswerProbes)  # the flipped tests' probes
    mains_signs: MainsSigns = field(default_factory=MainsSigns)  # the base's side of the signs
    hunk_analysis: StartedAnalysis | None = None  # started by the judge ahead of step 5


StepCheck = Callable[[GitFacts, RunFacts], StepResult]


def finished(run: RunResult) -> bool:
    """The test run reached its closing record in time: its counts describe the suite."""
    return run.closed and not run.timed_out
