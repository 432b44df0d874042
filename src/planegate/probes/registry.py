"""Every probe, behind one protocol: the gate plans each before the head's run, runs each
after it (in `PROBES` order: a later probe reads what the earlier ones found, the fixture
probe the budget the answer probes left), `run.json` carries what each found, and the planes
and hunks steps report each. What a probe can start from the head's run alone (`begin`: the
sampled canaries' session on main) starts before any probe runs and goes on beside them.

A new probe is a subpackage of `probes/` and one entry in `PROBES`. A probe that runs code in
the test child names its modules (`child_modules`) and hands the sessions their
`ChildPlugin`s; tests/test_child_fence.py follows every module named here.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

from planegate.findings import Step
from planegate.gitfacts import GitFacts
from planegate.probes.answers import plan as answers_plan
from planegate.probes.answers import wire as answers_wire
from planegate.probes.canaries import plan as canary_plan
from planegate.probes.canaries import wire as canary_wire
from planegate.probes.canaries.child.sampled import SETTLED
from planegate.probes.canaries.early import Early
from planegate.probes.canaries.wire import SampleSpec
from planegate.probes.fixture import wire as fixture_wire
from planegate.probes.honest import plan as honest_plan
from planegate.probes.honest import wire as honest_wire
from planegate.probes.protocol import (
    Begun,
    Found,
    HeadRun,
    Planned,
    ProbeContext,
    ProbeRun,
    Reported,
)
from planegate.runner import sandbox
from planegate.runner.session import BESIDE
from planegate.vocabulary import SCORING_PLANES

if TYPE_CHECKING:
    from planegate.probes.canaries.run import Confirming

# what the probes do after the head's run and in the steps' reports: imported where called
# (the gate imports them beside the head's test child: gate/pipeline.py's ALONGSIDE)
AFTER_THE_RUN = (
    "planegate.probes.answers.run",
    "planegate.probes.answers.findings",
    "planegate.probes.canaries.run",
    "planegate.probes.canaries.findings",
    "planegate.probes.honest.run",
    "planegate.probes.honest.findings",
    "planegate.probes.fixture.run",
    "planegate.probes.fixture.findings",
    "planegate.probes.in_code.findings",
)


class Probe(Protocol):
    """What the gate and the steps call of a probe."""

    @property
    def name(self) -> str: ...

    @property
    def child_modules(self) -> tuple[str, ...]:
        """The plugin modules it may have the test child load by name (`ChildPlugin`)."""
        ...

    def plan(self, ctx: ProbeContext, assigned: frozenset[str] | None) -> Planned:
        """Before the head's run (`assigned`: the scoring nodeids main's run collected, a
        shard's own in a shard, where known; None when not): what it asks of that run."""
        ...

    def begin(self, head: HeadRun) -> Begun | None:
        """Right after the head's run, before any probe's `run`: what needs nothing but that
        run, started to go on beside the probes (`run` finds it in `head.begun`)."""
        ...

    def run(self, head: HeadRun, found: Found) -> Found:
        """After the head's run: what it found, added to what the probes before it found."""
        ...

    def to_wire(self, found: Found) -> dict[str, Any]:
        """Its keys of `run.json` (none when what it found travels in another probe's)."""
        ...

    def from_wire(self, data: Mapping[str, Any], found: Found) -> Found:
        """What it found, read back from `run.json` (KeyError, TypeError or ValueError when
        malformed)."""
        ...

    def report(self, step: Step, ctx: GitFacts, run: ProbeRun) -> Reported:
        """Its findings and notes for `step` (none for a step it has nothing to say in)."""
        ...


class Answers:
    """The tests the patch flips, rerun strictly, plainly, repeated, alone, fresh."""

    name = "answer probes"

    @property
    def child_modules(self) -> tuple[str, ...]:
        from planegate.probes.answers import observed as answers_observed
        from planegate.probes.answers import run as answers_run

        return (*answers_run.CHILD_MODULES, answers_observed.MODULE)

    def plan(self, ctx: ProbeContext, assigned: frozenset[str] | None) -> Planned:
        return Planned()  # planned from the head's run and the base's

    def begin(self, head: HeadRun) -> Begun | None:
        return None

    def run(self, head: HeadRun, found: Found) -> Found:
        from planegate.probes.answers import run as answers_run

        return answers_run.after_head(head, found)

    def to_wire(self, found: Found) -> dict[str, Any]:
        return {"answers": answers_wire.to_dict(found.answers)}  # every probe's records too

    def from_wire(self, data: Mapping[str, Any], found: Found) -> Found:
        return replace(found, answers=answers_wire.from_dict(data.get("answers")))

    def report(self, step: Step, ctx: GitFacts, run: ProbeRun) -> Reported:
        if step is not Step.PLANES:
            return Reported()
        from planegate.probes.answers import findings as answers_findings

        found = answers_findings.findings(ctx, run.answers)
        return Reported(tuple(found), answers_findings.notes(run.answers))


