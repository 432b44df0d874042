"""Step 1, planes (exit 1): main's property and fixture tests run against the patch's code,
and every expected nodeid passes; the run closed, its channel held, budgets were kept, and
fixture tests noticed their perturbed data."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from planegate import untrusted
from planegate.config.planemap import PlaneMap, file_of
from planegate.findings import Finding, Severity, Step
from planegate.freeze.triage import repro_command
from planegate.gitfacts import GitFacts
from planegate.probes import registry
from planegate.probes.protocol import changed_code
from planegate.report import StepResult
from planegate.runner import startup
from planegate.runner.child import provenance
from planegate.runner.session import Outcome, RunResult, Tamper
from planegate.signs import findings as signs_findings
from planegate.signs.compare import MainsSigns, fed_by_patch
from planegate.signs.lines import MainsLines
from planegate.steps import failure_text, on_base
from planegate.steps.run_facts import RunFacts
from planegate.vocabulary import SCORING_PLANES

MAX_NOTES = 20


def check(ctx: GitFacts, run: RunFacts) -> StepResult:
    head_run, owner = run.head_run, ctx.author
    findings: list[Finding] = []
    if _blame_unclosed(head_run, run):
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
    failures: list[Finding] = []
    same: list[str] = []
    if startup.refusal(head_run) is None and not startup.interrupted_by_collection(head_run):
        failures, same = _failures(ctx, expected, run, owner)  # else no test ran at all
    findings += failures
    findings += _budget_findings(ctx, head_run, owner)
    findings += signs_findings.fixture_findings(ctx, run.probed, run.mains_signs, owner)
    mains = MainsLines(ctx.base.text, ctx.head.text)
    tampering = (*head_run.tampering, *run.answers.tampering)
    findings += _tamper_findings(tampering, owner, mains, run.mains_signs, _fed(ctx, head_run))
    probes = registry.reported(Step.PLANES, ctx, run)
    findings += probes.findings
    findings += provenance_findings(head_run, ctx.who.of_plane_map())
    passed = len(expected) - len(failures) - len(same)
    notes = (*_same_notes(same), *run.overlay_notes, *probes.notes)
    notes = (*notes, *signs_findings.notes(run.mains_signs))
    return StepResult(
        Step.PLANES, tuple(findings), (f"{passed}/{len(expected)} expected nodeids passed", *notes)
    )


def _expected(plane_map: PlaneMap, run: RunFacts) -> dict[str, str]:
    """nodeid -> plane: the base's scoring nodeids, and the head's new ones."""
    expected: dict[str, str] = {n: p for p in SCORING_PLANES for n in run.inventory.get(p, [])}
    for nodeid in run.head_run.collected:
        plane = plane_map.plane_of(nodeid)
        if plane in SCORING_PLANES:
            expected.setdefault(nodeid, plane)
    return expected


def _failures(
    ctx: GitFacts, expected: Mapping[str, str], run: RunFacts, owner: str
) -> tuple[list[Finding], list[str]]:
    """PG101/PG102: an expected nodeid that did not pass, with its triage label if any;
    PG111 when it fails on the base too; a note when the base is in the same state."""
    findings, same = [], []
    for nodeid in sorted(expected):
        outcome = run.head_run.outcome_of(nodeid)
        if outcome.passed:
            continue
        base = run.on_base.outcome_of(nodeid) if run.on_base is not None else None
        verdict = on_base.compare(outcome, base)
        if verdict is on_base.Verdict.MAIN:
            same.append(on_base.describe(outcome))
        elif verdict is on_base.Verdict.BROKEN and run.on_base is not None:
            findings.append(_broken(ctx, expected[nodeid], outcome, run.on_base.commit))
        else:
            findings.append(_failure(expected[nodeid], outcome, run, owner))
    return findings, same


def _failure(plane: str, outcome: Outcome, run: RunFacts, owner: str) -> Finding:
    nodeid = outcome.nodeid
    rule = "PG101" if outcome.outcome in ("failed", "error") else "PG102"
    detail = untrusted.one_line(failure_text.first_line(outcome.message))
    triage = run.triage
    label = f" [{triage[nodeid][0]}; repro: {triage[nodeid][1]}]" if nodeid in triage else ""
    return Finding(
        rule,
        Step.PLANES,
        Severity.ERROR,
        f"{untrusted.one_line(nodeid)} {outcome.outcome}{': ' + detail if detail else ''}{label}",
        path=file_of(nodeid),
        owner=owner,
        plane=plane,
        nodeid=nodeid,
    )


def _broken(ctx: GitFacts, plane: str, outcome: Outcome, base_commit: str) -> Finding:
    """PG111: failing on the base as on the head, in the same environment and mode."""
    nodeid = outcome.nodeid
    detail = untrusted.one_line(failure_text.first_line(outcome.message))
    repro = repro_command(base_commit, nodeid, ctx.cfg)
    return Finding(
        "PG111",
        Step.PLANES,
        Severity.WARNING,
        untrusted.one_line(
            f"{nodeid} {outcome.outcome} on main too{': ' + detail if detail else ''} "
            f"(the base is broken, not the patch) [repro: {repro}]"
        ),
        path=file_of(nodeid),
        owner=ctx.who.of_plane(plane, file_of(nodeid)),
        plane=plane,
        nodeid=nodeid,
    )


def _same_notes(same: list[str]) -> tuple[str, ...]:
    if not same:
        return ()
    shown = [
        untrusted.one_line(f"in the same state on main, not counted against the patch: {line}")
        for line in same
    ]
    if len(shown) > MAX_NOTES:
        shown = [*shown[:MAX_NOTES], f"... and {len(shown) - MAX_NOTES} more in main's state"]
    return tuple(shown)


def _blame_unclosed(head_run: RunResult, run: RunFacts) -> bool:
    """PG103 unless pytest's own refusal or collection errors explain the unclosed run: the
    inventory step reports those (PG210, PG206) with pytest's message."""
    if head_run.closed or startup.interrupted_by_collection(head_run):
        return False
    return on_base.config_refusal(head_run, run.on_base) is None


