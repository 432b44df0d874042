"""`sweep` mode: the flake sweep of a commit. The run phase runs the suite again and again;
the judge turns its proposals into a report (a person appends them to the ledger, never the
action)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from planegate import exitcodes
from planegate.errors import InputDataError, ServiceUnavailable
from planegate.gate import exchange
from planegate.github.inputs import FetchedDigest, Job
from planegate.modes.base import exchange_folder, out_folder, phase_of
from planegate.progress import Progress
from planegate.repo.git import GitRepo
from planegate.report import Report

SWEEP_FILE = "sweep.json"
PROPOSALS_FILE = "planegate-proposals.jsonl"


class SweepMode:
    name = "sweep"
    posts_verdict = False
    uses_main_digest = False
    writes_report = True

    def run(self, job: Job, folder: Path, environ: Mapping[str, str], progress: Progress) -> int:
        exchange.write_file(folder, SWEEP_FILE, _sweep_json(job, progress))
        return exitcodes.PASS

    def judge(
        self,
        job: Job,
        digest: FetchedDigest | None,
        environ: Mapping[str, str],
        progress: Progress,
    ) -> Report:
        commit = GitRepo(Path(job.working_directory)).resolve(job.head)
        if phase_of(environ) == "all":
            text: str | bytes = _sweep_json(job, progress)
            source = "this run"
        else:
            path = exchange_folder(environ) / SWEEP_FILE
            try:
                text = path.read_bytes()
            except FileNotFoundError:
                raise InputDataError(f"{path}: missing: the run phase left no sweep") from None
            source = str(path)
        return _proposals(text, source, commit, out_folder(job))


SWEEP = SweepMode()


def _sweep_json(job: Job, progress: Progress) -> str:
    from planegate.freeze import sweep_run, sweep_wire
    from planegate.junit import sweep as junit_sweep  # runner: junit runs its own command

    root = Path(job.working_directory)
    options = sweep_run.SweepOptions(
        root=root,
        commit=job.head,
        config_path=job.inputs.config,
        broken_here=job.inputs.broken_here,
    )
    chosen = junit_sweep.sweep if junit_sweep.wanted(options) else sweep_run.sweep
    outcome = chosen(options, progress)
    return sweep_wire.to_json(sweep_wire.of_outcome(outcome))


def _proposals(text: str | bytes, source: str, commit: str, folder: Path) -> Report:
    """The sweep's proposals, checked and written to `folder`, as a report."""
    from planegate.freeze import ledger, sweep_wire

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
    out = folder / PROPOSALS_FILE
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