class Canaries:
    """Main's tests rerun inside the head's run with a function they call broken."""

    name = canary_plan.SAMPLED
    child_modules = (canary_wire.MODULE,)

    def plan(self, ctx: ProbeContext, assigned: frozenset[str] | None) -> Planned:
        planned = canary_plan.plan(ctx, assigned)
        options: dict[str, Any] = {"child_plugins": canary_wire.child_plugins(planned.spec)}
        if planned.spec is None or sandbox.switched_off():
            return Planned(options, planned)  # unsandboxed, nothing runs beside the patch's run
        early = Early(planned.spec, functools.partial(_confirmed_beside, ctx))
        options["heard"] = {SETTLED: early.heard}
        return Planned(options, replace(planned, early=early))

    def begin(self, head: HeadRun) -> Begun | None:
        from planegate.probes.canaries import run as canary_run

        return canary_run.begin(head)

    def run(self, head: HeadRun, found: Found) -> Found:
        from planegate.probes.canaries import run as canary_run

        begun = head.begun.get(self.name)
        confirming = begun if isinstance(begun, canary_run.Confirming) else canary_run.begin(head)
        return canary_run.after_head(found, confirming)

    def to_wire(self, found: Found) -> dict[str, Any]:
        return {}  # its failures and record are among the answer probes'

    def from_wire(self, data: Mapping[str, Any], found: Found) -> Found:
        return found

    def report(self, step: Step, ctx: GitFacts, run: ProbeRun) -> Reported:
        if step is not Step.PLANES:
            return Reported()
        from planegate.probes.canaries import findings as canary_findings

        return Reported(tuple(canary_findings.findings(ctx, run.answers)))


class Honest:
    """Every value main's asserts compare in the scoring run, checked for equality that
    answers yes to anything and for a builtin comparison the patch bends."""

    name = honest_plan.HONEST
    child_modules = (honest_wire.MODULE,)

    def plan(self, ctx: ProbeContext, assigned: frozenset[str] | None) -> Planned:
        return honest_plan.plan(ctx)

    def begin(self, head: HeadRun) -> Begun | None:
        return None

    def run(self, head: HeadRun, found: Found) -> Found:
        from planegate.probes.honest import run as honest_run

        return honest_run.after_head(head, found)

    def to_wire(self, found: Found) -> dict[str, Any]:
        return {}  # its failures and record are among the answer probes'

    def from_wire(self, data: Mapping[str, Any], found: Found) -> Found:
        return found

    def report(self, step: Step, ctx: GitFacts, run: ProbeRun) -> Reported:
        if step is not Step.PLANES:
            return Reported()
        from planegate.probes.honest import findings as honest_findings

        return Reported(tuple(honest_findings.findings(ctx, run.answers)))


class Fixture:
    """Passing fixture tests rerun with the locked files they read perturbed. Its findings
    (PG106/PG113) are weighed against main's signs: steps/signs_findings.py reports them."""

    name = answers_plan.FIXTURE_DATA
    child_modules: tuple[str, ...] = ()

    def plan(self, ctx: ProbeContext, assigned: frozenset[str] | None) -> Planned:
        return Planned()

    def begin(self, head: HeadRun) -> Begun | None:
        return None

    def run(self, head: HeadRun, found: Found) -> Found:
        from planegate.probes.fixture import run as fixture_run

        return fixture_run.after_head(head, found)

    def to_wire(self, found: Found) -> dict[str, Any]:
        return {"probed": fixture_wire.to_dict(found.fixture)}

    def from_wire(self, data: Mapping[str, Any], found: Found) -> Found:
        return replace(found, fixture=fixture_wire.from_dict(data["probed"]))

    def report(self, step: Step, ctx: GitFacts, run: ProbeRun) -> Reported:
        if step is not Step.PLANES or not (run.probed.probed or run.probed.unprobed):
            return Reported()
        from planegate.probes.fixture import findings as fixture_findings

        notes = (f"probed {len(run.probed.probed)} fixture tests with their data perturbed",)
        return Reported(tuple(fixture_findings.unprobed(ctx, run.probed)), notes)


