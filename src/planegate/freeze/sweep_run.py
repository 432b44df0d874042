"""The flake sweep's shell: pytest sessions in a worktree of a commit, evidence on disk.

`sweep` runs the modes and the probes and writes one evidence bundle per proposal. The
decisions are `planegate.freeze.sweep`'s.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from planegate import loading
from planegate.config.load import Config
from planegate.config.planemap import file_of
from planegate.errors import InputDataError
from planegate.freeze import ledger, sweep_plugin
from planegate.freeze import sweep as core
from planegate.freeze.attempts import attempts, cpu_load, one, problem, setup
from planegate.freeze.bundles import (
    FreezeRequest,
    freeze_event,
    now_stamp,
    test_source_hash,
    write_bundle,
)
from planegate.freeze.plain_control import plain_pytest
from planegate.progress import QUIET, Progress
from planegate.repo.git import GitRepo
from planegate.runner.spec import Sessions


@dataclass(frozen=True)
class SweepOptions:
    root: Path
    commit: str = "HEAD"
    runs: int = 3
    seed: int | None = None
    config_path: str | None = None
    owner: str | None = None
    environ: Mapping[str, str] | None = None
    broken_here: bool = False  # propose `env` freezes for tests failing under plain pytest too


@dataclass(frozen=True)
class Proposal:
    event: ledger.FreezeEvent
    classification: core.Classification
    bundle_path: Path


@dataclass(frozen=True)
class SweepOutcome:
    commit: str
    seed: int
    suite_size: int
    runs: tuple[core.SweepRun, ...]
    proposals: tuple[Proposal, ...]
    base_broken: tuple[str, ...]
    trouble: str | None
    decision: core.Decision
    notes: tuple[str, ...] = ()


def _frozen(root: Path, cfg: Config, repo: GitRepo, commit: str) -> set[str]:
    path = root / cfg.ledger
    if path.is_file():
        text: str | None = path.read_text("utf-8", "replace")
    else:
        data = repo.read(commit, cfg.ledger)
        text = data.decode("utf-8", "replace") if data is not None else None
    return set(ledger.frozen_nodeids(text, cfg.ledger))


def freeze_owner(cfg: Config, requested: str | None) -> str:
    if requested:
        return requested
    plane = cfg.planes.get("freeze")
    return plane.owner if plane is not None else cfg.owner


def sweep(options: SweepOptions, progress: Progress = QUIET) -> SweepOutcome:
    repo = GitRepo(options.root)
    commit = repo.resolve(options.commit)
    cfg, ini_options, _ = setup(repo, commit, options.config_path)
    seed = options.seed if options.seed is not None else secrets.randbelow(2**31)
    frozen = _frozen(options.root, cfg, repo, commit)
    plans = core.plan_sweep(options.runs, seed, cfg.seed)
    progress.step("sweep", f"{commit[:12]}, {len(plans)} runs, seed {seed}")
    with repo.worktree(commit) as tree:
        ctx = Sessions(tree, cfg, ini_options, options.environ, progress=progress)
        runs = tuple(_sweep_run(ctx, p, len(plans), progress) for p in plans)
        suite = _suite(runs)
        decision = core.decide(runs, suite, frozen)
        if decision.trouble is not None:
            return SweepOutcome(commit, seed, len(suite), runs, (), (), decision.trouble, decision)
        always = [t for t in decision.always if t.nodeid not in frozen]
        broken, order_flakes = _split_always(ctx, always, progress)
        candidates = [*decision.flaky, *order_flakes][: core.MAX_PROPOSALS]
        found = _probe_all(ctx, runs, candidates, progress)
    fingerprint = ledger.env_fingerprint()
    broken, env_found = _environment_only(options, broken, always, fingerprint, progress)
    env_candidates = [t for t in always if t.nodeid in env_found]
    candidates = [*candidates, *env_candidates][: core.MAX_PROPOSALS]
    found.update(env_found)
    owner = freeze_owner(cfg, options.owner)
    swept = _Swept(options.root, repo, commit, seed, runs, owner, fingerprint)
    proposals = tuple(_proposal(swept, t, found[t.nodeid]) for t in candidates)
    notes = already_frozen(decision, frozen)
    return SweepOutcome(commit, seed, len(suite), runs, proposals, broken, None, decision, notes)


def already_frozen(decision: core.Decision, frozen: set[str]) -> tuple[str, ...]:
    """The tests the ledger already freezes that failed every run: listed, never broken."""
    return tuple(
        f"already frozen: {t.nodeid} (failed every run)"
        for t in decision.always
        if t.nodeid in frozen
    )


def _suite(runs: Sequence[core.SweepRun]) -> list[str]:
    seen: dict[str, None] = {}
    for run in runs:
        for nodeid in run.order:
            seen.setdefault(nodeid, None)
    return list(seen)


def _sweep_run(ctx: Sessions, plan: core.ModePlan, total: int, progress: Progress) -> core.SweepRun:
    result = ctx.run(child_plugins=sweep_plugin.probes(plan.probes()))
    run = core.SweepRun(plan, result.selected, attempts(result), problem(result))
    failed = sum(1 for nodeid in run.order if run.failed(nodeid))
    progress.step(
        "sweep",
        f"run {plan.index + 1}/{total} ({plan.mode}): {failed} failed of {len(run.order)}",
    )
    return run


def _split_always(
    ctx: Sessions, always: Sequence[core.Tally], progress: Progress
) -> tuple[tuple[str, ...], list[core.Tally]]:
    """Rerun each always-failing test alone: still failing is base broken, else order."""
    broken: list[str] = []
    order: list[core.Tally] = []
    for t in always:
        progress.step("sweep", f"{t.nodeid} failed every run; rerunning it alone")
        alone = ctx.run(
            targets=(t.nodeid,),
            canaries=False,
            child_plugins=sweep_plugin.probes({"order": "collected", "rng_seed": ctx.cfg.seed}),
        )
        if one(alone, t.nodeid).failed:
            broken.append(t.nodeid)
        else:
            order.append(t)
    return tuple(broken), order


@dataclass
class _Found:
    """Mutable while probing one nodeid; frozen into core.Probes for each decision. `verdict`
    is set when the class is known without the probes (an environment difference)."""

    probes: core.Probes
    records: list[dict[str, Any]]
    verdict: core.Classification | None = None


def _environment_only(
    options: SweepOptions,
    broken: tuple[str, ...],
    always: Sequence[core.Tally],
    fingerprint: Mapping[str, Any],
    progress: Progress,
) -> tuple[tuple[str, ...], dict[str, _Found]]:
    """The broken tests that pass under plain pytest in the working tree: environment
    differences, proposed as `env` freezes. With `broken_here`, also those that fail under
    plain pytest too: the person says main passes where the project's own CI runs, so they
    fail in this environment only (its fingerprint is the evidence's). The rest stay broken."""
    if not broken:
        return broken, {}
    progress.step("sweep", f"{len(broken)} tests failed every run; trying plain pytest")
    plain = plain_pytest(options.root, broken, options.environ)
    runs = {t.nodeid: t.runs for t in always}
    found: dict[str, _Found] = {}
    for nodeid, outcome in plain.items():
        if not (outcome.passed or options.broken_here):
            continue
        record = {
            "probe": "plain pytest",
            "command": list(outcome.command),
            "outcome": "passed" if outcome.passed else "failed",
            "message": "" if outcome.passed else outcome.output,
        }
        verdict = _environment_verdict(runs.get(nodeid, 0), outcome.passed, fingerprint)
        found[nodeid] = _Found(core.Probes(has_passing_run=False), [record], verdict)
    return tuple(n for n in broken if n not in found), found


def _environment_verdict(
    runs: int, passed_plain: bool, fingerprint: Mapping[str, Any]
) -> core.Classification:
    """Why a test failing every run is proposed as an `env` freeze, and how sure that is."""
    gate = f"failed all {runs} runs in the gate's environment and alone, and"
    plain = "under plain `python -m pytest` in the working tree"
    if passed_plain:
        return core.Classification(
            "env",
            0.9,
            f"{gate} passes {plain}: an environment difference (a file git does not track, "
            "time-zone data, a variable)",
        )
    python, platform = fingerprint.get("python", "?"), fingerprint.get("platform", "?")
    return core.Classification(
        "env",
        0.5,
        f"{gate} fails {plain} too, on Python {python} ({platform}): deterministic in this "
        "environment; frozen on the maintainer's word that main passes where the project's "
        "own CI runs (`planegate sweep --broken-here`)",
    )


def _probe_all(
    ctx: Sessions,
    runs: Sequence[core.SweepRun],
    candidates: Sequence[core.Tally],
    progress: Progress,
) -> dict[str, _Found]:
    found = {
        t.nodeid: _Found(core.Probes(has_passing_run=t.failures < t.runs), []) for t in candidates
    }
    if not candidates:
        return found
    progress.step("sweep", f"probing {len(candidates)} flaky tests")
    attempts = _network_probe(ctx, [t.nodeid for t in candidates])
    for nodeid, item in found.items():
        item.probes = _with(item.probes, network_attempts=tuple(attempts.get(nodeid, ())))
        item.records.append({"probe": core.PROBE_NETWORK, "addresses": attempts.get(nodeid, [])})
    for t in candidates:
        item = found[t.nodeid]
        while (probe := core.next_probe(item.probes)) is not None:
            progress.step("sweep", f"{t.nodeid}: probe {probe}")
            item.probes, record = _probe(ctx, runs, t.nodeid, probe, item.probes)
            item.records.append(record)
    return found


def _with(probes: core.Probes, **changes: Any) -> core.Probes:
    return replace(probes, **changes)


def _network_probe(ctx: Sessions, nodeids: Sequence[str]) -> dict[str, list[str]]:
    # in the tree: the sandbox lets the child write there and nowhere the parent reads else
    record = ctx.tree / f".planegate-network-{secrets.token_hex(4)}.jsonl"
    try:
        ctx.run(
            targets=tuple(sorted({file_of(n) for n in nodeids})),
            canaries=False,
            child_plugins=sweep_plugin.probes(
                {
                    "order": "collected",
                    "only": list(nodeids),
                    "rng_seed": ctx.cfg.seed,
                    "block_network": True,
                    "record": str(record),
                }
            ),
        )
        lines = record.read_text("utf-8").splitlines() if record.is_file() else []
    finally:
        record.unlink(missing_ok=True)
    attempts: dict[str, list[str]] = {}
    for line in lines:
        try:  # written from inside the test process: never trusted to be well formed
            entry = loading.json_value(line)
            nodeid, address = str(entry["nodeid"]), str(entry["address"])
        except (loading.Problem, KeyError, TypeError):
            continue
        seen = attempts.setdefault(nodeid, [])
        if address not in seen:
            seen.append(address)
    return attempts


def _probe(
    ctx: Sessions,
    runs: Sequence[core.SweepRun],
    nodeid: str,
    probe: str,
    probes: core.Probes,
) -> tuple[core.Probes, dict[str, Any]]:
    failing = core.first_failing(runs, nodeid)
    passing = core.first_passing(runs, nodeid)
    assert failing is not None
    f_seed = failing.plan.rng_seed
    if probe == core.PROBE_CPU_LOAD:
        with cpu_load() as workers:
            attempt = _alone(ctx, nodeid, f_seed)
        failed = probes.load_failures + int(attempt.failed)
        new = _with(probes, load_runs=probes.load_runs + 1, load_failures=failed)
        return new, _record(probe, attempt, rng_seed=f_seed, workers=workers)
    if probe == core.PROBE_ALONE_FAILING_SEED:
        attempt = _alone(ctx, nodeid, f_seed)
        return _with(probes, alone_failing_seed=attempt.failed), _record(probe, attempt, f_seed)
    if probe == core.PROBE_ALONE_PASSING_SEED:
        assert passing is not None
        seed = passing.plan.rng_seed
        attempt = _alone(ctx, nodeid, seed)
        return _with(probes, alone_passing_seed=attempt.failed), _record(probe, attempt, seed)
    source = failing if probe == core.PROBE_REPLAY_FAILING_ORDER else passing
    assert source is not None
    order = core.prefix(source.order, nodeid)
    attempt = _replay(ctx, nodeid, order, f_seed)
    record = _record(probe, attempt, f_seed, order=list(order), of_run=source.plan.index + 1)
    if probe == core.PROBE_REPLAY_FAILING_ORDER:
        return _with(probes, replay_failing_order=attempt.failed), record
    return _with(probes, replay_passing_order=attempt.failed), record


def _record(probe: str, attempt: core.Attempt, rng_seed: int, **extra: Any) -> dict[str, Any]:
    return {
        "probe": probe,
        "rng_seed": rng_seed,
        "outcome": attempt.outcome,
        "message": attempt.message,
        **extra,
    }


def _alone(ctx: Sessions, nodeid: str, rng_seed: int) -> core.Attempt:
    result = ctx.run(
        targets=(nodeid,),
        canaries=False,
        child_plugins=sweep_plugin.probes({"order": "collected", "rng_seed": rng_seed}),
    )
    return one(result, nodeid)


def _replay(ctx: Sessions, nodeid: str, order: Sequence[str], rng_seed: int) -> core.Attempt:
    result = ctx.run(
        canaries=False,
        child_plugins=sweep_plugin.probes(
            {"order": "given", "given": list(order), "only": list(order), "rng_seed": rng_seed}
        ),
    )
    return one(result, nodeid)


@dataclass(frozen=True)
class _Swept:
    """What every proposal of one sweep shares."""

    root: Path
    repo: GitRepo
    commit: str
    seed: int
    runs: tuple[core.SweepRun, ...]
    owner: str
    fingerprint: Mapping[str, Any]


def _proposal(swept: _Swept, t: core.Tally, found: _Found) -> Proposal:
    root, repo, commit, runs = swept.root, swept.repo, swept.commit, swept.runs
    failing = core.first_failing(runs, t.nodeid)
    assert failing is not None
    message = failing.outcomes.get(t.nodeid, core.Attempt("missing")).message
    verdict = found.verdict or core.classify(found.probes, message)
    signature = core.failure_signature(message)
    summary = {
        "base_commit": commit,
        "runs": t.runs,
        "failures": t.failures,
        "mode": failing.plan.mode,
        "failure_signature": signature,
        "test_source_hash": test_source_hash(repo, commit, t.nodeid),
        "flake_class": verdict.flake_class,
        "class_confidence": verdict.confidence,
        "reason": verdict.reason,
    }
    obj = core.bundle(
        kind="sweep",
        nodeid=t.nodeid,
        commit=commit,
        seed=swept.seed,
        created_at=now_stamp(),
        env_fingerprint=swept.fingerprint,
        attempts=[core.run_record(run, t.nodeid) for run in runs],
        probes=found.records,
        summary=summary,
    )
    path, digest = write_bundle(root, obj)
    runs_word = "run" if t.runs == 1 else "runs"
    note = (
        f"proposed by planegate sweep: failed {t.failures} of {t.runs} {runs_word}; "
        f"{verdict.reason}"
    )
    event = freeze_event(obj, digest, FreezeRequest(swept.owner, note))
    if isinstance(event, ledger.EventErrors):
        raise InputDataError(f"{t.nodeid}: cannot propose a freeze: {'; '.join(event.messages)}")
    return Proposal(event, verdict, path)
