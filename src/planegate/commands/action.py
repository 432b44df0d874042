"""`planegate action`: the fetch (main's digest, token, runs nothing), the run phase (executes
tests, no token) and the judge (posts).

Without `INPUT_PHASE` both halves run in one process, which is what a local or
single-container run wants; the composite action runs them in two containers (DESIGN §5).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from planegate import exitcodes
from planegate.config.from_git import load_config
from planegate.config.load import Config
from planegate.errors import InputDataError, InternalError, ServiceUnavailable, UsageError
from planegate.gate import context, exchange, pipeline
from planegate.gate.context import Context, DigestInput, GateOptions
from planegate.gate.digest_check import build_digest, check_digest, compute_digest
from planegate.gate.execute import execute
from planegate.gate.judge import judge
from planegate.progress import Progress
from planegate.repo import digest_format as digest_mod
from planegate.repo.git import GitRepo
from planegate.repo.snapshot import snapshot
from planegate.report import Report
from planegate.steps.inputs import Execution

if TYPE_CHECKING:
    from planegate.github.inputs import ActionOptions

PHASES = ("all", "fetch", "run", "judge")
SWEEP_FILE = "sweep.json"
PROPOSALS_FILE = "planegate-proposals.jsonl"


def phase_of(environ: Mapping[str, str]) -> str:
    phase = (environ.get("INPUT_PHASE") or "all").strip().lower()
    if phase not in PHASES:
        raise UsageError(f"INPUT_PHASE: expected fetch, run or judge, got {phase!r}")
    return phase


def exchange_folder(environ: Mapping[str, str]) -> Path:
    folder = environ.get("PLANEGATE_EXCHANGE")
    if not folder:
        raise UsageError("PLANEGATE_EXCHANGE is not set", "the composite action sets it")
    return Path(folder)


def gate_options(options: ActionOptions, agent: bool = True) -> GateOptions:
    if options.base is None:
        raise UsageError("no base commit: pass the `base` input (the event names none)")
    return GateOptions(
        root=Path(options.working_directory),
        base=options.base,
        head=options.head,
        digest=_digest_input(options),
        config_path=options.config,
        agent=agent,
        author=options.author or "the patch author",
    )


def _digest_input(options: ActionOptions) -> DigestInput | None:
    """Main's digest artifact, handed to the gate in memory (never through a file)."""
    if options.digest is None:
        return None
    origin = options.digest_source or f"artifact {options.digest_artifact}"
    return DigestInput(options.digest, f"{digest_mod.FILE_NAME} of {origin}", origin)


def gate_context(options: ActionOptions, agent: bool | None = None) -> Context:
    """The gate's context, built once: the agent decision reads the base's planegate.yml."""
    ctx = context.build(gate_options(options))
    return ctx.with_agent(_agent(options, ctx.cfg) if agent is None else agent)


def _agent(options: ActionOptions, cfg: Config) -> bool:
    from planegate.github.inputs import agent_of

    return agent_of(options, cfg)


def run_phase(environ: Mapping[str, str], progress: Progress) -> int:
    """Phase 1: execute main's evidence against the patch; write data for the judge only."""
    from planegate.github.inputs import read_event, read_options

    options = read_options(environ, read_event(environ))
    folder = exchange_folder(environ)
    folder.mkdir(parents=True, exist_ok=True)
    if options.mode == "digest":
        repo = GitRepo(Path(options.working_directory))
        made = build_digest(repo, repo.resolve(options.head), options.config, progress)
        exchange.write_file(folder, digest_mod.FILE_NAME, digest_mod.to_json(made))
        return exitcodes.PASS
    if options.mode == "sweep":
        exchange.write_file(folder, SWEEP_FILE, _sweep_json(options, progress))
        return exitcodes.PASS
    if options.mode != "gate":
        raise UsageError(f"mode {options.mode!r} has no run phase")
    options = _with_fetched_digest(options, environ)
    ctx = gate_context(options, agent=True)
    digest = check_digest(ctx)
    execution = execute(
        ctx,
        progress,
        base_inventory=digest.inventory,
        main=digest.main_run,
    )
    exchange.write(folder, execution)
    print(f"planegate: run phase done: {len(execution.head_run.collected)} nodeids -> {folder}")
    return exitcodes.PASS


def main_digest_folder(environ: Mapping[str, str]) -> Path:
    folder = environ.get("PLANEGATE_MAIN_DIGEST")
    if not folder:
        raise UsageError("PLANEGATE_MAIN_DIGEST is not set", "the composite action sets it")
    return Path(folder)


def _with_fetched_digest(options: ActionOptions, environ: Mapping[str, str]) -> ActionOptions:
    """Main's digest as the fetch phase left it (read-only here), when it found one: phase 1
    then reads the base's inventory and outcomes from it instead of running the base."""
    if not environ.get("PLANEGATE_MAIN_DIGEST"):
        return options
    folder = main_digest_folder(environ)
    try:
        text = (folder / digest_mod.FILE_NAME).read_bytes()
    except FileNotFoundError:
        return options
    except OSError as error:
        raise InputDataError(f"{folder / digest_mod.FILE_NAME}: {error.strerror}") from None
    source = folder / digest_mod.SOURCE_NAME
    said = source.read_text("utf-8", "replace").strip() if source.is_file() else ""
    return replace(options, digest=text, digest_source=said or "main's digest artifact")