class InCode:
    """Production lines the patch adds that carry main's answers (nothing runs)."""

    name = "answers in code"
    child_modules: tuple[str, ...] = ()

    def plan(self, ctx: ProbeContext, assigned: frozenset[str] | None) -> Planned:
        return Planned()

    def begin(self, head: HeadRun) -> Begun | None:
        return None

    def run(self, head: HeadRun, found: Found) -> Found:
        return found

    def to_wire(self, found: Found) -> dict[str, Any]:
        return {}

    def from_wire(self, data: Mapping[str, Any], found: Found) -> Found:
        return found

    def report(self, step: Step, ctx: GitFacts, run: ProbeRun) -> Reported:
        if step is not Step.HUNKS:
            return Reported()
        from planegate.probes.in_code import findings as in_code

        found, note = in_code.check(ctx)
        found += in_code.observed_findings(ctx, run.answers)
        return Reported(tuple(found), (note,) if note is not None else ())


# the sampled canaries' session on main, begun before any probe runs, is waited for after the
# fixture probe's: the two go on side by side, and the fixture probe's budget counts only the
# probes it waited for
PROBES: tuple[Probe, ...] = (Answers(), Honest(), Fixture(), Canaries(), InCode())


def planned(
    ctx: ProbeContext,
    assigned: frozenset[str] | None,
    inventory: Mapping[str, Iterable[str]] | None = None,
) -> dict[str, Planned]:
    """Each probe's plan, by name. What a probe may sample: a shard's nodeids (`assigned`),
    else main's scoring ones where its digest names them before the run (`inventory`): a test
    function of main's source that pytest never collects holds no slot of a sample."""
    if assigned is None and inventory is not None:
        assigned = frozenset(n for plane in SCORING_PLANES for n in inventory.get(plane, ()))
    return {probe.name: probe.plan(ctx, assigned) for probe in PROBES}


def child_modules() -> tuple[str, ...]:
    """Every module a probe may have the test child load by name, in `PROBES` order."""
    return tuple(module for probe in PROBES for module in probe.child_modules)


def beside_the_run(plans: Mapping[str, Planned]) -> dict[str, Begun]:
    """What the probes' plans start while the head's run goes on (the sampled canaries' early
    confirmation on main), by probe: closed as what `begin` starts is."""
    planned = plans.get(canary_plan.SAMPLED)
    plan = None if planned is None else planned.plan
    early = plan.early if isinstance(plan, canary_plan.Plan) else None
    return {canary_plan.SAMPLED: early} if isinstance(early, Early) else {}


def _confirmed_beside(ctx: ProbeContext, confirm: SampleSpec) -> Confirming:
    """Main's confirmation started beside the head's run (imported then, not before the spec)."""
    from planegate.probes.canaries import run as canary_run

    return canary_run.Confirming().start(ctx, confirm, BESIDE)


def head_run_options(plans: Mapping[str, Planned]) -> dict[str, Any]:
    """What the probes ask of the head's run: keyword options of its session (their
    `child_plugins` joined, in order)."""
    options: dict[str, Any] = {}
    for plan in plans.values():
        for key, value in plan.options.items():
            joined = key == "child_plugins" and key in options
            options[key] = (*options[key], *value) if joined else value
    return options


def run_all(head: HeadRun) -> Found:
    """What each probe can begin from the head's run alone, begun; then each probe, in order.
    What began beside the head's run (`head.begun`) is closed here too."""
    begun: dict[str, Begun] = dict(head.begun)  # what began beside the head's run
    try:
        for probe in PROBES:
            if (started := probe.begin(head)) is not None:
                begun[probe.name] = started
        head = replace(head, begun=begun)
        found = Found()
        for probe in PROBES:
            found = probe.run(head, found)
        return found
    finally:
        for started in begun.values():
            started.close()


def to_wire(found: Found) -> dict[str, Any]:
    """What the probes found, as `run.json`'s keys."""
    return {key: value for probe in PROBES for key, value in probe.to_wire(found).items()}


def from_wire(data: Mapping[str, Any]) -> Found:
    """What the probes found, read back from `run.json`."""
    found = Found()
    for probe in PROBES:
        found = probe.from_wire(data, found)
    return found


def reported(step: Step, ctx: GitFacts, run: ProbeRun) -> Reported:
    """Every probe's findings and notes for `step`, in order."""
    parts = [probe.report(step, ctx, run) for probe in PROBES]
    return Reported(
        tuple(f for part in parts for f in part.findings),
        tuple(note for part in parts for note in part.notes),
    )
