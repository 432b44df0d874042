"""The only part of the gate that runs project code: the head's run of main's evidence, the
base's collection, the shadow lane of frozen tests, the probes (probes/registry.py), failure
triage."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from planegate.config.planemap import PlaneMap, data_files, file_of
from planegate.errors import ConfigError
from planegate.freeze import sweep_plugin
from planegate.gate import flipped, merge
from planegate.gate.context import Context
from planegate.probes import registry
from planegate.probes.answers.plan import FIXTURE_DATA
from planegate.probes.fixture import early as fixture_early
from planegate.probes.fixture import plan as fixture_plan
from planegate.probes.fixture.wire import ProbeResult
from planegate.probes.protocol import Begun, Found, HeadRun
from planegate.progress import QUIET, Progress, Stopwatch
from planegate.repo import untracked
from planegate.repo.digest_format import MainRun
from planegate.repo.git import GitRepo
from planegate.report import ShadowResult
from planegate.runner import overlay, parked, session, startup
from planegate.runner.rerun import Rerun, rerun
from planegate.runner.spec import Sessions
from planegate.runner.traced import TraceSpec
from planegate.signs.compare import MainsSigns
from planegate.steps import observed, on_base
from planegate.steps.run_facts import Commits, Execution
from planegate.vocabulary import SCORING_PLANES

# outcomes the head shares with main's recorded run without a rerun of the base
AS_ON_MAIN = frozenset({"skipped", "xfailed", "deselected"})


@dataclass(frozen=True)
class Within:
    """One shard's part of the run (shards/run.py): the base's nodeids it runs, those
    the other shards run (deselected here), and whether the shadow lane runs in it."""

    assigned: frozenset[str]
    elsewhere: frozenset[str]
    shadow: bool = True

    def own(self, run: session.RunResult) -> session.RunResult:
        """The run as this shard's: the nodeids other shards run are not its collection."""
        return replace(run, collected=tuple(n for n in run.collected if n not in self.elsewhere))


def execute(
    ctx: Context,
    progress: Progress = QUIET,
    *,
    base_inventory: Mapping[str, list[str]] | None = None,
    main: MainRun | None = None,
    within: Within | None = None,
    head_starts: Callable[[], None] | None = None,
) -> Execution:
    """Run main's evidence against the patch, then one session on the base over the scoring
    tests that did not pass. The base inventory is decided here, once: `base_inventory` when
    the caller has one (main's digest vouches for it, or a shard's slices were cut from it),
    else the base's collection, running alongside. With main's run from the digest (`main`)
    the base's outcomes are known; `within` keeps every part to one shard's slice;
    `head_starts` is called just before the head's run starts its child."""
    if (elsewhere := _not_here(ctx, progress, base_inventory, main, within)) is not None:
        return elsewhere
    watch = Stopwatch()
    with collecting_base(ctx, base_inventory is None, progress) as base_collection:
        progress.step("planes", "running main's evidence against the patch")
        files = None if within is None else {file_of(n) for n in within.assigned}
        with (
            watch.time("head run"),
            flipped.started(ctx, main, base_inventory, files) as base_run,
        ):
            head_run, overlay_notes, found = _run_head(
                ctx, base_run, within, progress, base_inventory, head_starts
            )
        if head_run.ahead:
            watch.seconds["head child started ahead"] = head_run.ahead
        shadow, claims = _apart(ctx, progress, watch, within is None or within.shadow)
        with watch.time("base collection (alongside)"):
            base_collected = base_collection()
    if base_inventory is None and base_collected is not None:
        base_inventory = ctx.plane_map.inventory(base_collected)
    expected = [n for p in SCORING_PLANES for n in (base_inventory or {}).get(p, [])]
    own_run = head_run if within is None else within.own(head_run)
    if within is not None:
        expected = [n for n in expected if n in within.assigned]
    with watch.time("base"):
        on_base = compare_on_base(ctx, own_run, progress, expected, whole_suite=False, main=main)
    with watch.time("triage"):
        labels = _triage(ctx, head_run, progress, on_base)
    with watch.time("base signs"):
        signs = _base_signs(ctx, head_run, found, progress, main)
    return Execution(
        ctx.commits,
        head_run,
        base_inventory,
        shadow,
        found.fixture,
        overlay_notes,
        labels,
        on_base,
        watch.seconds,
        found.answers,
        signs,
        claims,
    )


