"""Step 2, inventory (exit 2): every nodeid in one plane, no mixed file, no plane change
between base and head, no vanished nodeid, no collection error."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from planegate import untrusted
from planegate.config import load as config_mod
from planegate.config.planemap import (
    UNCLASSIFIED,
    PlaneMap,
    file_of,
    may_use_given,
    test_kinds,
)
from planegate.errors import ConfigError
from planegate.findings import Finding, Severity, Step
from planegate.gitfacts import GitFacts
from planegate.report import StepResult
from planegate.steps import new_tests, on_base, tested_copy
from planegate.steps.run_facts import RunFacts, finished
from planegate.vocabulary import SCORING_PLANES


def check(ctx: GitFacts, run: RunFacts) -> StepResult:
    owner = ctx.who.of_plane_map()
    head_run = run.head_run
    copies = tuple(tested_copy.findings(ctx))  # from git alone: whatever the run did
    refused = on_base.config_refusal(head_run, run.on_base)
    if refused is not None:
        refusal = (_refusal(refused, owner), *copies)
        return StepResult(Step.INVENTORY, refusal, ("pytest did not start",))
    if not head_run.closed and not head_run.collected and not head_run.collect_errors:
        # the child died before collection finished: the planes step reports it (PG103)
        return StepResult(Step.INVENTORY, copies, ("the head's collection did not finish",))
    # vanished nodeids are judged only on a finished run: else the run's own failure (PG103) says
    base_ids = tuple(n for ids in run.inventory.values() for n in ids if finished(head_run))
    sources = _sources(ctx, {file_of(n) for n in head_run.collected})
    inventory_input = InventoryInput(head_run.collected, base_ids, sources)
    findings = inventory_findings(ctx.plane_map, inventory_input, owner)
    findings += _head_plane_changes(ctx, run, owner)
    findings += _collect_errors(run, owner)
    findings += copies
    claims = ctx.new_tests
    claim_findings, claim_notes = new_tests.inventory_findings(
        claims, run.new_tests, _sources(ctx, set(claims.files)), owner
    )
    findings += claim_findings
    counts = ctx.plane_map.inventory(head_run.collected)
    note = ", ".join(f"{len(ids)} {plane}" for plane, ids in counts.items())
    notes: tuple[str, ...] = (f"{len(head_run.collected)} nodeids: {note}", *claim_notes)
    if not finished(head_run):
        notes += ("vanished nodeids not checked: the test run did not finish",)
    return StepResult(Step.INVENTORY, tuple(findings), notes)


def _sources(ctx: GitFacts, files: set[str]) -> dict[str, str]:
    """Each collected file's text: the base's, else the head's (read many at a time)."""
    base = ctx.base.read_many(files)
    head = ctx.head.read_many([path for path in files if not base.get(path)])
    return {
        path: data.decode("utf-8", "replace")
        for path in files
        if (data := base.get(path) or head.get(path)) is not None
    }


def _refusal(message: str, owner: str) -> Finding:
    """PG210: pytest stopped before collecting, with the base's configuration, on both sides."""
    return Finding(
        "PG210",
        Step.INVENTORY,
        Severity.ERROR,
        untrusted.one_line(
            "pytest refused to start with the base's configuration, on the base as on the "
            f"patch: {message}"
        ),
        owner=owner,
    )


def _collect_errors(run: RunFacts, owner: str) -> list[Finding]:
    findings = []
    for nodeid, message in run.head_run.collect_errors:
        first = message.strip().splitlines()[-1] if message.strip() else "collection error"
        findings.append(
            Finding(
                "PG206",
                Step.INVENTORY,
                Severity.ERROR,
                untrusted.one_line(f"{nodeid or 'session'}: {first}"),
                path=nodeid or None,
                owner=owner,
            )
        )
    return findings


def _head_plane_changes(ctx: GitFacts, run: RunFacts, owner: str) -> list[Finding]:
    """Nodeids the head's own plane map puts in another plane than the base's inventory."""
    data = ctx.head.read(ctx.cfg.path)
    if data is None or data == ctx.base.read(ctx.cfg.path):
        return []  # the same map on both sides moves no nodeid
    try:
        head_cfg = config_mod.parse(data, ctx.cfg.path)
    except ConfigError:
        return []  # an unreadable head configuration is an evidence finding already
    head_map = PlaneMap(head_cfg, ctx.plane_map.frozen)
    base_planes = {n: plane for plane, ids in run.inventory.items() for n in ids}
    head_planes = {n: head_map.plane_of(n) for n in run.head_run.collected if n in base_planes}
    return plane_changes(base_planes, head_planes, owner)


@dataclass(frozen=True)
class InventoryInput:
    head_nodeids: tuple[str, ...]
    base_nodeids: tuple[str, ...]
    sources: Mapping[str, str]  # test file path -> source as collected (for the mixed-file check)


