"""What a probe reads of the gate, and what it hands back.

`ProbeContext` is the gate's context as the probes see it (a protocol the gate's `Context`
satisfies, so no probe imports the gate); `HeadRun` is the head's scoring run and what came
before it; `Found` is what the probes found so far, each probe's run adding to it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from planegate.analysis.hunks import is_test_file
from planegate.config.load import Config
from planegate.config.planemap import PlaneMap, file_of
from planegate.findings import Finding
from planegate.gitfacts import GitFacts
from planegate.probes.answers.wire import AnswerProbes
from planegate.probes.fixture.wire import ProbeResult
from planegate.repo.digest_format import MainRun
from planegate.report import ProbeRecord
from planegate.runner.session import RunResult
from planegate.runner.spec import Sessions
from planegate.vocabulary import SCORING_PLANES

if TYPE_CHECKING:
    from planegate.probes.fixture.whole import WholeOnHead


class ProbeContext(GitFacts, Protocol):
    """Git's facts, and what a probe needs to start sessions of its own like the gate's."""

    @property
    def frozen(self) -> Mapping[str, str]: ...  # nodeid: owner of the frozen tests
    @property
    def base_ini(self) -> Mapping[str, Any]: ...  # the base's pytest ini options
    @property
    def environ(self) -> Mapping[str, str] | None: ...  # the environment the children are cut from
    @property
    def base_links(self) -> frozenset[str]: ...  # the base's symlinks, for the overlay


class ProbeRun(Protocol):
    """What the probes read back of the run when the steps report (the steps' `RunFacts`
    satisfies it): their own findings, carried by the execution."""

    @property
    def answers(self) -> AnswerProbes: ...
    @property
    def probed(self) -> ProbeResult: ...


@dataclass(frozen=True)
class Planned:
    """A probe's plan before the head's run: keyword options of that run's session
    (`Sessions.run`) and what the probe's own run reads back (`plan`)."""

    options: Mapping[str, Any] = field(default_factory=dict)
    plan: object = None


@dataclass(frozen=True)
class BaseSide:
    """The base's run of the test files the patch can flip: the tests it flips (none when the
    head's run did not hold) and the report's record of that run."""

    flipped: tuple[str, ...]
    record: ProbeRecord
    why: str
    main: MainRun | None = None  # main's run from the digest, when the gate may use it


class Begun(Protocol):
    """Work a probe started from the head's run alone, going on beside the other probes."""

    def close(self) -> None:
        """Wait for it to end, and let go of what it holds."""
        ...


@dataclass(frozen=True)
class HeadRun:
    """The head's scoring run, in its tree (`sessions`), with each probe's plan by name and
    `checkout`: how a person gets the tree the gate ran (repro commands start with it)."""

    ctx: ProbeContext
    sessions: Sessions
    result: RunResult
    checkout: str
    base: BaseSide
    planned: Mapping[str, Planned] = field(default_factory=dict)
    begun: Mapping[str, Begun] = field(default_factory=dict)  # what each probe's `begin` started


@dataclass(frozen=True)
class Found:
    """What the probes found: the answer probes' results (with the sampled canaries' failures
    and every probe's record) and the fixture probe's."""

    answers: AnswerProbes = field(default_factory=AnswerProbes)
    fixture: ProbeResult = field(default_factory=ProbeResult)
    # the head's run with every byte changed, begun beside the fixture probe's own
    # (probes/fixture/whole.py): the base's signs read it; it never crosses run.json
    beside: WholeOnHead | None = None


@dataclass(frozen=True)
class Reported:
    """A probe's findings and notes for one step."""

    findings: tuple[Finding, ...] = ()
    notes: tuple[str, ...] = ()


def changed_code(ctx: GitFacts) -> tuple[str, ...]:
    """Paths the patch changes that the run can see (protected files are main's)."""
    paths = {p for c in ctx.changes for p in (c.path, c.old_path) if p is not None}
    return tuple(sorted(p for p in paths if not ctx.protection.covers(p)))


def scoring_files(ctx: GitFacts) -> list[str]:
    """Main's test files of the scoring planes (conftest files apart)."""
    return scoring_files_of(ctx.cfg, ctx.plane_map, ctx.base.files)


def scoring_files_of(cfg: Config, plane_map: PlaneMap, files: Iterable[str]) -> list[str]:
    """The test files of the scoring planes among a commit's `files` (conftest files apart)."""
    listed = {file_of(n) for p in SCORING_PLANES for n in cfg.planes[p].nodeids}
    return sorted(
        path
        for path in files
        if is_test_file(path)
        and not path.endswith("conftest.py")
        and (plane_map.plane_of_file(path) is not None or path in listed)
    )