def _base_signs(
    ctx: Context,
    head_run: session.RunResult,
    found: Found,
    progress: Progress,
    main: MainRun | None,
) -> MainsSigns:
    """The signs main shows for the head's run (signs/on_main.py), from main's digest when it
    has them."""
    from planegate.signs import on_main as signs_on_main  # imported alongside the head's run

    recorded = None if main is None else main.signs
    tampering = found.answers.tampering
    return signs_on_main.observe(
        ctx, head_run, found.fixture, tampering, progress, recorded, beside=found.beside
    )


def _apart(
    ctx: Context, progress: Progress, watch: Stopwatch, wanted: bool
) -> tuple[tuple[ShadowResult, ...], session.RunResult | None]:
    """The sessions that never vote: the shadow lane of frozen tests and the test files the
    patch adds (in one shard only, when sharded)."""
    if not wanted:
        return (), None
    with watch.time("shadow lane"):
        shadow = _shadow(ctx, progress)
    with watch.time("tests the patch adds"):
        return shadow, _new_tests(ctx, progress)


@contextlib.contextmanager
def collecting_base(
    ctx: Context, wanted: bool, progress: Progress
) -> Iterator[Callable[[], tuple[str, ...] | None]]:
    """The base's collection in its own tree, in a thread waiting on its own pytest process
    while the head's run goes on (git is only used by this thread before it starts); the
    yielded function waits for the nodeids (None when not wanted)."""
    if not wanted:
        yield lambda: None
        return
    progress.step("inventory", "collecting the base's tests alongside")
    with ctx.repo.worktree(ctx.base.commit) as tree:
        sessions = Sessions(tree, ctx.cfg, ctx.base_ini, ctx.environ)
        with ThreadPoolExecutor(max_workers=1) as pool:
            future = pool.submit(sessions.run, collect_only=True, canaries=False)
            yield lambda: future.result().collected


def _not_here(
    ctx: Context,
    progress: Progress,
    base_inventory: Mapping[str, list[str]] | None,
    main: MainRun | None,
    within: Within | None = None,
) -> Execution | None:
    """A patch that does not merge runs nothing; a suite pytest does not run (`runner: junit`)
    gives the same facts from its own command (gate/junit_gate.py; a shard's other ids left
    out through the runner's filter)."""
    if ctx.commits.conflicts:
        return unmerged(ctx)
    if ctx.cfg.runner == "junit":
        from planegate.gate import junit_gate  # imported by the runner that uses it alone

        return junit_gate.execute(
            ctx,
            progress,
            base_inventory=base_inventory,
            main=main,
            elsewhere=frozenset() if within is None else within.elsewhere,
            shadow_lane=within is None or within.shadow,
        )
    return None


def unmerged(ctx: Context) -> Execution:
    """A patch that does not merge onto the base's tip runs nothing (PG108)."""
    return Execution(ctx.commits, merge.unmerged_run(), None, (), ProbeResult(), ())


def checkout_command(commits: Commits) -> str:
    """How a person gets the tree the gate ran: the head, merged onto the base's tip when the
    head does not contain it."""
    if commits.merge_base == commits.base_tip:
        return f"git checkout {commits.head[:12]}"
    return f"git checkout {commits.base_tip[:12]} && git merge --no-edit {commits.head[:12]}"


def collect_inventory(
    repo: GitRepo,
    commit: str,
    ini_options: Mapping[str, Any],
    plane_map: PlaneMap,
    progress: Progress,
) -> dict[str, list[str]]:
    """The commit's collected nodeids by the plane map's planes (its configuration runs
    pytest; the child's environment is cut from this process's own)."""
    progress.step("inventory", "collecting the base's tests")
    with repo.worktree(commit) as tree:
        result = Sessions(tree, plane_map.config, ini_options).run(collect_only=True)
    if not result.collected:
        raise nothing_collected(commit, result, repo.root)
    return plane_map.inventory(result.collected)


