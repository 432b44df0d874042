"""One Report object feeds every output format (text, json, markdown, sarif)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from planegate import exitcodes
from planegate.findings import STEP_ORDER, Finding, Step

SCHEMA_VERSION = 1
# What every rendering says first when the tests ran without the sandbox.
NO_SANDBOX = "NO SANDBOX (--no-sandbox): the tests could write outside their tree"


@dataclass(frozen=True)
class StepResult:
    step: Step
    findings: tuple[Finding, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def failed(self) -> bool:
        return any(finding.fails for finding in self.findings)


@dataclass(frozen=True)
class ShadowResult:
    """A frozen test's outcome in the shadow lane: reported, never voting."""

    nodeid: str
    outcome: str
    owner: str


@dataclass(frozen=True)
class NewTestResult:
    """A test of a file the patch adds, in its own session: its claim, reported, never voting.
    `plane` is where it is classified (`unclassified` until a person classifies it)."""

    nodeid: str
    outcome: str
    plane: str


@dataclass(frozen=True)
class ProbeRecord:
    """One probe of the run: what it ran, how it ended, what it cost.

    `outcome`: pass, fail, not run (nothing to probe), over budget (the probe budget ran out
    before it could run every test it had to)."""

    probe: str
    outcome: str
    seconds: float
    tests: int = 0
    detail: str = ""


@dataclass(frozen=True)
class Report:
    base: str
    head: str
    merge_base: str
    agent: bool
    digest_source: str
    steps: tuple[StepResult, ...]
    shadow: tuple[ShadowResult, ...] = ()
    notes: tuple[str, ...] = field(default=())
    base_broken: tuple[str, ...] = ()  # tests failing on the base too (sweep or gate)
    probes: tuple[ProbeRecord, ...] = ()  # the run's probes and their cost
    merged: str = ""  # the tree of the head merged onto the base's tip: what ran
    timings: Mapping[str, float] = field(default_factory=dict)  # seconds per part of the run
    unsandboxed: bool = False  # the tests ran without the sandbox (--no-sandbox): said first
    new_tests: tuple[NewTestResult, ...] = ()  # the tests the patch adds, run apart
    classify: tuple[str, ...] = ()  # planegate.yml lines that would classify them
    trust: str = ""  # what the verdict rests on, for a suite planegate does not instrument

    @property
    def exit_code(self) -> int:
        by_step = {result.step: result for result in self.steps}
        for step in STEP_ORDER:
            result = by_step.get(step)
            if result is not None and result.failed:
                return step.exit_code
        return exitcodes.BASE_BROKEN if self.base_broken else exitcodes.PASS

    @property
    def verdict(self) -> str:
        return "pass" if self.exit_code == exitcodes.PASS else "fail"

    @property
    def findings(self) -> tuple[Finding, ...]:
        return tuple(sorted((f for r in self.steps for f in r.findings), key=Finding.sort_key))

    @property
    def failed_step(self) -> Step | None:
        return next(
            (r.step for r in self.steps if r.failed and r.step.exit_code == self.exit_code), None
        )
