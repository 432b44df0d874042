"""The flake sweep's shell: pytest sessions in a worktree of a commit, evidence on disk.

`sweep` runs the modes and the probes and writes one evidence bundle per proposal; `thaw`
replays a frozen test; `triage` reruns failing scoring tests on head and on base. The
decisions are `planegate.freeze.sweep`'s.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

from planegate import loading
from planegate.config import planemap as planes
from planegate.config.load import Config
from planegate.errors import InputDataError, UsageError
from planegate.freeze import ledger
from planegate.freeze import sweep as core
from planegate.progress import QUIET, Progress
from planegate.repo.git import GitRepo
from planegate.runner import ini, session

EVIDENCE_DIR = ".planegate/evidence"
PROPOSALS_FILE = ".planegate/proposals.jsonl"


def now_stamp() -> str:
    """Local time with its offset (RFC 3339): its date is today's date where it runs."""
    return datetime.now().astimezone().isoformat(timespec="seconds")


# --------------------------------------------------------------------------- sessions


@dataclass(frozen=True)
class Context:
    """What every session of one sweep shares: the tree, the base's pytest setup, the env."""

    tree: Path
    cfg: Config
    ini_options: Mapping[str, Any] = field(hash=False)
    environ: Mapping[str, str] | None = field(default=None, hash=False)

    def spec(self, **changes: Any) -> session.RunSpec:
        """The gate's run spec for this tree (the base's pytest configuration), changed."""
        args = list(self.cfg.pytest_args)
        if "hypothesis" in self.cfg.pytest_plugins:
            args += ["--hypothesis-seed", str(self.cfg.seed)]
        base = session.RunSpec(
            tree=self.tree,
            ini_options=self.ini_options,
            plugins=self.cfg.pytest_plugins,
            extra_args=tuple(args),
            timeout=self.cfg.pytest_timeout,
            env_allow=self.cfg.env_allow,
        )
        return _replace(base, **changes)

    def run(self, **changes: Any) -> session.RunResult:
        return session.run(self.spec(**changes), parent_env=self.environ)


def _replace(spec: session.RunSpec, **changes: Any) -> session.RunSpec:
    from dataclasses import replace

    return replace(spec, **changes)


def _problem(result: session.RunResult) -> str | None:
    if not result.closed:
        why = "timed out" if result.timed_out else f"exited {result.exit_status}"
        return f"the run ended without its closing record ({why})"
    if result.canary_problem:
        return f"result channel compromised: {result.canary_problem}"
    if result.collect_errors:
        nodeid, _ = result.collect_errors[0]
        return f"collection failed ({nodeid or 'session'})"
    return None


def _attempts(result: session.RunResult) -> dict[str, core.Attempt]:
    return {
        nodeid: core.Attempt(outcome.outcome, outcome.message)
        for nodeid, outcome in result.outcomes.items()
    }


def _one(result: session.RunResult, nodeid: str) -> core.Attempt:
    outcome = result.outcome_of(nodeid)
    return core.Attempt(outcome.outcome, outcome.message)


@contextlib.contextmanager
def cpu_load(workers: int | None = None) -> Iterator[int]:
    """Busy processes in the parent while a test runs (the timing probe); always stopped."""
    count = workers or os.cpu_count() or 2
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", "while True: pass"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(count)
    ]
    try:
        yield count
    finally:
        for proc in procs:
            proc.kill()
        for proc in procs:
            proc.wait()


# --------------------------------------------------------------------------- sweep


@dataclass(frozen=True)
class SweepOptions:
    root: Path
    commit: str = "HEAD"
    runs: int = 3
    seed: int | None = None
    config_path: str | None = None
    owner: str | None = None
    environ: Mapping[str, str] | None = None


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