def inventory_findings(plane_map: PlaneMap, data: InventoryInput, owner: str) -> list[Finding]:
    """Membership (PG201/202), mixed files (PG203), vanished nodeids (PG205)."""
    findings: list[Finding] = []
    findings += _membership(plane_map, data.head_nodeids, owner)
    findings += _mixed_files(plane_map, data, owner)
    findings += _moved_or_vanished(plane_map, data, owner)
    return findings


def _finding(
    rule: str, message: str, owner: str, nodeid: str | None = None, plane: str | None = None
) -> Finding:
    return Finding(
        rule,
        Step.INVENTORY,
        Severity.ERROR,
        message,
        path=file_of(nodeid) if nodeid else None,
        owner=owner,
        plane=plane,
        nodeid=nodeid,
    )


def _file_finding(
    message: str,
    owner: str,
    path: str,
    plane: str | None = None,
    line: int | None = None,
    severity: Severity = Severity.ERROR,
) -> Finding:
    """PG203: a test file whose tests are not all of its plane's kind."""
    return Finding(
        "PG203",
        Step.INVENTORY,
        severity,
        message,
        path=path,
        line=line,
        owner=owner,
        plane=plane,
    )


def _membership(plane_map: PlaneMap, nodeids: Iterable[str], owner: str) -> list[Finding]:
    findings = []
    for nodeid in nodeids:
        planes = plane_map.planes_of(nodeid)
        if not planes:
            findings.append(_finding("PG201", f"{nodeid} is in no plane", owner, nodeid))
        elif len(planes) > 1:
            findings.append(
                _finding("PG202", f"{nodeid} is in {' and '.join(planes)}", owner, nodeid)
            )
    return findings


def _mixed_files(plane_map: PlaneMap, data: InventoryInput, owner: str) -> list[Finding]:
    """A mixed file fails the step, unless each of its nodeids is listed by nodeid in the
    configuration (`planegate init` does this for files it cannot split): then the mix is
    documented, and reported as a notice until the file is split."""
    by_file: dict[str, set[str]] = defaultdict(set)
    by_path: set[str] = set()  # files with a nodeid whose plane comes from a path pattern
    for nodeid in data.head_nodeids:
        plane = plane_map.plane_of(nodeid)
        if plane in SCORING_PLANES:
            by_file[file_of(nodeid)].add(plane)
            if not plane_map.listed(nodeid):
                by_path.add(file_of(nodeid))
    findings = []
    for path in sorted(by_file):
        planes = by_file[path]
        severity = Severity.ERROR if path in by_path else Severity.NOTICE
        listed = "" if path in by_path else " (its nodeids are listed by nodeid in the planes)"
        if len(planes) > 1:
            message = f"{path} holds tests of both the property and the fixture plane; split it"
            findings.append(_file_finding(message + listed, owner, path, severity=severity))
            continue
        (plane,) = planes
        source = data.sources.get(path)
        wrong = _tests_of_other_kind(source, plane) if source is not None else []
        if wrong:
            names = ", ".join(name for name, _ in wrong[:5])
            kind = "example (non-@given) tests" if plane == "property" else "@given property tests"
            message = (
                f"{path} is in the {plane} plane but holds {kind}: "
                f"{names}; move them to a file of their own plane{listed}"
            )
            line = wrong[0][1]
            findings.append(_file_finding(message, owner, path, plane, line, severity))
    return findings


def _tests_of_other_kind(source: str, plane: str) -> list[tuple[str, int]]:
    want_given = plane == "property"
    if not want_given and not may_use_given(source):
        return []  # no @given anywhere: every test of a fixture file is of its kind
    return [(name, line) for name, line, given in test_kinds(source) if given != want_given]


def _moved_or_vanished(plane_map: PlaneMap, data: InventoryInput, owner: str) -> list[Finding]:
    head = set(data.head_nodeids)
    findings = []
    for nodeid in data.base_nodeids:
        base_plane = plane_map.plane_of(nodeid)
        if nodeid not in head and base_plane != UNCLASSIFIED:
            findings.append(
                _finding(
                    "PG205",
                    f"{nodeid} ({base_plane}) is collected on the base but not on the head",
                    owner,
                    nodeid,
                    plane=base_plane,
                )
            )
    return findings


def plane_changes(
    base_map: Mapping[str, str], head_map: Mapping[str, str], owner: str
) -> list[Finding]:
    """Nodeids whose plane differs between base and head inventories (same configuration)."""
    findings = []
    for nodeid, base_plane in sorted(base_map.items()):
        head_plane = head_map.get(nodeid)
        if head_plane is not None and head_plane != base_plane:
            findings.append(
                _finding(
                    "PG204",
                    f"{nodeid} moved from {base_plane} to {head_plane}",
                    owner,
                    nodeid,
                    plane=head_plane,
                )
            )
    return findings
