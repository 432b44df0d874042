"""The gate's ordered steps on two commits; returns one Report (DESIGN §4)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import Any

from planegate.analysis import hunks, lint, prodscan
from planegate.analysis.hunks.batch import FileChange, analyze_files
from planegate.config import load as config_mod
from planegate.config import owners
from planegate.config import planemap as planes
from planegate.config import protection as protect
from planegate.config.load import SCORING_PLANES, Config
from planegate.errors import ConfigError, InputDataError, InternalError
from planegate.findings import Finding, Severity, Step
from planegate.freeze import ledger
from planegate.gate import digest as digest_mod
from planegate.progress import QUIET, Progress
from planegate.repo.git import GitRepo
from planegate.report import Report, ShadowResult, StepResult
from planegate.runner import fixture_probe as probe
from planegate.runner import ini, overlay, session
from planegate.steps import evidence


@dataclass(frozen=True)
class GateOptions:
    root: Path
    base: str
    head: str = "HEAD"
    digest_file: Path | None = None
    config_path: str | None = None
    agent: bool = True
    author: str = "the patch author"
    today: date = field(default_factory=date.today)
    environ: Mapping[str, str] | None = None


@dataclass(frozen=True)
class Commits:
    base_tip: str
    head: str
    merge_base: str


def snapshot(repo: GitRepo, commit: str) -> evidence.Snapshot:
    return evidence.Snapshot(
        commit,
        tuple(repo.files(commit)),
        lambda path: repo.read(commit, path),
        lambda path: repo.sha256(commit, path),
    )


def load_config(repo: GitRepo, commit: str, requested: str | None, files: set[str]) -> Config:
    name = config_mod.find_config_name(files, requested)
    if name is None:
        raise config_mod.missing_config_error(
            requested or "planegate.yml", files, f"at commit {commit[:12]}"
        )
    data = repo.read(commit, name)
    assert data is not None
    return config_mod.parse(data.decode("utf-8", "replace"), name)


@dataclass(frozen=True)
class Context:
    """What both halves of the gate read from git: never from running project code."""

    repo: GitRepo
    commits: Commits
    base: evidence.Snapshot
    head: evidence.Snapshot
    cfg: Config
    who: owners.Owners
    ledger_base: str | None
    frozen: Mapping[str, str]
    plane_map: planes.PlaneMap
    protection: protect.Protection


@dataclass(frozen=True)
class Execution:
    """What running the suite produced: the only part that executes project code."""

    commits: Commits
    head_run: session.RunResult
    base_inventory: Mapping[str, list[str]] | None
    shadow: tuple[ShadowResult, ...]
    probed: probe.ProbeResult
    overlay_notes: tuple[str, ...]
    triage: Mapping[str, tuple[str, str]] = field(default_factory=dict)  # nodeid: label, repro


def context(options: GateOptions) -> Context:
    repo = GitRepo(options.root)
    head = repo.resolve(options.head)
    base_tip = repo.resolve(options.base)
    commits = Commits(base_tip, head, repo.merge_base(base_tip, head))
    base = snapshot(repo, commits.merge_base)
    cfg = load_config(repo, base.commit, options.config_path, set(base.files))
    ledger_base = _text(base.read(cfg.ledger))
    frozen = ledger.frozen_nodeids(ledger_base, cfg.ledger)
    return Context(
        repo=repo,
        commits=commits,
        base=base,
        head=snapshot(repo, head),
        cfg=cfg,
        who=owners.load(cfg, {p: base.read(p) for p in owners.CODEOWNERS_PATHS}),
        ledger_base=ledger_base,
        frozen=frozen,
        plane_map=planes.PlaneMap(cfg, frozenset(frozen)),
        protection=protect.Protection(cfg, tuple(sorted({planes.file_of(n) for n in frozen}))),
    )


def run(options: GateOptions, progress: Progress = QUIET) -> Report:
    """The whole gate in one process: execute, then judge."""
    ctx = context(options)
    progress.step("inventory", f"base {ctx.base.commit[:12]}, head {ctx.head.commit[:12]}")
    digest_result = check_digest(options, ctx.repo, ctx.cfg, ctx.plane_map, ctx.base)
    execution = execute(ctx, options, progress, collect_base=digest_result[1] is None)
    return judge(ctx, options, execution, digest_result)


def execute(
    ctx: Context, options: GateOptions, progress: Progress, *, collect_base: bool = True
) -> Execution:
    """Run main's evidence against the patch (and collect the base's inventory if asked)."""
    base_inventory = (
        _collect_base(ctx.repo, ctx.base, ctx.cfg, ctx.plane_map, progress)
        if collect_base
        else None
    )
    progress.step("planes", "running main's evidence against the patch")
    head_run, overlay_notes, probed = _run_head(
        ctx.repo, ctx.cfg, ctx.base, ctx.head, ctx.protection, ctx.frozen, options, ctx.plane_map
    )
    shadow = _shadow(
        ctx.repo, ctx.cfg, ctx.base, ctx.head, ctx.protection, ctx.frozen, options, progress
    )
    triage = _triage(ctx, head_run, options, progress)
    return Execution(ctx.commits, head_run, base_inventory, shadow, probed, overlay_notes, triage)


def _triage(
    ctx: Context, head_run: session.RunResult, options: GateOptions, progress: Progress
) -> dict[str, tuple[str, str]]:
    """Label failing scoring tests: regression, flaky under the patch, or failing on base."""
    if ctx.cfg.triage_runs == 0 or not head_run.closed or head_run.canary_problem:
        return {}
    failing = sorted(
        nodeid
        for nodeid, outcome in head_run.outcomes.items()
        if outcome.outcome in ("failed", "error")
        and ctx.plane_map.plane_of(nodeid) in SCORING_PLANES
    )[: ctx.cfg.triage_max]
    if not failing:
        return {}
    from planegate.freeze import sweep_run

    def prepare_head(tree: Path) -> object:
        return overlay.apply(
            tree,
            ctx.protection.select(ctx.base.files),
            ctx.protection.select(ctx.head.files),
            ctx.base.read,
        )

    labels = sweep_run.triage(
        ctx.repo,
        ctx.base.commit,
        ctx.head.commit,
        failing,
        ctx.cfg,
        ini_options=ini.base_options(ctx.base.read),
        prepare_head=prepare_head,
        runs=ctx.cfg.triage_runs,
        environ=options.environ,
        progress=progress,
    )
    return {nodeid: (found.label, found.repro) for nodeid, found in labels.items()}


DigestResult = tuple[list[Finding], "dict[str, list[str]] | None", str]


def judge(
    ctx: Context, options: GateOptions, execution: Execution, digest_result: DigestResult
) -> Report:
    """Every step's findings from git and the execution's results; runs no project code."""
    digest_findings, digest_inventory, digest_source = digest_result
    base_inventory = digest_inventory or execution.base_inventory
    if base_inventory is None:
        raise InternalError("no inventory of the base: neither a digest nor a collection")
    cfg, who, plane_map, base, head = ctx.cfg, ctx.who, ctx.plane_map, ctx.base, ctx.head
    head_run = execution.head_run
    steps = (
        _inventory_step(cfg, who, plane_map, base_inventory, head_run, ctx.repo, base, head),
        _evidence_step(cfg, who, ctx.protection, ctx.repo, base, head, options, digest_findings),
        _ledger_step(
            cfg,
            who,
            ctx.ledger_base,
            _text(head.read(cfg.ledger)),
            options.today,
            len(head_run.collected),
        ),
        _hunks_step(cfg, who, ctx.repo, base, head, plane_map, options),
        _planes_step(
            cfg,
            plane_map,
            base_inventory,
            head_run,
            options,
            execution.overlay_notes,
            execution.probed,
            execution.triage,
        ),
    )
    return Report(
        base=ctx.commits.base_tip,
        head=ctx.commits.head,
        merge_base=ctx.commits.merge_base,
        agent=options.agent,
        digest_source=digest_source,
        steps=steps,
        shadow=execution.shadow,
    )


def _text(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8", "replace")


def check_digest(
    options: GateOptions,
    repo: GitRepo,
    cfg: Config,
    plane_map: planes.PlaneMap,
    base: evidence.Snapshot,
) -> tuple[list[Finding], dict[str, list[str]] | None, str]:
    if options.digest_file is None:
        return [], None, f"recomputed from git at the merge base {base.commit[:12]}"
    try:
        text = options.digest_file.read_text("utf-8")
    except OSError as error:
        raise InputDataError(
            f"{options.digest_file}: cannot read the digest: {error.strerror}"
        ) from None
    artifact = digest_mod.from_json(text, str(options.digest_file))
    source = f"digest file {options.digest_file} (commit {artifact.commit[:12]})"
    commit = repo.resolve(artifact.commit)
    owner = who_owns_map(cfg)
    if not repo.is_ancestor(commit, base.commit):
        finding = Finding(
            "PG303",
            Step.EVIDENCE,
            Severity.ERROR,
            f"the digest's commit {artifact.commit[:12]} is not an ancestor of the "
            f"merge base {base.commit[:12]}",
            owner=owner,
        )
        return [finding], None, source + "; refused, recomputed at the merge base"
    recomputed = evidence.compute_digest(snapshot(repo, commit), cfg, artifact.inventory)
    findings = digest_mod.compare(artifact, recomputed, owner)
    if findings or commit != base.commit:
        return findings, None, source + "; inventory recomputed at the merge base"
    inventory = {plane: list(ids) for plane, ids in artifact.inventory.items()}
    return [], inventory, source + "; matches git"


def who_owns_map(cfg: Config) -> str:
    return cfg.owner


def _collect_base(
    repo: GitRepo,
    base: evidence.Snapshot,
    cfg: Config,
    plane_map: planes.PlaneMap,
    progress: Progress,
) -> dict[str, list[str]]:
    progress.step("inventory", "collecting the base's tests")
    with repo.worktree(base.commit) as tree:
        result = session.run(replace(_spec(tree, cfg, base), collect_only=True))
    return plane_map.inventory(result.collected)


def _spec(tree: Path, cfg: Config, base: evidence.Snapshot, **kwargs: Any) -> session.RunSpec:
    args = list(cfg.pytest_args)
    if "hypothesis" in cfg.pytest_plugins:
        args += ["--hypothesis-seed", str(cfg.seed)]
    spec = session.RunSpec(
        tree=tree,
        ini_options=ini.base_options(base.read),
        plugins=cfg.pytest_plugins,
        extra_args=tuple(args),
        timeout=cfg.pytest_timeout,
        env_allow=cfg.env_allow,
    )
    return dataclasses.replace(spec, **kwargs)


def _run_head(
    repo: GitRepo,
    cfg: Config,
    base: evidence.Snapshot,
    head: evidence.Snapshot,
    protection: protect.Protection,
    frozen: Mapping[str, str],
    options: GateOptions,
    plane_map: planes.PlaneMap,
) -> tuple[session.RunResult, tuple[str, ...], probe.ProbeResult]:
    with repo.worktree(head.commit) as tree:
        applied = overlay.apply(
            tree, protection.select(base.files), protection.select(head.files), base.read
        )
        spec = replace(_spec(tree, cfg, base), deselect=frozenset(frozen), trusted=applied.kept)
        result = session.run(spec, parent_env=options.environ)
        probed = _probe(tree, cfg, base, plane_map, result, options)
    notes = []
    if applied.restored:
        notes.append(f"restored {len(applied.restored)} protected files from the base")
    if applied.removed:
        notes.append(
            f"removed {len(applied.removed)} protected files the head added: "
            + ", ".join(applied.removed[:5])
        )
    return result, tuple(notes), probed


def _probe(
    tree: Path,
    cfg: Config,
    base: evidence.Snapshot,
    plane_map: planes.PlaneMap,
    result: session.RunResult,
    options: GateOptions,
) -> probe.ProbeResult:
    """Rerun passing fixture tests that read locked files with those files perturbed."""
    if not cfg.fixture_probe or not result.closed:
        return probe.ProbeResult()
    passed = {
        nodeid: outcome.duration
        for nodeid, outcome in result.outcomes.items()
        if outcome.passed and plane_map.plane_of(nodeid) == "fixture"
    }
    sources = {
        path: data.decode("utf-8", "replace")
        for path in {planes.file_of(n) for n in passed}
        if (data := base.read(path)) is not None
    }
    chosen = probe.candidates(passed, sources, evidence.data_files(cfg, base.files))
    if not chosen:
        return probe.ProbeResult()
    probe.perturb_files(tree, [f for c in chosen for f in c.files])
    rerun = session.run(
        _spec(tree, cfg, base, targets=tuple(c.nodeid for c in chosen)),
        parent_env=options.environ,
    )
    survivors = tuple(
        (c.nodeid, c.files) for c in chosen if rerun.closed and rerun.outcome_of(c.nodeid).passed
    )
    return probe.ProbeResult(tuple(c.nodeid for c in chosen), survivors)


def _shadow(
    repo: GitRepo,
    cfg: Config,
    base: evidence.Snapshot,
    head: evidence.Snapshot,
    protection: protect.Protection,
    frozen: Mapping[str, str],
    options: GateOptions,
    progress: Progress,
) -> tuple[ShadowResult, ...]:
    if not frozen:
        return ()
    progress.step("shadow lane", f"{len(frozen)} frozen tests (diagnostics only)")
    with repo.worktree(head.commit) as tree:
        overlay.apply(tree, protection.select(base.files), protection.select(head.files), base.read)
        result = session.run(
            replace(_spec(tree, cfg, base), targets=tuple(sorted(frozen)), canaries=False),
            parent_env=options.environ,
        )
    return tuple(
        ShadowResult(nodeid, result.outcome_of(nodeid).outcome, owner)
        for nodeid, owner in sorted(frozen.items())
    )


def _inventory_step(
    cfg: Config,
    who: owners.Owners,
    plane_map: planes.PlaneMap,
    base_inventory: Mapping[str, list[str]],
    head_run: session.RunResult,
    repo: GitRepo,
    base: evidence.Snapshot,
    head: evidence.Snapshot,
) -> StepResult:
    owner = who.of_plane_map()
    if not head_run.closed and not head_run.collected and not head_run.collect_errors:
        # the child died before collection finished: the planes step reports it (PG103)
        return StepResult(Step.INVENTORY, (), ("the head's collection did not finish",))
    base_ids = tuple(n for ids in base_inventory.values() for n in ids)
    files = {planes.file_of(n) for n in head_run.collected}
    sources = {
        path: data.decode("utf-8", "replace")
        for path in files
        if (data := base.read(path) or head.read(path)) is not None
    }
    inventory_input = planes.InventoryInput(head_run.collected, base_ids, sources)
    findings = planes.check(plane_map, inventory_input, owner)
    findings += _plane_changes(cfg, plane_map, base_inventory, head_run, head, owner)
    for nodeid, message in head_run.collect_errors:
        first = message.strip().splitlines()[-1] if message.strip() else "collection error"
        findings.append(
            Finding(
                "PG206",
                Step.INVENTORY,
                Severity.ERROR,
                f"{nodeid or 'session'}: {first}",
                path=nodeid or None,
                owner=owner,
            )
        )
    counts = plane_map.inventory(head_run.collected)
    note = ", ".join(f"{len(ids)} {plane}" for plane, ids in counts.items())
    return StepResult(
        Step.INVENTORY, tuple(findings), (f"{len(head_run.collected)} nodeids: {note}",)
    )


def _plane_changes(
    cfg: Config,
    plane_map: planes.PlaneMap,
    base_inventory: Mapping[str, list[str]],
    head_run: session.RunResult,
    head: evidence.Snapshot,
    owner: str,
) -> list[Finding]:
    data = head.read(cfg.path)
    if data is None:
        return []
    try:
        head_cfg = config_mod.parse(data.decode("utf-8", "replace"), cfg.path)
    except ConfigError:
        return []  # an unreadable head configuration is an evidence finding already
    head_map = planes.PlaneMap(head_cfg, plane_map.frozen)
    base_planes = {n: plane for plane, ids in base_inventory.items() for n in ids}
    head_planes = {n: head_map.plane_of(n) for n in head_run.collected if n in base_planes}
    return planes.plane_changes(base_planes, head_planes, owner)


def _evidence_step(
    cfg: Config,
    who: owners.Owners,
    protection: protect.Protection,
    repo: GitRepo,
    base: evidence.Snapshot,
    head: evidence.Snapshot,
    options: GateOptions,
    digest_findings: list[Finding],
) -> StepResult:
    changed = [(c.path, c.status, c.old_path) for c in repo.changes(base.commit, head.commit)]
    changes = protect.changes(protection, changed, repo.read, base.commit, head.commit)
    findings = evidence.protected_change_findings(changes, cfg, who, agent=options.agent)
    findings += evidence.manifest_findings(cfg, base, head, who)
    findings += digest_findings
    return StepResult(
        Step.EVIDENCE, tuple(findings), (f"{len(changed)} changed paths, {len(changes)} protected",)
    )


def _ledger_step(
    cfg: Config,
    who: owners.Owners,
    base_text: str | None,
    head_text: str | None,
    today: date,
    suite_size: int,
) -> StepResult:
    owner = who.of_plane("freeze", cfg.ledger)
    findings = ledger.check(
        base_text,
        head_text,
        cfg.ledger,
        today,
        default_owner=owner,
        suite_size=suite_size,
        max_fraction=cfg.max_frozen_fraction,
    )
    frozen = len(ledger.frozen_nodeids(base_text, cfg.ledger))
    return StepResult(Step.LEDGER, tuple(findings), (f"{frozen} frozen of {suite_size} nodeids",))


def _hunks_step(
    cfg: Config,
    who: owners.Owners,
    repo: GitRepo,
    base: evidence.Snapshot,
    head: evidence.Snapshot,
    plane_map: planes.PlaneMap,
    options: GateOptions,
) -> StepResult:
    findings: list[Finding] = []
    changed: list[FileChange] = []
    analysed = 0
    data_paths = _data_paths(cfg, base)
    for change in repo.changes(base.commit, head.commit):
        path = change.path
        if not (
            hunks.is_test_file(path) or (path.endswith(".py") and plane_map.is_plane_file(path))
        ):
            # production-code scan: non-test files, and packaging files for entry points
            old_text = _text(base.read(change.old_path or path))
            findings += prodscan.scan_change(
                path, old_text, _text(head.read(path)), data_paths, options.author
            )
            continue
        analysed += 1
        plane = plane_map.plane_of_file(path)
        if plane == "property" and path.endswith(".py"):
            findings += lint.added_findings(
                path,
                _text(base.read(change.old_path or path)),
                _text(head.read(path)),
                options.author,
            )
        changed.append(
            FileChange(
                path,
                _text(base.read(change.old_path or path)),
                _text(head.read(path)),
                plane=plane,
                owner=options.author,
                fixture_plane=plane == "fixture",
                async_plugin=_async_plugin(cfg),
            )
        )
    findings += analyze_files(changed)
    findings += _lint_base(cfg, plane_map, base)
    return StepResult(Step.HUNKS, tuple(findings), (f"{analysed} changed test files analysed",))


def _async_plugin(cfg: Config) -> bool:
    async_plugins = {"asyncio", "pytest_asyncio", "pytest-asyncio", "anyio", "trio", "pytest_trio"}
    return bool(async_plugins & set(cfg.pytest_plugins))


def _data_paths(cfg: Config, base: evidence.Snapshot) -> prodscan.DataPaths:
    fixture = cfg.planes["fixture"]
    files = evidence.data_files(cfg, base.files)
    return prodscan.DataPaths((*fixture.data, *fixture.paths), tuple(files))


def _lint_base(cfg: Config, plane_map: planes.PlaneMap, base: evidence.Snapshot) -> list[Finding]:
    """Property-plane lint violations already on main: warnings for the plane's owner."""
    owner = cfg.planes["property"].owner
    return [
        finding
        for path in base.files
        if path.endswith(".py") and plane_map.plane_of_file(path) == "property"
        for finding in lint.base_findings(path, _text(base.read(path)), owner)
    ]