def _setup(
    repo: GitRepo, commit: str, config_path: str | None
) -> tuple[Config, dict[str, Any], set[str]]:
    from planegate.gate import pipeline as gate

    snap = gate.snapshot(repo, commit)
    cfg = gate.load_config(repo, commit, config_path, set(snap.files))
    return cfg, ini.base_options(snap.read), set(snap.files)


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
    cfg, ini_options, _ = _setup(repo, commit, options.config_path)
    seed = options.seed if options.seed is not None else secrets.randbelow(2**31)
    frozen = _frozen(options.root, cfg, repo, commit)
    plans = core.plan_sweep(options.runs, seed, cfg.seed)
    progress.step("sweep", f"{commit[:12]}, {len(plans)} runs, seed {seed}")
    with repo.worktree(commit) as tree:
        ctx = Context(tree, cfg, ini_options, options.environ)
        runs = tuple(_sweep_run(ctx, p, len(plans), progress) for p in plans)
        suite = _suite(runs)
        decision = core.decide(runs, suite, frozen)
        if decision.trouble is not None:
            return SweepOutcome(commit, seed, len(suite), runs, (), (), decision.trouble, decision)
        broken, order_flakes = _split_always(ctx, decision.always, progress)
        fresh = [t for t in order_flakes if t.nodeid not in frozen]
        candidates = [*decision.flaky, *fresh][: core.MAX_PROPOSALS]
        found = _probe_all(ctx, runs, candidates, progress)
    fingerprint = ledger.env_fingerprint()
    owner = freeze_owner(cfg, options.owner)
    proposals = tuple(
        _proposal(options.root, repo, commit, seed, runs, t, found[t.nodeid], fingerprint, owner)
        for t in candidates
    )
    return SweepOutcome(commit, seed, len(suite), runs, proposals, broken, None, decision)


def _suite(runs: Sequence[core.SweepRun]) -> list[str]:
    seen: dict[str, None] = {}
    for run in runs:
        for nodeid in run.order:
            seen.setdefault(nodeid, None)
    return list(seen)


def _sweep_run(ctx: Context, plan: core.ModePlan, total: int, progress: Progress) -> core.SweepRun:
    result = ctx.run(probes=plan.probes())
    run = core.SweepRun(plan, result.selected, _attempts(result), _problem(result))
    failed = sum(1 for nodeid in run.order if run.failed(nodeid))
    progress.step(
        "sweep",
        f"run {plan.index + 1}/{total} ({plan.mode}): {failed} failed of {len(run.order)}",
    )
    return run


def _split_always(
    ctx: Context, always: Sequence[core.Tally], progress: Progress
) -> tuple[tuple[str, ...], list[core.Tally]]:
    """Rerun each always-failing test alone: still failing is base broken, else order."""
    broken: list[str] = []
    order: list[core.Tally] = []
    for t in always:
        progress.step("sweep", f"{t.nodeid} failed every run; rerunning it alone")
        alone = ctx.run(
            targets=(t.nodeid,),
            canaries=False,
            probes={"order": "collected", "rng_seed": ctx.cfg.seed},
        )
        if _one(alone, t.nodeid).failed:
            broken.append(t.nodeid)
        else:
            order.append(t)
    return tuple(broken), order


@dataclass
class _Found:
    """Mutable while probing one nodeid; frozen into core.Probes for each decision."""

    probes: core.Probes
    records: list[dict[str, Any]]


