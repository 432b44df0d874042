"""The gate's execution for `runner: junit`: the same `Execution` as the pytest path's
(gate/execute.py), from runs of the configured command instead of pytest sessions.

The head's tree gets the overlay (main's protected test sources and data) before the command
builds anything; frozen ids are deselected through the runner's filter or run and ignored;
the base runs once when its inventory is needed or a scoring test did not pass on the head
(then the planes step tells a regression from a base that is broken), unless main's digest
vouches for the base's tip and holds main's run (gate/junit_main.py wrote it): then its
outcomes are read from there. No probe runs: each lives inside pytest's process
(junit/trust.py)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from planegate.config.junit_section import JunitSection
from planegate.errors import ConfigError
from planegate.gate.context import Context
from planegate.junit import filters
from planegate.junit import run as junit_run
from planegate.progress import QUIET, Progress, Stopwatch
from planegate.repo.digest_format import MainRun
from planegate.report import ShadowResult
from planegate.runner import overlay
from planegate.runner.rerun import Rerun
from planegate.runner.session import Outcome, RunResult
from planegate.steps.run_facts import Execution
from planegate.vocabulary import SCORING_PLANES

FROM_MAIN = "the base's outcomes read from main's run in the digest: the base did not run"
_BASE_RUNS: dict[tuple[str, JunitSection], RunResult] = {}  # see _base_run


def execute(
    ctx: Context,
    progress: Progress = QUIET,
    *,
    base_inventory: Mapping[str, list[str]] | None = None,
    main: MainRun | None = None,
    elsewhere: frozenset[str] = frozenset(),
    shadow_lane: bool = True,
) -> Execution:
    """Main's evidence against the patch, run by the configured command; with main's run
    from the digest (`main`, which vouches for `base_inventory`) the base does not run. In a
    shard (shards/run.py) the filter also leaves out the ids the other shards run
    (`elsewhere`), and the shadow lane runs in shard 1 only (`shadow_lane`)."""
    section = ctx.cfg.junit
    if section is None:  # the schema asks for it with runner: junit
        raise ConfigError(f"{ctx.cfg.path}: runner: junit without a junit section")
    watch = Stopwatch()
    frozen = frozenset(ctx.frozen)
    with watch.time("head run"), ctx.repo.worktree(ctx.head.commit) as tree:
        applied = _overlay(ctx, tree)
        progress.step("planes", "running main's evidence against the patch (runner: junit)")
        own = set(head_ids(base_inventory)) - elsewhere
        leave_out = filters.safe_to_leave_out(section.filter, elsewhere, own)
        head = junit_run.run(
            tree, section, frozen, environ=ctx.environ, progress=progress, elsewhere=leave_out
        )
        ignored: Mapping[str, str] = head.extra.get(junit_run.IGNORED, {})
        if shadow_lane and frozen - ignored.keys():  # the filter kept them out: run them
            _overlay(ctx, tree)
            shadow_run = junit_run.run(tree, section, (), environ=ctx.environ)
            ignored = {n: shadow_run.outcome_of(n).outcome for n in frozen}
    shadow = tuple(
        ShadowResult(nodeid, ignored.get(nodeid, "missing"), owner)
        for nodeid, owner in sorted(ctx.frozen.items())
        if shadow_lane
    )
    with watch.time("base"):
        if main is not None and base_inventory is not None and head.closed:
            on_base: Rerun | None = _from_main(ctx, head, main, base_inventory, elsewhere)
            notes = [*head.notes, *_overlay_notes(applied), FROM_MAIN]
        else:
            base_inventory, on_base = _base(ctx, head, base_inventory, progress, section, elsewhere)
            notes = [*head.notes, *_overlay_notes(applied)]
    return Execution(
        ctx.commits,
        head,
        base_inventory,
        shadow,
        overlay_notes=tuple(notes),
        on_base=on_base,
        timings=watch.seconds,
    )


def head_ids(inventory: Mapping[str, list[str]] | None) -> list[str]:
    """Every id of an inventory."""
    return [n for ids in (inventory or {}).values() for n in ids]


def _from_main(
    ctx: Context,
    head: RunResult,
    main: MainRun,
    inventory: Mapping[str, list[str]],
    elsewhere: frozenset[str],
) -> Rerun:
    """The base's outcomes of the scoring tests that did not pass on the head, as main's run
    in the digest saw them (gate/junit_main.py): nothing runs."""
    expected = [n for p in SCORING_PLANES for n in inventory.get(p, [])]
    not_passed = sorted(
        n
        for n in (set(head.collected) | set(expected)) - elsewhere
        if ctx.plane_map.plane_of(n) in SCORING_PLANES and not head.outcome_of(n).passed
    )
    outcomes = recorded(main, inventory, not_passed)
    failures = {n: int(o.outcome in ("failed", "error")) for n, o in outcomes.items()}
    collected = tuple(n for ids in inventory.values() for n in ids)
    return Rerun(ctx.base.commit, 1, outcomes, failures, collected)


def _base(
    ctx: Context,
    head: RunResult,
    inventory: Mapping[str, list[str]] | None,
    progress: Progress,
    section: JunitSection,
    elsewhere: frozenset[str] = frozenset(),
) -> tuple[Mapping[str, list[str]] | None, Rerun | None]:
    """The base's inventory (the digest's, else its run's ids) and its outcomes of the scoring
    tests that did not pass on the head; the base runs only when one of them is wanted."""
    expected = [n for p in SCORING_PLANES for n in (inventory or {}).get(p, [])]
    candidates = (set(head.collected) | set(expected)) - elsewhere
    not_passed = sorted(
        n
        for n in candidates
        if ctx.plane_map.plane_of(n) in SCORING_PLANES and not head.outcome_of(n).passed
    )
    if inventory is not None and (not not_passed or not head.closed):
        return inventory, None
    base = _base_run(ctx, section, progress)
    if inventory is None:
        inventory = ctx.plane_map.inventory(base.collected)
        not_passed = sorted(
            n
            for n in set(not_passed) | set(inventory["property"]) | set(inventory["fixture"])
            if not head.outcome_of(n).passed
        )
    outcomes = {n: base.outcome_of(n) for n in not_passed}
    failures = {n: int(o.outcome in ("failed", "error")) for n, o in outcomes.items()}
    problem = "" if base.closed else "; ".join(base.notes) or "the base's run did not close"
    return inventory, Rerun(
        ctx.base.commit, 1, outcomes, failures, base.collected, base.closed, problem
    )


def base_inventory(ctx: Context, progress: Progress = QUIET) -> dict[str, list[str]]:
    """The base's ids by plane, from its run (a shard's slices are cut from them)."""
    section = ctx.cfg.junit
    if section is None:
        raise ConfigError(f"{ctx.cfg.path}: runner: junit without a junit section")
    return ctx.plane_map.inventory(_base_run(ctx, section, progress).collected)


def _base_run(ctx: Context, section: JunitSection, progress: Progress) -> RunResult:
    """The base's run, once per base commit and configuration in one process (a process that
    gates many patches on one base, as the demo does, builds it once)."""
    key = (ctx.base.commit, section)
    if key not in _BASE_RUNS:
        progress.step("base", f"running the suite on the base {ctx.base.commit[:12]}")
        with ctx.repo.worktree(ctx.base.commit) as tree:
            _BASE_RUNS[key] = junit_run.run(tree, section, (), environ=ctx.environ)
    return _BASE_RUNS[key]


def _overlay(ctx: Context, tree: Path) -> overlay.OverlayResult:
    return overlay.apply(
        tree,
        ctx.protection.select(ctx.base.files),
        ctx.protection.select(ctx.head.files),
        ctx.base.read,
        ctx.base_links,
    )


def _overlay_notes(applied: overlay.OverlayResult) -> list[str]:
    notes = []
    if applied.restored:
        notes.append(f"restored {len(applied.restored)} protected files from the base")
    if applied.removed:
        notes.append(
            f"removed {len(applied.removed)} protected files the head added: "
            + ", ".join(applied.removed[:5])
        )
    return notes


def recorded(
    main: MainRun, inventory: Mapping[str, Iterable[str]], nodeids: Iterable[str]
) -> dict[str, Outcome]:
    """The base's outcome of each of `nodeids` as main's run saw it: its recorded outcome when
    it did not pass, passed when main's run had it and it passed, missing when it had none."""
    collected = {n for ids in inventory.values() for n in ids}
    outcomes = {}
    for nodeid in nodeids:
        if nodeid in main.not_passed:
            outcome, message = main.not_passed[nodeid]
            outcomes[nodeid] = Outcome(nodeid, outcome, message)
        else:
            outcomes[nodeid] = Outcome(nodeid, "passed" if nodeid in collected else "missing")
    return outcomes
