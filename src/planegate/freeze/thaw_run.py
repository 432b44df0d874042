"""The thaw shell: replay a frozen test in its mode, write the evidence, append thaw or renew."""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from planegate.config.load import Config
from planegate.errors import InputDataError, UsageError
from planegate.freeze import ledger, sweep_plugin
from planegate.freeze import sweep as core
from planegate.freeze.attempts import cpu_load, one, setup
from planegate.freeze.bundles import append_events, now_stamp, test_source_hash, write_bundle
from planegate.progress import QUIET, Progress
from planegate.repo.git import GitRepo
from planegate.runner.spec import Sessions


@dataclass(frozen=True)
class ThawOptions:
    root: Path
    nodeid: str
    commit: str = "HEAD"
    seed: int | None = None
    owner: str | None = None
    note: str | None = None
    config_path: str | None = None
    environ: Mapping[str, str] | None = None


@dataclass(frozen=True)
class ThawOutcome:
    event: ledger.RenewEvent | ledger.ThawEvent
    bundle_path: Path
    runs: int
    failures: int


def thaw(options: ThawOptions, progress: Progress = QUIET) -> ThawOutcome:
    """Replay a frozen test `thaw_runs_required` times in its mode; append thaw or renew."""
    repo = GitRepo(options.root)
    commit = repo.resolve(options.commit)
    cfg, ini_options, _ = setup(repo, commit, options.config_path)
    ledger_path = options.root / cfg.ledger
    text = ledger_path.read_text("utf-8") if ledger_path.is_file() else ""
    state = ledger.parse(text, cfg.ledger).state().get(options.nodeid)
    if state is None:
        raise UsageError(f"{options.nodeid} is not frozen in {cfg.ledger}")
    mode = state.mode if state.mode in core.ORDER_OF_MODE else "shuffle"
    seed = options.seed if options.seed is not None else secrets.randbelow(2**31)
    needed = state.thaw_runs_required
    progress.step("thaw", f"{options.nodeid}: up to {needed} runs in mode {mode}, seed {seed}")
    attempts: list[dict[str, Any]] = []
    with repo.worktree(commit) as tree:
        ctx = Sessions(tree, cfg, ini_options, options.environ)
        load = state.flake_class == "timing"
        for index in range(needed):
            plan = core.plan(mode, index, seed, cfg.seed)
            with cpu_load() if load else contextlib.nullcontext(0):
                probes = sweep_plugin.probes(plan.probes(stop_after=options.nodeid))
                result = ctx.run(canaries=False, child_plugins=probes)
            attempt = one(result, options.nodeid)
            run = core.SweepRun(plan, result.selected, {options.nodeid: attempt})
            attempts.append({**core.run_record(run, options.nodeid), "cpu_load": load})
            progress.update(index + 1, needed)
            if attempt.failed:
                break
    return _replay_outcome(options, _Replay(repo, commit, cfg, state, seed), attempts)


@dataclass(frozen=True)
class _Replay:
    """What one thaw replayed: the commit, its configuration, the frozen entry, the seed."""

    repo: GitRepo
    commit: str
    cfg: Config
    state: ledger.FreezeState
    seed: int


def _replay_outcome(
    options: ThawOptions, replay: _Replay, attempts: Sequence[Mapping[str, Any]]
) -> ThawOutcome:
    repo, commit, cfg, state = replay.repo, replay.commit, replay.cfg, replay.state
    failed = [a for a in attempts if a["outcome"] in core.FAILING]
    signature = core.failure_signature(str(failed[0]["message"])) if failed else ""
    source_hash = test_source_hash(repo, commit, options.nodeid)
    summary = {
        "base_commit": commit,
        "runs": len(attempts),
        "failures": len(failed),
        "mode": state.mode,
        "failure_signature": signature,
        "test_source_hash": source_hash,
        "replays": state.evidence_hash,
    }
    fingerprint = ledger.env_fingerprint()
    obj = core.bundle(
        kind="replay",
        nodeid=options.nodeid,
        commit=commit,
        seed=replay.seed,
        created_at=now_stamp(),
        env_fingerprint=fingerprint,
        attempts=attempts,
        summary=summary,
    )
    path, digest = write_bundle(options.root, obj)
    runs = len(attempts)
    note = options.note or (
        f"replay failed on run {runs} of {state.thaw_runs_required}"
        if failed
        else f"{runs} clean runs in mode {state.mode}"
    )
    event = ledger.replay_outcome_event(
        state,
        at=now_stamp(),
        owner=options.owner or state.owner,
        note=note,
        base_commit=commit,
        env_fingerprint=fingerprint,
        runs=runs,
        failures=len(failed),
        evidence_hash=digest,
        test_source_hash=source_hash,
        failure_signature=signature,
        review_by=_kept_review_by(state) if failed else None,
    )
    if isinstance(event, ledger.EventErrors):
        raise InputDataError(f"{options.nodeid}: {'; '.join(event.messages)}")
    append_events(options.root / cfg.ledger, [event], cfg.ledger)
    return ThawOutcome(event, path, runs, len(failed))


def _kept_review_by(state: ledger.FreezeState) -> date | None:
    """A renewal keeps the entry's review date unless it has passed (then it sets none)."""
    if state.review_by is None or state.review_by < date.today():
        return None
    return state.review_by
