"""`gate` mode: a pull request's patch judged. The run phase executes main's evidence against
the patch and writes `run.json`; the judge recomputes the context from git, reads it, and
judges with main's digest artifact."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from planegate import exitcodes
from planegate.errors import InputDataError, InternalError, UsageError
from planegate.gate import context, exchange, pipeline
from planegate.gate.context import Context, DigestInput, GateOptions
from planegate.gate.digest_check import check_digest
from planegate.gate.execute import execute
from planegate.gate.judge import judge
from planegate.github import commit_people
from planegate.github.inputs import FetchedDigest, Job, agent_of
from planegate.modes.base import exchange_folder, main_digest_folder, phase_of
from planegate.progress import Progress
from planegate.repo import digest_format as digest_mod
from planegate.report import Report
from planegate.runner import parked


class GateMode:
    name = "gate"
    posts_verdict = True
    uses_main_digest = True
    writes_report = True

    def run(self, job: Job, folder: Path, environ: Mapping[str, str], progress: Progress) -> int:
        # the head's child starts while the context is built (runner/parked.py)
        with parked.ahead(Path(job.working_directory), environ, job.base or "HEAD"):
            ctx = gate_context(job, fetched_digest(environ), agent=True)
            # main's source as the digest says it: the judge phase checks that against git's
            digest = check_digest(ctx, check_source=False)
            execution = execute(
                ctx, progress, base_inventory=digest.inventory, main=digest.main_run
            )
        exchange.write(folder, execution)
        print(f"planegate: run phase done: {len(execution.head_run.collected)} nodeids -> {folder}")
        return exitcodes.PASS

    def judge(
        self,
        job: Job,
        digest: FetchedDigest | None,
        environ: Mapping[str, str],
        progress: Progress,
    ) -> Report:
        """The whole gate (phase `all`) or the judge half over the run phase's data."""
        ctx = gate_context(job, digest)
        if phase_of(environ) == "all":
            return pipeline.execute_and_judge(ctx, progress)[1]
        analysis = pipeline.start_analysis(ctx)  # it runs while the run phase's data are read
        digest_check = check_digest(ctx)
        execution = exchange.read(exchange_folder(environ), digest_check.inventory)
        if execution.commits != ctx.commits:
            raise InputDataError(
                f"{exchange.FILE_NAME}: made for commits {execution.commits}, not {ctx.commits}"
            )
        report = judge(ctx, execution, digest_check, analysis)
        run_exit = (environ.get("PLANEGATE_RUN_EXIT") or "0").strip()
        if report.exit_code == exitcodes.PASS and run_exit != "0":
            raise InternalError(f"the run phase exited {run_exit} but left a passing result")
        return report


GATE = GateMode()


def gate_options(job: Job, digest: FetchedDigest | None, agent: bool = True) -> GateOptions:
    if job.base is None:
        raise UsageError("no base commit: pass the `base` input (the event names none)")
    return GateOptions(
        root=Path(job.working_directory),
        base=job.base,
        head=job.head,
        digest=_digest_input(digest),
        config_path=job.inputs.config,
        agent=agent,
        author=job.author or "the patch author",
        people=job.commit_login or commit_people.nobody,  # never the names commits claim
    )


def _digest_input(digest: FetchedDigest | None) -> DigestInput | None:
    """Main's digest artifact, handed to the gate in memory (never through a file)."""
    if digest is None:
        return None
    return DigestInput(digest.data, f"{digest_mod.FILE_NAME} of {digest.source}", digest.source)


def gate_context(job: Job, digest: FetchedDigest | None, agent: bool | None = None) -> Context:
    """The gate's context, built once: the agent decision reads the base's planegate.yml."""
    ctx = context.build(gate_options(job, digest))
    return ctx.with_agent(agent_of(job, ctx.cfg) if agent is None else agent)


def fetched_digest(environ: Mapping[str, str]) -> FetchedDigest | None:
    """Main's digest as the fetch phase left it (read-only here), when it found one: the run
    phase then reads the base's inventory and outcomes from it instead of running the base."""
    if not environ.get("PLANEGATE_MAIN_DIGEST"):
        return None
    folder = main_digest_folder(environ)
    try:
        text = (folder / digest_mod.FILE_NAME).read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise InputDataError(f"{folder / digest_mod.FILE_NAME}: {error.strerror}") from None
    source = folder / digest_mod.SOURCE_NAME
    said = source.read_text("utf-8", "replace").strip() if source.is_file() else ""
    return FetchedDigest(text, said or "main's digest artifact")
