"""`planegate sweep` for `runner: junit`: the configured command run again and again in a
worktree of the commit, each run's JUnit XML read as one sweep run; the decisions are the
pytest sweep's own (freeze/sweep.py): failing in some runs proposes a freeze, failing in every
run is the base broken (exit 6).

A foreign runner cannot be asked to run one test alone, in an order, with a seed or with
sockets blocked, so the only probe is the timing one: the whole command again under CPU load.
A test that fails there is `timing`; one that does not is `env`, with the low confidence the
classification gives it. The modes of the plan only name the runs: the command decides its
own order and seeds. With `--broken-here` (the person's word that main passes where the
project's own CI runs), a test failing every run is proposed as an `env` freeze: the
configured command is the project's own, so there is no plainer run to try."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from planegate.config.junit_section import JunitSection
from planegate.errors import ConfigError
from planegate.freeze import ledger
from planegate.freeze import sweep as core
from planegate.freeze.attempts import cpu_load, setup
from planegate.freeze.sweep_run import (
    SweepOptions,
    SweepOutcome,
    _Found,
    _frozen,
    _proposal,
    _Swept,
    already_frozen,
    freeze_owner,
)
from planegate.junit import run as junit_run
from planegate.progress import QUIET, Progress
from planegate.repo.git import GitRepo
from planegate.runner.session import RunResult


def wanted(options: SweepOptions) -> bool:
    """The commit's configuration says `runner: junit`."""
    repo = GitRepo(options.root)
    cfg = setup(repo, repo.resolve(options.commit), options.config_path)[0]
    return cfg.runner == "junit"


def sweep(options: SweepOptions, progress: Progress = QUIET) -> SweepOutcome:
    repo = GitRepo(options.root)
    commit = repo.resolve(options.commit)
    cfg = setup(repo, commit, options.config_path)[0]
    if cfg.junit is None:
        raise ConfigError(f"{cfg.path}: runner: junit without a junit section")
    seed = options.seed if options.seed is not None else secrets.randbelow(2**31)
    frozen = _frozen(options.root, cfg, repo, commit)
    plans = core.plan_sweep(options.runs, seed, cfg.seed)
    progress.step("sweep", f"{commit[:12]}, {len(plans)} runs of the suite's command")
    with repo.worktree(commit) as tree:
        runs = tuple(_one(tree, cfg.junit, plan, options, progress) for plan in plans)
        suite = list(dict.fromkeys(n for run in runs for n in run.order))
        decision = core.decide(runs, suite, frozen)
        if decision.trouble is not None:
            return SweepOutcome(commit, seed, len(suite), runs, (), (), decision.trouble, decision)
        always = [t for t in decision.always if t.nodeid not in frozen]
        candidates = list(decision.flaky[: core.MAX_PROPOSALS])
        found = _under_load(tree, cfg.junit, candidates, options, progress)
    fingerprint = ledger.env_fingerprint()
    here = always if options.broken_here else []
    found.update({t.nodeid: _broken_here(t, fingerprint) for t in here})
    candidates = [*candidates, *here][: core.MAX_PROPOSALS]
    broken = tuple(t.nodeid for t in always if t.nodeid not in found)
    owner = freeze_owner(cfg, options.owner)
    swept = _Swept(options.root, repo, commit, seed, runs, owner, fingerprint)
    proposals = tuple(_proposal(swept, t, found[t.nodeid]) for t in candidates)
    note = "runner: junit: the command ran whole each time; the only probe is CPU load"
    notes = (note, *already_frozen(decision, frozen))
    return SweepOutcome(commit, seed, len(suite), runs, proposals, broken, None, decision, notes)


def _broken_here(t: core.Tally, fingerprint: Mapping[str, Any]) -> _Found:
    platform = fingerprint.get("platform", "?")
    reason = (
        f"failed all {t.runs} runs of the project's command in the gate's environment "
        f"({platform}): deterministic here; frozen on the maintainer's word that main passes "
        "where the project's own CI runs (`planegate sweep --broken-here`)"
    )
    return _Found(core.Probes(has_passing_run=False), [], core.Classification("env", 0.5, reason))


def _run(tree: Path, section: JunitSection, options: SweepOptions) -> RunResult:
    return junit_run.run(tree, section, (), environ=options.environ)


def _one(
    tree: Path,
    section: JunitSection,
    plan: core.ModePlan,
    options: SweepOptions,
    progress: Progress,
) -> core.SweepRun:
    result = _run(tree, section, options)
    outcomes = {n: core.Attempt(o.outcome, o.message) for n, o in result.outcomes.items()}
    problem = None if result.closed else "; ".join(result.notes) or "the run did not close"
    run = core.SweepRun(plan, tuple(result.collected), outcomes, problem)
    failed = sum(1 for nodeid in run.order if run.failed(nodeid))
    progress.step("sweep", f"run {plan.index + 1}: {failed} failed of {len(run.order)}")
    return run


def _under_load(
    tree: Path,
    section: JunitSection,
    candidates: list[core.Tally],
    options: SweepOptions,
    progress: Progress,
) -> dict[str, _Found]:
    """The timing probe: the command again under CPU load, `LOAD_RUNS` times."""
    failures = dict.fromkeys((t.nodeid for t in candidates), 0)
    records: dict[str, list[dict[str, object]]] = {n: [] for n in failures}
    runs = core.LOAD_RUNS if candidates else 0
    for index in range(runs):
        progress.step("sweep", f"probing {len(candidates)} flaky tests under CPU load")
        with cpu_load() as workers:
            result = _run(tree, section, options)
        for nodeid in failures:
            attempt = result.outcome_of(nodeid)
            failures[nodeid] += int(attempt.outcome in core.FAILING)
            records[nodeid].append(
                {"probe": core.PROBE_CPU_LOAD, "run": index + 1, "workers": workers,
                 "outcome": attempt.outcome, "message": attempt.message}
            )  # fmt: skip
    return {
        t.nodeid: _Found(
            core.Probes(
                has_passing_run=t.failures < t.runs,
                network_attempts=(),
                load_runs=runs,
                load_failures=failures[t.nodeid],
            ),
            list(records[t.nodeid]),
        )
        for t in candidates
    }