def nothing_collected(commit: str, result: session.RunResult, root: Path) -> ConfigError:
    """A base that collects no test has no evidence to lock: pytest's own words say why (and
    what to do, when the module it misses is a file of the checkout git does not hold)."""
    message = result.collect_errors[0][1] if result.collect_errors else result.output
    if result.collect_errors:
        why = f"{result.collect_errors[0][0] or 'collection'}: {startup.pytest_message(message)}"
    else:
        why = startup.pytest_message(message) or f"pytest exited {result.exit_status}"
    return ConfigError(
        f"pytest collected no test at {commit[:12]} with its configuration: {why}",
        untracked.missing_module_hint(root, message)
        or "fix the pytest configuration (pytest.ini, pyproject.toml, planegate.yml pytest.args)",
    )


def _overlay(ctx: Context, tree: Path) -> overlay.OverlayResult:
    """The base's protected files restored in the head's tree, added protected files removed,
    and so are the test files the patch adds: they are its claims, never in a session that
    runs main's evidence (their import-time code cannot reach main's tests)."""
    return overlay.apply(
        tree,
        ctx.protection.select(ctx.base.files),
        [*ctx.protection.select(ctx.head.files), *ctx.new_tests.files],
        ctx.base.read,
        ctx.base_links,
    )


def _new_tests(ctx: Context, progress: Progress) -> session.RunResult | None:
    """The test files the patch adds, run apart: a tree of their own (main's evidence
    overlaid as for every run), a session of their own, outcomes reported, never voting."""
    files = ctx.new_tests.files
    if not files:
        return None
    progress.step("new tests", f"{len(files)} test files the patch adds (apart, never voting)")
    with ctx.repo.worktree(ctx.head.commit) as tree:
        _overlay(ctx, tree)
        for path in files:
            data = ctx.head.read(path)
            if data is not None:
                (tree / path).parent.mkdir(parents=True, exist_ok=True)
                (tree / path).write_bytes(data)
        sessions = Sessions(tree, ctx.cfg, ctx.base_ini, ctx.environ)
        return sessions.run(targets=files, deselect=frozenset(ctx.frozen), canaries=False)


def _run_head(
    ctx: Context,
    base_run: flipped.Pending,
    within: Within | None,
    progress: Progress,
    inventory: Mapping[str, list[str]] | None,
    head_starts: Callable[[], None] | None = None,
) -> tuple[session.RunResult, tuple[str, ...], Found]:
    """The head's run, with what the probes ask of it (`inventory`: main's, where its digest
    gives it before the run), then every probe after it."""
    deselect = frozenset(ctx.frozen) | (within.elsewhere if within is not None else frozenset())
    # the folder a test child started ahead waits for, if one does (runner/parked.py)
    with ctx.repo.worktree(ctx.head.commit, into=parked.reserved()) as tree:
        applied = _overlay(ctx, tree)
        sessions = Sessions(
            tree, ctx.cfg, ctx.base_ini, ctx.environ, trusted=applied.kept, progress=progress
        )
        plans = registry.planned(ctx, None if within is None else within.assigned, inventory)
        options = registry.head_run_options(plans)
        if head_starts is not None:
            head_starts()
        early = None if within is not None else fixture_early.begin(ctx, base_run.main)
        # else the fixture probe's session follows in this tree: a spare child for it
        spare = early is None and _fixture_probe_likely(ctx, base_run.main)
        begun = registry.beside_the_run(plans)
        if early is not None:
            begun[FIXTURE_DATA] = early
        with _closed_on_error(begun.values()):
            result = sessions.run(
                deselect=deselect,
                trace=trace_spec(ctx),
                spare=spare,
                then=None if early is None else early.start,
                **options,
            )
            result, reran = with_mains_bytes(ctx, sessions, result, applied.kept)
            if reran and early is not None:  # the probe's session after the run sees main's
                early.close()  # bytes of those files, as it would without a digest
                del begun[FIXTURE_DATA]
            base = flipped.base_side(ctx, result, base_run)
            checkout = checkout_command(ctx.commits)
            head = HeadRun(ctx, sessions, result, checkout, base, plans, begun=begun)
        if plans:
            progress.step("probes", f"{len(plans)} probes on the patch's run")
        found = registry.run_all(head)
    notes = list(reran)
    if applied.restored:
        notes.append(f"restored {len(applied.restored)} protected files from the base")
    claims = set(ctx.new_tests.files)
    removed = [path for path in applied.removed if path not in claims]
    if removed:
        notes.append(
            f"removed {len(removed)} protected files the head added: " + ", ".join(removed[:5])
        )
    return result, tuple(notes), found