def _planes_step(
    cfg: Config,
    plane_map: planes.PlaneMap,
    base_inventory: Mapping[str, list[str]],
    head_run: session.RunResult,
    options: GateOptions,
    notes: tuple[str, ...],
    probed: probe.ProbeResult,
    triage: Mapping[str, tuple[str, str]] | None = None,
) -> StepResult:
    findings: list[Finding] = []
    triage = triage or {}
    owner = options.author
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
    expected = {n: p for p in SCORING_PLANES for n in base_inventory.get(p, [])}
    for nodeid in head_run.collected:
        plane = plane_map.plane_of(nodeid)
        if plane in SCORING_PLANES:
            expected.setdefault(nodeid, plane)
    failed = 0
    for nodeid in sorted(expected):
        outcome = head_run.outcome_of(nodeid)
        if outcome.passed:
            continue
        failed += 1
        rule = "PG101" if outcome.outcome in ("failed", "error") else "PG102"
        detail = _first_line(outcome.message)
        label = f" [{triage[nodeid][0]}; repro: {triage[nodeid][1]}]" if nodeid in triage else ""
        findings.append(
            Finding(
                rule,
                Step.PLANES,
                Severity.ERROR,
                f"{nodeid} {outcome.outcome}{': ' + detail if detail else ''}{label}",
                path=planes.file_of(nodeid),
                owner=owner,
                plane=expected[nodeid],
                nodeid=nodeid,
            )
        )
    findings += _budget_findings(cfg, plane_map, head_run, owner)
    findings += _probe_findings(probed, owner)
    findings += _tamper_findings(head_run, owner)
    passed = len(expected) - failed
    if probed.probed:
        notes = (*notes, f"probed {len(probed.probed)} fixture tests with their data perturbed")
    return StepResult(
        Step.PLANES, tuple(findings), (f"{passed}/{len(expected)} expected nodeids passed", *notes)
    )


