"""The planes step's findings from honest values (PG145-PG147): values main's asserts
compared in the scoring run that lied (probes/honest/run.py judges them against main)."""

from __future__ import annotations

from planegate import untrusted
from planegate.config.planemap import file_of
from planegate.findings import Finding, Severity, Step
from planegate.gitfacts import GitFacts
from planegate.probes.answers.wire import AnswerProbes, ProbeFailure
from planegate.probes.honest.plan import LIED, MAINS, UNCLOSED

RULE = {LIED: "PG145", MAINS: "PG146", UNCLOSED: "PG147"}


def findings(ctx: GitFacts, answers: AnswerProbes) -> list[Finding]:
    return [_finding(ctx, f) for f in answers.failures if f.probe in RULE]


def _finding(ctx: GitFacts, failure: ProbeFailure) -> Finding:
    nodeid = failure.nodeid or None
    plane = ctx.plane_map.plane_of(failure.nodeid) if nodeid else None
    path, _, number = failure.message.split(": ", 1)[0].rpartition(":")
    line = int(number) if number.isdigit() else None
    if failure.probe == MAINS and nodeid is not None:
        severity, owner = Severity.WARNING, ctx.who.of_plane(plane, file_of(failure.nodeid))
    else:
        severity, owner = Severity.ERROR, ctx.author
    subject = f"{failure.nodeid}: " if nodeid else ""
    return Finding(
        RULE[failure.probe],
        Step.PLANES,
        severity,
        untrusted.one_line(f"{subject}{failure.message}; repro: {failure.repro}"),
        path=path if nodeid and line else None,
        line=line,
        owner=owner,
        plane=plane,
        nodeid=nodeid,
    )