def _probe_all(
    ctx: Context,
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
    from dataclasses import replace

    return replace(probes, **changes)


def _network_probe(ctx: Context, nodeids: Sequence[str]) -> dict[str, list[str]]:
    with tempfile.TemporaryDirectory(prefix="planegate-probe-") as scratch:
        record = Path(scratch) / "network.jsonl"
        ctx.run(
            targets=tuple(sorted({planes.file_of(n) for n in nodeids})),
            canaries=False,
            probes={
                "order": "collected",
                "only": list(nodeids),
                "rng_seed": ctx.cfg.seed,
                "block_network": True,
                "record": str(record),
            },
        )
        lines = record.read_text("utf-8").splitlines() if record.is_file() else []
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
    ctx: Context,
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


def _alone(ctx: Context, nodeid: str, rng_seed: int) -> core.Attempt:
    result = ctx.run(
        targets=(nodeid,), canaries=False, probes={"order": "collected", "rng_seed": rng_seed}
    )
    return _one(result, nodeid)


def _replay(ctx: Context, nodeid: str, order: Sequence[str], rng_seed: int) -> core.Attempt:
    result = ctx.run(
        canaries=False,
        probes={
            "order": "given",
            "given": list(order),
            "only": list(order),
            "rng_seed": rng_seed,
        },
    )
    return _one(result, nodeid)


def write_bundle(root: Path, obj: Mapping[str, Any]) -> tuple[Path, str]:
    data = core.bundle_bytes(obj)
    digest = ledger.evidence_hash(data)
    target = root / EVIDENCE_DIR / f"{digest}.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return target, digest


def test_source_hash(repo: GitRepo, commit: str, nodeid: str) -> str:
    """The sha256 of the test's file at the commit (of its path if the file is gone)."""
    path = planes.file_of(nodeid)
    return repo.sha256(commit, path) or ledger.evidence_hash(path.encode())


test_source_hash.__test__ = False  # type: ignore[attr-defined]


def _proposal(
    root: Path,
    repo: GitRepo,
    commit: str,
    seed: int,
    runs: Sequence[core.SweepRun],
    t: core.Tally,
    found: _Found,
    fingerprint: Mapping[str, Any],
    owner: str,
) -> Proposal:
    failing = core.first_failing(runs, t.nodeid)
    assert failing is not None
    message = failing.outcomes.get(t.nodeid, core.Attempt("missing")).message
    verdict = core.classify(found.probes, message)
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
        seed=seed,
        created_at=now_stamp(),
        env_fingerprint=fingerprint,
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
    event = freeze_event(obj, digest, owner, note, None)
    if isinstance(event, ledger.EventErrors):
        raise InputDataError(f"{t.nodeid}: cannot propose a freeze: {'; '.join(event.messages)}")
    return Proposal(event, verdict, path)


def freeze_event(
    obj: Mapping[str, Any],
    digest: str,
    owner: str,
    note: str,
    review_by: Any,
    flake_class: str | None = None,
    confidence: float | None = None,
) -> ledger.FreezeEvent | ledger.EventErrors:
    """A freeze event from an evidence bundle (its summary), a person's class overriding."""
    summary = obj.get("summary", {})
    proposed = summary.get("flake_class")
    chosen = flake_class or proposed
    if confidence is None:
        confidence = float(summary.get("class_confidence", 0.5)) if chosen == proposed else 0.5
    try:
        return ledger.new_freeze_event(
            nodeid=str(obj["nodeid"]),
            flake_class=str(chosen),
            class_confidence=confidence,
            owner=owner,
            note=note,
            frozen_at=now_stamp(),
            base_commit=str(summary["base_commit"]),
            env_fingerprint=obj["env_fingerprint"],
            runs=int(summary["runs"]),
            failures=int(summary["failures"]),
            mode=str(summary["mode"]),
            failure_signature=str(summary["failure_signature"]),
            evidence_hash=digest,
            test_source_hash=str(summary["test_source_hash"]),
            review_by=review_by,
        )
    except (KeyError, TypeError, ValueError) as error:
        return ledger.EventErrors((f"the evidence bundle lacks {error}",))


def append_events(path: Path, events: Sequence[ledger.LedgerEvent], name: str) -> None:
    """Append events to a ledger file, each validated against the lines before it."""
    text = path.read_text("utf-8") if path.is_file() else ""
    for event in events:
        appended = ledger.append_event(text, event, name)
        if isinstance(appended, list):
            reasons = "; ".join(problem.message for problem in appended)
            raise InputDataError(
                f"{name}: cannot append the {event.KIND} of {event.nodeid}: {reasons}"
            )
        text = appended
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")


# --------------------------------------------------------------------------- freeze and thaw


def read_bundle(path: Path) -> tuple[dict[str, Any], str]:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputDataError(f"{path}: cannot read the evidence: {error.strerror}") from None
    try:
        obj = loading.json_value(loading.utf8_text(data, loading.DIGEST), loading.DIGEST)
    except loading.Problem as problem:
        where = f":{problem.line}" if problem.line else ""
        message = f"{path}{where}: not an evidence bundle (not JSON: {problem.reason})"
        raise InputDataError(message) from None
    if not isinstance(obj, dict) or obj.get("format") != core.BUNDLE_FORMAT:
        raise InputDataError(f"{path}: not an evidence bundle (format {core.BUNDLE_FORMAT})")
    return obj, ledger.evidence_hash(data)


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
    cfg, ini_options, _ = _setup(repo, commit, options.config_path)
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
        ctx = Context(tree, cfg, ini_options, options.environ)
        load = state.flake_class == "timing"
        for index in range(needed):
            plan = core.plan(mode, index, seed, cfg.seed)
            with cpu_load() if load else contextlib.nullcontext(0):
                result = ctx.run(canaries=False, probes=plan.probes(stop_after=options.nodeid))
            attempt = _one(result, options.nodeid)
            run = core.SweepRun(plan, result.selected, {options.nodeid: attempt})
            attempts.append({**core.run_record(run, options.nodeid), "cpu_load": load})
            progress.update(index + 1, needed)
            if attempt.failed:
                break
    return _replay_outcome(options, repo, commit, cfg, state, seed, attempts, ledger_path)


def _replay_outcome(
    options: ThawOptions,
    repo: GitRepo,
    commit: str,
    cfg: Config,
    state: ledger.FreezeState,
    seed: int,
    attempts: Sequence[Mapping[str, Any]],
    ledger_path: Path,
) -> ThawOutcome:
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
        seed=seed,
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
    append_events(ledger_path, [event], cfg.ledger)
    return ThawOutcome(event, path, runs, len(failed))


def _kept_review_by(state: ledger.FreezeState) -> date | None:
    """A renewal keeps the entry's review date unless it has passed (then it sets none)."""
    if state.review_by is None or state.review_by < date.today():
        return None
    return state.review_by


# --------------------------------------------------------------------------- triage


@dataclass(frozen=True)
class Triage:
    label: str
    repro: str
    head_failures: int
    base_failures: int
    runs: int


def repro_command(commit: str, nodeid: str, cfg: Config) -> str:
    """A command that reruns the test at the commit as the gate does."""
    args = ["python", "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly"]
    args += list(cfg.pytest_args)
    if "hypothesis" in cfg.pytest_plugins:
        args += ["--hypothesis-seed", str(cfg.seed)]
    return f"git checkout {commit[:12]} && " + shlex.join([*args, nodeid])


def triage(
    repo: GitRepo,
    base_commit: str,
    head_commit: str,
    nodeids: Sequence[str],
    cfg: Config,
    *,
    ini_options: Mapping[str, Any] | None = None,
    prepare_head: Callable[[Path], object] | None = None,
    runs: int = 3,
    environ: Mapping[str, str] | None = None,
    progress: Progress = QUIET,
) -> dict[str, Triage]:
    """Rerun failing scoring tests `runs` times on head and on base, as the gate runs them.

    `prepare_head` is applied to the head's tree first (the gate passes its overlay of the
    base's protected files). The base's pytest configuration is used on both sides.
    """
    if not nodeids:
        return {}
    if ini_options is None:
        from planegate.gate import pipeline as gate

        ini_options = ini.base_options(gate.snapshot(repo, base_commit).read)
    progress.step("triage", f"rerunning {len(nodeids)} failing tests {runs}x on head and base")
    head = _reruns(repo, head_commit, nodeids, cfg, ini_options, prepare_head, runs, environ)
    base = _reruns(repo, base_commit, nodeids, cfg, ini_options, None, runs, environ)
    result = {}
    for nodeid in nodeids:
        h_fail, _ = head[nodeid]
        b_fail, on_base = base[nodeid]
        label = core.triage_label(b_fail, runs, h_fail, runs, on_base)
        result[nodeid] = Triage(
            label, repro_command(head_commit, nodeid, cfg), h_fail, b_fail, runs
        )
    return result


def _reruns(
    repo: GitRepo,
    commit: str,
    nodeids: Sequence[str],
    cfg: Config,
    ini_options: Mapping[str, Any],
    prepare: Callable[[Path], object] | None,
    runs: int,
    environ: Mapping[str, str] | None,
) -> dict[str, tuple[int, bool]]:
    """nodeid -> (failures, collected at all) over `runs` sessions at `commit`."""
    failures = dict.fromkeys(nodeids, 0)
    collected: set[str] = set()
    with repo.worktree(commit) as tree:
        if prepare is not None:
            prepare(tree)
        files = sorted({planes.file_of(n) for n in nodeids if (tree / planes.file_of(n)).is_file()})
        ctx = Context(tree, cfg, ini_options, environ)
        for _ in range(runs if files else 0):
            result = ctx.run(
                targets=tuple(files),
                canaries=False,
                probes={"order": "collected", "only": list(nodeids)},
            )
            collected.update(result.collected)
            for nodeid in nodeids:
                failures[nodeid] += int(_one(result, nodeid).failed)
    return {n: (failures[n] if n in collected else 0, n in collected) for n in nodeids}
