"""What every step reads: git's facts about the two commits, and what the run and the digest
said. Each step is `check(facts, run) -> StepResult`; the gate calls them in DESIGN §4 order.

One run's facts are one record, `Execution`: what the gate's execution produces, what
`run.json` and a shard's evidence hold (gate/exchange.py encodes and decodes it, field by
field from its type hints), what the shards' merge folds, and what the steps read (`RunFacts`
is the execution with the judge's own additions). A fact added here is written, read back and
judged with no other declaration."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from planegate.findings import Finding
from planegate.gitfacts import GitFacts
from planegate.probes.answers.wire import AnswerProbes
from planegate.probes.fixture.wire import ProbeResult
from planegate.report import ShadowResult, StepResult
from planegate.runner.rerun import Rerun
from planegate.runner.session import RunResult
from planegate.signs.compare import MainsSigns
from planegate.steps.hunks_started import StartedAnalysis


@dataclass(frozen=True)
class Commits:
    """The base's tip (evidence, configuration, digest), the patch's head, their merge base,
    and the tree of the head merged onto the tip (empty when the merge conflicts)."""

    base_tip: str
    head: str
    merge_base: str
    merged: str = ""
    conflicts: tuple[str, ...] = ()


@dataclass(frozen=True)
class Execution:
    """What running the suite produced (gate/execute.py: the only part that executes project
    code). The field order is `run.json`'s key order."""

    commits: Commits
    head_run: RunResult
    base_inventory: Mapping[str, list[str]] | None  # the digest's, else the base's collection
    shadow: tuple[ShadowResult, ...] = ()
    probed: ProbeResult = field(default_factory=ProbeResult)
    overlay_notes: tuple[str, ...] = ()
    triage: Mapping[str, tuple[str, str]] = field(default_factory=dict)  # nodeid: label, repro
    on_base: Rerun | None = None  # the base's outcomes of the scoring tests not passing on head
    timings: Mapping[str, float] = field(default_factory=dict)  # seconds per part
    answers: AnswerProbes = field(default_factory=AnswerProbes)  # the flipped tests' probes
    mains_signs: MainsSigns = field(default_factory=MainsSigns)  # the base's side of the signs
    new_tests: RunResult | None = None  # the test files the patch adds, in their own session


@dataclass(frozen=True)
class RunFacts(Execution):
    """What the judge holds beside git: the execution, the digest check's findings, and the
    hunk analysis it started ahead of step 5."""

    digest_findings: tuple[Finding, ...] = ()
    hunk_analysis: StartedAnalysis | None = None

    @classmethod
    def of(cls, execution: Execution, **judged: Any) -> RunFacts:
        """The execution's facts, with the judge's (`digest_findings`, `hunk_analysis`)."""
        return cls(**{f.name: getattr(execution, f.name) for f in fields(Execution)}, **judged)

    @property
    def inventory(self) -> Mapping[str, list[str]]:
        """The base inventory (the judge refuses an execution without one)."""
        return self.base_inventory or {}


StepCheck = Callable[[GitFacts, RunFacts], StepResult]


def finished(run: RunResult) -> bool:
    """The test run reached its closing record in time: its counts describe the suite."""
    return run.closed and not run.timed_out