def _unclosed(head_run: RunResult, owner: str) -> Finding:
    tail = head_run.output.strip().splitlines()[-1:] or [""]
    refused = startup.refusal(head_run)
    if refused is not None:
        why = f"pytest refused to start on the patch, while the base's run starts: {refused}"
    elif head_run.timed_out:
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


def _tamper_findings(
    tampering: tuple[Tamper, ...],
    owner: str,
    mains: MainsLines,
    signs: MainsSigns,
    fed: Callable[[str], tuple[str, ...]],
) -> list[Finding]:
    """PG107: what the child's audit hook, its integrity checks and the stream saw, in the
    scoring run and in the probe runs of the flipped tests (each sign once); PG112 for what
    main's own code shows, fed by nothing the patch changed (signs/findings.py)."""
    return [
        signs_findings.tamper_finding(t, owner, mains, signs, fed) for t in dict.fromkeys(tampering)
    ]


def _fed(ctx: GitFacts, head_run: RunResult) -> Callable[[str], tuple[str, ...]]:
    """What the patch changed (and the run saw) of the code at a path and of what it read in
    the head's run."""
    changed = changed_code(ctx)
    return lambda path: fed_by_patch(path, head_run.reads, changed)


def provenance_findings(head_run: RunResult, owner: str) -> list[Finding]:
    """PG110: modules of the project's own packages that were not imported from the tree."""
    outside = provenance.foreign(provenance.imports_of(head_run.extra))
    if not outside:
        return []
    shown = "; ".join(f"{name} from {path}" for name, path in outside[:5])
    more = f" (and {len(outside) - 5} more)" if len(outside) > 5 else ""
    preloaded = provenance.harness_of(head_run.extra) & {name for name, _ in outside}
    harness = sorted({name.split(".", 1)[0] for name in preloaded})
    why = (
        f"the test harness itself imported {', '.join(harness[:3])} before any code of the "
        "tree ran (pytest or an allowed plugin depends on it), so no run in its process "
        "imports the tree's copy (docs/runner.md, package roots); "
        if harness
        else ""
    )
    return [
        Finding(
            "PG110",
            Step.PLANES,
            Severity.ERROR,
            untrusted.one_line(f"the code under test is not the patch's: {why}{shown}{more}"),
            owner=owner,
        )
    ]
