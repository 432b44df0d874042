"""Step 1, planes (exit 1): main's property and fixture tests run against the patch's code,
and every expected nodeid passes; the run closed, its channel held, budgets were kept, and
fixture tests noticed their perturbed data."""

from __future__ import annotations

from collections.abc import Mapping

from planegate import untrusted
from planegate.config.planemap import PlaneMap, file_of
from planegate.findings import Finding, Severity, Step
from planegate.report import StepResult
from planegate.runner.fixture_probe import ProbeResult
from planegate.runner.session import RunResult, Tamper
from planegate.steps import planes_probes
from planegate.steps.inputs import GitFacts, RunFacts
from planegate.vocabulary import SCORING_PLANES


def check(ctx: GitFacts, run: RunFacts) -> StepResult:
    head_run, owner = run.head_run, ctx.author
    findings: list[Finding] = []
    if not head_run.closed:
        findings.append(_unclosed(head_run, owner))
    if head_run.canary_problem:
        findings.append(
            Finding(
                "PG104",
                Step.PLANES,
                Severity.ERROR,
                f"result channel compromised: {head_run.canary_problem}",
                owner=owner,
            )
        )
    expected = _expected(ctx.plane_map, run)
    failures = _failures(expected, run, owner)
    findings += failures
    findings += _budget_findings(ctx, head_run, owner)
    findings += _probe_findings(run.probed, owner)
    findings += _tamper_findings((*head_run.tampering, *run.answers.tampering), owner)
    findings += planes_probes.findings(ctx, run.answers)
    passed = len(expected) - len(failures)
    notes = run.overlay_notes
    if run.probed.probed:
        notes = (*notes, f"probed {len(run.probed.probed)} fixture tests with their data perturbed")
    notes = (*notes, *planes_probes.notes(run.answers))
    return StepResult(
        Step.PLANES, tuple(findings), (f"{passed}/{len(expected)} expected nodeids passed", *notes)
    )


def _expected(plane_map: PlaneMap, run: RunFacts) -> dict[str, str]:
    """nodeid -> plane: the base's scoring nodeids, and the head's new ones."""
    expected: dict[str, str] = {n: p for p in SCORING_PLANES for n in run.base_inventory.get(p, [])}
    for nodeid in run.head_run.collected:
        plane = plane_map.plane_of(nodeid)
        if plane in SCORING_PLANES:
            expected.setdefault(nodeid, plane)
    return expected


def _failures(expected: Mapping[str, str], run: RunFacts, owner: str) -> list[Finding]:
    """PG101/PG102: an expected nodeid that did not pass, with its triage label if any."""
    findings = []
    for nodeid in sorted(expected):
        outcome = run.head_run.outcome_of(nodeid)
        if outcome.passed:
            continue
        rule = "PG101" if outcome.outcome in ("failed", "error") else "PG102"
        detail = untrusted.one_line(_first_line(outcome.message))
        triage = run.triage
        label = f" [{triage[nodeid][0]}; repro: {triage[nodeid][1]}]" if nodeid in triage else ""
        findings.append(
            Finding(
                rule,
                Step.PLANES,
                Severity.ERROR,
                f"{untrusted.one_line(nodeid)} {outcome.outcome}{': ' + detail if detail else ''}"
                + label,
                path=file_of(nodeid),
                owner=owner,
                plane=expected[nodeid],
                nodeid=nodeid,
            )
        )
    return findings


def _probe_findings(probed: ProbeResult, owner: str) -> list[Finding]:
    return [
        Finding(
            "PG106",
            Step.PLANES,
            Severity.ERROR,
            f"{nodeid} still passes with one byte of {', '.join(files)} changed: it does not "
            "check its locked data",
            path=file_of(nodeid),
            owner=owner,
            plane="fixture",
            nodeid=nodeid,
        )
        for nodeid, files in probed.survivors
    ]


def _unclosed(head_run: RunResult, owner: str) -> Finding:
    tail = head_run.output.strip().splitlines()[-1:] or [""]
    if head_run.timed_out:
        why = "timed out"
    elif head_run.unfinished:
        why = (
            f"the session ended before {len(head_run.unfinished)} selected tests finished, "
            f"first {head_run.unfinished[0]}"
        )
    else:
        why = f"exited {head_run.exit_status}"
    return Finding(
        "PG103",
        Step.PLANES,
        Severity.ERROR,
        untrusted.one_line(
            f"the test run ended without its closing record ({why}); last output: {tail[0][:200]}"
        ),
        owner=owner,
    )


def _budget_findings(ctx: GitFacts, head_run: RunResult, owner: str) -> list[Finding]:
    """PG105: a property test that ran with fewer Hypothesis examples than the plane's floor."""
    floor = ctx.cfg.max_examples
    return [
        Finding(
            "PG105",
            Step.PLANES,
            Severity.ERROR,
            f"{nodeid} ran with max_examples={examples}, below the property plane's floor "
            f"of {floor}",
            path=file_of(nodeid),
            owner=owner,
            plane="property",
            nodeid=nodeid,
        )
        for nodeid, examples in sorted(head_run.examples.items())
        if examples < floor and ctx.plane_map.plane_of(nodeid) == "property"
    ]


def _first_line(message: str) -> str:
    """pytest's first `E` line (the assertion, not the diff hints after it), else the last."""
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    for line in lines:
        if line.startswith("E "):
            return line[2:].strip()[:200]
    return lines[-1][:200] if lines else ""


def _tamper_findings(tampering: tuple[Tamper, ...], owner: str) -> list[Finding]:
    """PG107: what the child's audit hook, its integrity checks and the stream saw, in the
    scoring run and in the probe runs of the flipped tests (each sign once)."""
    return [
        Finding(
            "PG107",
            Step.PLANES,
            Severity.ERROR,
            untrusted.one_line(f"the run was tampered with: {t.event}" + _where(t.path, t.line)),
            path=t.path or None,
            line=t.line or None,
            owner=owner,
        )
        for t in dict.fromkeys(tampering)
    ]


def _where(path: str | None, line: int | None) -> str:
    if path and line:
        return f" at {path}:{line}"
    return f" in {path}" if path else ""