def _tamper_findings(head_run: session.RunResult, owner: str) -> list[Finding]:
    """PG107: what the child's audit hook, its integrity checks and the stream saw."""
    return [
        Finding(
            "PG107",
            Step.PLANES,
            Severity.ERROR,
            f"the run was tampered with: {t.event}"
            + (
                f" at {t.path}:{t.line}" if t.path and t.line else f" in {t.path}" if t.path else ""
            ),
            path=t.path or None,
            line=t.line or None,
            owner=owner,
        )
        for t in head_run.tampering
    ]


def _probe_findings(probed: probe.ProbeResult, owner: str) -> list[Finding]:
    return [
        Finding(
            "PG106",
            Step.PLANES,
            Severity.ERROR,
            f"{nodeid} still passes with one byte of {', '.join(files)} changed: it does not "
            "check its locked data",
            path=planes.file_of(nodeid),
            owner=owner,
            plane="fixture",
            nodeid=nodeid,
        )
        for nodeid, files in probed.survivors
    ]


def _unclosed(head_run: session.RunResult, owner: str) -> Finding:
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
        f"the test run ended without its closing record ({why}); last output: {tail[0][:200]}",
        owner=owner,
    )


def _budget_findings(
    cfg: Config, plane_map: planes.PlaneMap, head_run: session.RunResult, owner: str
) -> list[Finding]:
    """PG105: a property test that ran with fewer Hypothesis examples than the plane's floor."""
    return [
        Finding(
            "PG105",
            Step.PLANES,
            Severity.ERROR,
            f"{nodeid} ran with max_examples={examples}, below the property plane's floor "
            f"of {cfg.max_examples}",
            path=planes.file_of(nodeid),
            owner=owner,
            plane="property",
            nodeid=nodeid,
        )
        for nodeid, examples in sorted(head_run.examples.items())
        if examples < cfg.max_examples and plane_map.plane_of(nodeid) == "property"
    ]


def _first_line(message: str) -> str:
    """pytest's first `E` line (the assertion, not the diff hints after it), else the last."""
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    for line in lines:
        if line.startswith("E "):
            return line[2:].strip()[:200]
    return lines[-1][:200] if lines else ""


def build_digest(
    repo: GitRepo, commit: str, config_path: str | None, progress: Progress = QUIET
) -> digest_mod.Digest:
    """Main's digest at `commit`: protected hashes plus the collected inventory per plane."""
    snap = snapshot(repo, commit)
    cfg = load_config(repo, commit, config_path, set(snap.files))
    frozen = ledger.frozen_nodeids(_text(snap.read(cfg.ledger)), cfg.ledger)
    plane_map = planes.PlaneMap(cfg, frozenset(frozen))
    inventory = _collect_base(repo, snap, cfg, plane_map, progress)
    return evidence.compute_digest(snap, cfg, inventory)