def evaluate(options: ActionOptions, environ: Mapping[str, str], progress: Progress) -> Report:
    """The judge's verdict: the whole gate (`all`) or the judge half over phase 1's data."""
    phase = phase_of(environ)
    if options.mode == "digest":
        return _digest(options, environ, phase, progress)
    if options.mode == "sweep":
        return _sweep(options, environ, phase, progress)
    ctx = gate_context(options)
    if phase == "all":
        execution, report = pipeline.execute_and_judge(ctx, progress)
        return _placed(report, ctx, execution)
    analysis = pipeline.start_analysis(ctx)  # it runs while phase 1's data are read
    digest = check_digest(ctx)
    execution = exchange.read(exchange_folder(environ), digest.inventory)
    if execution.commits != ctx.commits:
        raise InputDataError(
            f"{exchange.FILE_NAME}: made for commits {execution.commits}, not {ctx.commits}"
        )
    report = _placed(judge(ctx, execution, digest, analysis), ctx, execution)
    run_exit = (environ.get("PLANEGATE_RUN_EXIT") or "0").strip()
    if report.exit_code == exitcodes.PASS and run_exit != "0":
        raise InternalError(f"the run phase exited {run_exit} but left a passing result")
    return report


def _placed(report: Report, ctx: Context, execution: Execution) -> Report:
    """Failing tests annotated at their failing line (github/locate.py), not line 1."""
    from planegate.github.locate import place_failures

    return place_failures(
        report, lambda nodeid: execution.head_run.outcome_of(nodeid).message, ctx.base.read
    )


def _digest(
    options: ActionOptions, environ: Mapping[str, str], phase: str, progress: Progress
) -> Report:
    repo = GitRepo(Path(options.working_directory))
    commit = repo.resolve(options.head)
    if phase == "all":
        made = build_digest(repo, commit, options.config, progress)
        source = "collected and hashed in this run"
    else:
        path = exchange_folder(environ) / digest_mod.FILE_NAME
        try:
            text = path.read_bytes()
        except FileNotFoundError:
            raise InputDataError(f"{path}: missing: the run phase left no digest") from None
        claimed = digest_mod.from_json(text, str(path))
        snap = snapshot(repo, commit)
        cfg = load_config(repo, commit, options.config, set(snap.files))
        # hashes come from git here; the inventory and main's run come from the run phase
        made = compute_digest(snap, cfg, claimed.inventory, claimed.run)
        if claimed.commit != commit:
            raise InputDataError(f"{path}: made for {claimed.commit[:12]}, not {commit[:12]}")
        source = "hashed from git by the judge; inventory and main's run from the run phase"
    out = Path(environ.get("PLANEGATE_OUT") or options.working_directory) / digest_mod.FILE_NAME
    out.write_text(digest_mod.to_json(made), "utf-8")
    return Report(
        base=commit,
        head=commit,
        merge_base=commit,
        agent=False,
        digest_source=source,
        steps=(),
        notes=(f"digest of {commit[:12]}: {len(made.files)} protected files -> {out}",),
    )


def _sweep_json(options: ActionOptions, progress: Progress) -> str:
    from planegate.freeze import sweep_run, sweep_wire

    root = Path(options.working_directory)
    outcome = sweep_run.sweep(
        sweep_run.SweepOptions(root=root, commit=options.head, config_path=options.config),
        progress,
    )
    return sweep_wire.to_json(sweep_wire.of_outcome(outcome))


def _sweep(
    options: ActionOptions, environ: Mapping[str, str], phase: str, progress: Progress
) -> Report:
    """A sweep's proposals as a report: a person appends them to the ledger, never the action."""
    from planegate.freeze import ledger, sweep_wire

    commit = GitRepo(Path(options.working_directory)).resolve(options.head)
    if phase == "all":
        text: str | bytes = _sweep_json(options, progress)
        source = "this run"
    else:
        path = exchange_folder(environ) / SWEEP_FILE
        try:
            text = path.read_bytes()
        except FileNotFoundError:
            raise InputDataError(f"{path}: missing: the run phase left no sweep") from None
        source = str(path)
    result = sweep_wire.from_json(text, source)
    proposals, broken = result.proposals, result.base_broken
    claimed, trouble = result.commit, result.trouble
    if claimed != commit:
        raise InputDataError(f"{source}: made for {claimed[:12]}, not {commit[:12]}")
    if trouble:
        raise ServiceUnavailable(f"environment trouble, nothing proposed: {trouble}")
    lines = "".join(str(line) + "\n" for line in proposals)
    parsed = ledger.parse(lines, PROPOSALS_FILE)
    if parsed.problems:
        raise InputDataError(str(parsed.problems[0]))
    out = Path(environ.get("PLANEGATE_OUT") or options.working_directory) / PROPOSALS_FILE
    out.write_text(lines, "utf-8")
    notes = [f"propose freeze {e.nodeid} ({getattr(e, 'flake_class', '?')})" for e in parsed.events]
    notes += [f"base broken: {nodeid} failed every run, and alone" for nodeid in broken]
    notes.append(f"{len(parsed.events)} proposals -> {out}; append them with `planegate freeze`")
    return Report(
        base=commit,
        head=commit,
        merge_base=commit,
        agent=False,
        digest_source="not used by a sweep",
        steps=(),
        notes=tuple(notes),
        base_broken=tuple(broken),
    )


def main(progress: Progress) -> int:
    environ = os.environ
    phase = phase_of(environ)
    if phase == "run":
        return run_phase(environ, progress)
    from planegate.github.action import fetch_phase, run_action

    if phase == "fetch":
        return fetch_phase(
            environ,
            main_digest_folder(environ),
            ancestry=lambda options: GitRepo(Path(options.working_directory)),
        )

    return run_action(
        environ,
        evaluate=lambda options: evaluate(options, environ, progress),
        ancestry=lambda options: GitRepo(Path(options.working_directory)),
    )