@contextlib.contextmanager
def _closed_on_error(begun: Iterable[Begun]) -> Iterator[None]:
    """What began beside the head's run is waited for and let go of if the run raises (once
    the run is in, the probes close it: `registry.run_all`)."""
    try:
        yield
    except BaseException:
        for started in begun:
            started.close()
        raise


def _fixture_probe_likely(ctx: Context, main: MainRun | None) -> bool:
    """Whether the fixture probe is likely to run a session in the head's tree after its
    scoring run (runner/parked.py's spare): main locks data files, the probe is on and, with
    main's probe in the digest, it left something to run (`plan.session_likely`). A spare
    nobody takes costs the scoring run a CPU while it starts."""
    if not (ctx.cfg.fixture_probe and data_files(ctx.cfg, ctx.base.files)):
        return False
    if main is None:
        return True
    failed = any(ctx.plane_map.plane_of(nodeid) == "fixture" for nodeid in main.not_passed)
    return fixture_plan.session_likely(main.signs, failed)


def trace_spec(ctx: Context) -> TraceSpec:
    """What the child needs to tell test-side frames from production ones."""
    return TraceSpec(ctx.evidence.test_side, ctx.evidence.roots)


def with_mains_bytes(
    ctx: Context, sessions: Sessions, result: session.RunResult, trusted: frozenset[str]
) -> tuple[session.RunResult, tuple[str, ...]]:
    """Scoring tests that read files the patch changed and nothing protects run again with
    main's bytes of those files; their outcomes are what the planes step judges (PG308)."""
    if not result.closed:
        return result, ()
    unlocked = observed.unlocked_changes(ctx, result)
    if not unlocked:
        return result, ()
    on_base = set(ctx.base.files)
    overlay.apply(sessions.tree, [p for p in unlocked if p in on_base], unlocked, ctx.base.read)
    nodeids = sorted({nodeid for tests in unlocked.values() for nodeid in tests})
    rerun = sessions.run(targets=tuple(nodeids), deselect=frozenset(ctx.frozen), trusted=trusted)
    outcomes = {**result.outcomes, **{nodeid: rerun.outcome_of(nodeid) for nodeid in nodeids}}
    note = (
        f"reran {len(nodeids)} tests with main's bytes of {len(unlocked)} unlocked files they read"
    )
    return replace(result, outcomes=outcomes, tampering=result.tampering + rerun.tampering), (note,)


def _shadow(ctx: Context, progress: Progress) -> tuple[ShadowResult, ...]:
    """Frozen tests run on the patch for diagnostics: reported, never voting."""
    if not ctx.frozen:
        return ()
    progress.step("shadow lane", f"{len(ctx.frozen)} frozen tests (diagnostics only)")
    with ctx.repo.worktree(ctx.head.commit) as tree:
        _overlay(ctx, tree)
        sessions = Sessions(tree, ctx.cfg, ctx.base_ini, ctx.environ)
        result = sessions.run(targets=tuple(sorted(ctx.frozen)), canaries=False)
    return tuple(
        ShadowResult(nodeid, result.outcome_of(nodeid).outcome, owner)
        for nodeid, owner in sorted(ctx.frozen.items())
    )


