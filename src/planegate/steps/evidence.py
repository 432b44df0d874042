"""Step 3, evidence (exit 3): protected paths untouched, the fixture manifest matches, and
the digest check's findings."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping

from planegate.config import manifest as fixtures
from planegate.config import protection as protect
from planegate.config.default_evidence import DefaultEvidence
from planegate.config.load import Config
from planegate.config.owners import Owners
from planegate.config.planemap import PlaneMap, data_files
from planegate.errors import InputDataError
from planegate.findings import Finding, Severity, Step
from planegate.gitfacts import GitFacts
from planegate.repo.gitdiff import Change
from planegate.repo.snapshot import Snapshot
from planegate.report import StepResult
from planegate.steps import new_tests, observed
from planegate.steps.run_facts import RunFacts

# Unicode control, format (zero-width, direction overrides), line and paragraph separators.
_HIDDEN = frozenset({"Cc", "Cf", "Zl", "Zp"})


def check(ctx: GitFacts, run: RunFacts) -> StepResult:
    changed = [(c.path, c.status, c.old_path) for c in ctx.changes]
    changes = protect.changes(
        ctx.protection, changed, ctx.repo.read, ctx.base.commit, ctx.head.commit
    )
    changes, notes = new_tests.protected_changes(ctx.new_tests, changes, ctx.cfg.path)
    findings = protected_change_findings(
        changes, ctx.plane_map, ctx.who, agent=ctx.agent, why=ctx.evidence
    )
    findings = new_tests.with_refusal(ctx.new_tests, findings, ctx.cfg.path)
    findings += manifest_findings(ctx.cfg, ctx.base, ctx.head, ctx.who)
    findings += observed.evidence_findings(ctx, run)
    findings += run.digest_findings
    findings += hidden_character_findings(ctx.changes, ctx.author)
    return StepResult(
        Step.EVIDENCE,
        tuple(findings),
        (f"{len(changed)} changed paths, {len(changes)} protected", *notes),
    )


def hidden_character_findings(changes: Iterable[Change], owner: str) -> list[Finding]:
    """A warning for every changed path holding a control or invisible character."""
    return [
        Finding(
            "PG309",
            Step.EVIDENCE,
            Severity.WARNING,
            f"{change.path!a}: the file name holds a control or invisible character",
            path=change.path,
            owner=owner,
        )
        for change in changes
        if any(unicodedata.category(char) in _HIDDEN for char in change.path)
    ]


def protected_change_findings(
    changes: Iterable[protect.ProtectedChange],
    plane_map: PlaneMap,
    owners: Owners,
    *,
    agent: bool,
    why: DefaultEvidence | None = None,
) -> list[Finding]:
    config = plane_map.config
    fail = agent or config.on_human == "fail"
    rule = "PG301" if fail else "PG304"
    severity = Severity.ERROR if fail else Severity.WARNING
    findings = []
    for change in changes:
        plane = plane_map.plane_of_path(change.path)
        owner = (
            owners.of_plane_map()
            if change.path == config.path
            else owners.of_protected(plane, change.path)
        )
        if change.status == "pytest-table":
            findings.append(
                Finding(
                    "PG305" if fail else "PG304",
                    Step.EVIDENCE,
                    severity,
                    f"{change.path}: the pytest configuration table changed",
                    path=change.path,
                    owner=owner,
                )
            )
            continue
        what = f"{change.old_path} → {change.path}" if change.old_path else change.path
        reason = _reason(change.path, why)
        findings.append(
            Finding(
                rule,
                Step.EVIDENCE,
                severity,
                f"protected {what} {change.status}{reason}",
                path=change.path,
                owner=owner,
                plane=plane,
            )
        )
    return findings


_REASONS = {
    "listed": " (it holds nodeids the configuration lists)",
    "helper": " (a test helper the plane tests import)",
    "shipped helper": " (an assertion helper shipped in the package, which main's tests use)",
    "init": " (an __init__.py on the way to plane tests)",
}


def _reason(path: str, why: DefaultEvidence | None) -> str:
    """Why a file no pattern names is evidence all the same."""
    if why is None:
        return ""
    return _REASONS.get(why.why.get(path, ""), "")


def manifest_findings(
    config: Config, base: Snapshot, head: Snapshot, owners: Owners
) -> list[Finding]:
    """The base's manifest against the base's and the head's data files."""
    owner = owners.of_plane("fixture", config.manifest)
    raw = base.read(config.manifest)
    base_data = data_files(config, base.files)
    if raw is None:
        if not base_data:
            return []
        return [
            Finding(
                "PG302",
                Step.EVIDENCE,
                Severity.ERROR,
                f"{config.manifest} is missing on the base but {len(base_data)} fixture data "
                "files exist; run `planegate lock`",
                path=config.manifest,
                owner=owner,
            )
        ]
    try:
        manifest = fixtures.parse(raw, f"{config.manifest}@base")
    except InputDataError as error:
        return [
            Finding(
                "PG302",
                Step.EVIDENCE,
                Severity.ERROR,
                error.message,
                path=config.manifest,
                owner=owner,
            )
        ]
    findings = []
    for label, snapshot in (("base", base), ("head", head)):
        paths = set(data_files(config, snapshot.files)) | set(manifest.files)
        actual = {path: snapshot.sha256(path) for path in sorted(paths)}
        for mismatch in fixtures.verify(manifest, actual):
            if label == "head" and _same_on_base(mismatch.path, base, actual):
                continue  # already reported for the base
            findings.append(
                Finding(
                    "PG302",
                    Step.EVIDENCE,
                    Severity.ERROR,
                    f"{mismatch.describe()} (on the {label})",
                    path=mismatch.path,
                    owner=owners.of_plane("fixture", mismatch.path),
                    plane="fixture",
                )
            )
    return findings


def _same_on_base(path: str, base: Snapshot, head_actual: Mapping[str, str | None]) -> bool:
    return base.sha256(path) == head_actual.get(path)
