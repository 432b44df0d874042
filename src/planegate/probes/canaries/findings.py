"""The planes step's findings from the sampled canaries (PG125-PG127, PG140, PG141): main's
scoring tests rerun with a production function they call broken (probes/canaries/run.py)."""

from __future__ import annotations

from planegate import untrusted
from planegate.config.planemap import file_of
from planegate.findings import Finding, Severity, Step
from planegate.gitfacts import GitFacts
from planegate.probes.answers.wire import AnswerProbes, ProbeFailure
from planegate.probes.canaries import plan as mutants

RULE = {
    mutants.LIED: "PG125",
    mutants.UNTESTED: "PG126",
    mutants.UNCLOSED: "PG127",
    mutants.STARVED: "PG140",
    mutants.STARVED_ON_MAIN: "PG141",
}
MAINS = frozenset({mutants.UNTESTED, mutants.STARVED_ON_MAIN})  # warnings for the plane's owner


def findings(ctx: GitFacts, answers: AnswerProbes) -> list[Finding]:
    return [_finding(ctx, f) for f in answers.failures if f.probe in RULE]


def _finding(ctx: GitFacts, failure: ProbeFailure) -> Finding:
    starved = failure.probe in (mutants.STARVED, mutants.STARVED_ON_MAIN)
    _, path, line = ("", "", 0) if starved else mutants.described(failure)
    plane = ctx.plane_map.plane_of(failure.nodeid)
    if failure.probe in MAINS:
        severity, owner = Severity.WARNING, ctx.who.of_plane(plane, file_of(failure.nodeid))
    else:
        severity, owner = Severity.ERROR, ctx.author
    return Finding(
        RULE[failure.probe],
        Step.PLANES,
        severity,
        untrusted.one_line(
            f"{failure.nodeid}: {failure.message.split('): ', 1)[-1]}; repro: {failure.repro}"
        ),
        path=path or file_of(failure.nodeid),
        line=line or None,
        owner=owner,
        plane=plane,
        nodeid=failure.nodeid,
    )