def _triage(
    ctx: Context, head_run: session.RunResult, progress: Progress, base: Rerun | None = None
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

    from planegate.freeze import triage  # imported alongside the head's run

    def prepare_head(tree: Path) -> object:
        return _overlay(ctx, tree)

    how = triage.Reruns(
        ini_options=ctx.base_ini,
        prepare_head=prepare_head,
        runs=ctx.cfg.triage_runs,
        environ=ctx.environ,
        progress=progress,
        base=base,
        checkout=checkout_command(ctx.commits),
    )
    labels = triage.triage(ctx.repo, ctx.base.commit, ctx.head.commit, failing, ctx.cfg, how)
    return {nodeid: (found.label, found.repro) for nodeid, found in labels.items()}


def not_passing(ctx: Context, head_run: session.RunResult, expected: Iterable[str]) -> list[str]:
    """Scoring nodeids the head's run collected, or main's digest expects, that did not pass;
    none when the run itself cannot be trusted (it did not close, or its canaries)."""
    if not head_run.closed or head_run.canary_problem:
        return []
    candidates = set(head_run.collected) | set(expected)
    return sorted(
        nodeid
        for nodeid in candidates
        if ctx.plane_map.plane_of(nodeid) in SCORING_PLANES
        and not head_run.outcome_of(nodeid).passed
    )


def compare_on_base(
    ctx: Context,
    head_run: session.RunResult,
    progress: Progress,
    expected: Iterable[str] = (),
    *,
    whole_suite: bool,
    main: MainRun | None = None,
) -> Rerun:
    """One session in the base's tree, same configuration and environment as the head's run,
    over the scoring tests that did not pass on the head (their triage reruns included).
    With `whole_suite` it also collects the base's whole suite (its inventory); with
    nothing to compare and no inventory asked for, no session runs. A test skipped, xfailed
    or deselected on the head as main's run in the digest saw it is not run again."""
    not_passed = not_passing(ctx, head_run, expected)
    refused = startup.refusal(head_run) is not None  # the base says whose refusal it is
    known = {} if whole_suite or refused else as_on_main(head_run, not_passed, main)
    nodeids = [n for n in not_passed if n not in known]
    if not nodeids and not whole_suite and not refused:
        return Rerun(ctx.base.commit, 1 if known else 0, known, dict.fromkeys(known, 0))
    failing = [n for n in nodeids if head_run.outcome_of(n).outcome in ("failed", "error")]
    runs = ctx.cfg.triage_runs if 0 < len(failing) <= ctx.cfg.triage_max else 1
    what = f"{len(nodeids)} tests that did not pass on the patch" if nodeids else "its tests"
    progress.step("base", f"rerunning {what} on the base {ctx.base.commit[:12]}")
    with ctx.repo.worktree(ctx.base.commit) as tree:
        sessions = Sessions(tree, ctx.cfg, ctx.base_ini, ctx.environ, progress=progress)
        ran = rerun(
            sessions,
            ctx.base.commit,
            nodeids,
            max(1, runs),
            only=sweep_plugin.only,
            whole_suite=whole_suite or refused,
        )
    if not known:
        return ran
    return replace(
        ran,
        outcomes={**ran.outcomes, **known},
        failures={**ran.failures, **dict.fromkeys(known, 0)},
    )


def as_on_main(
    head_run: session.RunResult, nodeids: Iterable[str], main: MainRun | None
) -> dict[str, session.Outcome]:
    """The tests skipped, xfailed or deselected (by the base's own options) on the head that
    main's run saw in the same state for the same reason: their base outcome is main's, read
    from the digest."""
    if main is None:
        return {}
    known = {}
    for nodeid in nodeids:
        head = head_run.outcome_of(nodeid)
        recorded = main.not_passed.get(nodeid)
        if recorded is None or head.outcome not in AS_ON_MAIN:
            continue
        base = session.Outcome(nodeid, recorded[0], recorded[1])
        if on_base.compare(head, base) is on_base.Verdict.MAIN:
            known[nodeid] = base
    return known
