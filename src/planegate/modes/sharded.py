"""`gate` mode with a `shard: K/N` input: one matrix job's slice of a sharded gate.

The run phase runs the slice (shards/run.py) and leaves its evidence in the exchange folder;
the judge checks that evidence against git (shards/merge.py's check, as the merge will again),
copies it where the workflow uploads it (the artifact `planegate-shard-K-of-N`, action.yml)
and posts nothing: the verdict is the `merge` job's, over every shard's evidence.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from planegate import exitcodes
from planegate.errors import InputDataError, InternalError
from planegate.gate import exchange
from planegate.github.inputs import FetchedDigest, Job
from planegate.github.shard_artifacts import MEMBER
from planegate.modes.base import exchange_folder, out_folder, phase_of
from planegate.modes.gate import fetched_digest, gate_context, gate_options
from planegate.progress import Progress
from planegate.report import Report
from planegate.report.json_load import report_from_dict
from planegate.shards import evidence_file
from planegate.shards import run as shard_run
from planegate.shards.merge import Named, check_against_git
from planegate.shards.slicing import Shard


class ShardMode:
    name = "shard"
    posts_verdict = False
    uses_main_digest = True
    writes_report = True

    def run(self, job: Job, folder: Path, environ: Mapping[str, str], progress: Progress) -> int:
        shard = _shard(job)
        evidence, _ = shard_run.run(gate_options(job, fetched_digest(environ)), shard, progress)
        exchange.write_file(folder, MEMBER, evidence_file.to_json(evidence))
        print(f"planegate: shard {shard} done: {len(evidence.assigned)} nodeids -> {folder}")
        return exitcodes.PASS

    def judge(
        self,
        job: Job,
        digest: FetchedDigest | None,
        environ: Mapping[str, str],
        progress: Progress,
    ) -> Report:
        shard = _shard(job)
        if phase_of(environ) == "all":
            evidence, report = shard_run.run(gate_options(job, digest), shard, progress)
        else:
            path = exchange_folder(environ) / MEMBER
            evidence = evidence_file.read(path)
            if evidence.shard != shard:
                raise InputDataError(f"{path}: evidence of shard {evidence.shard}, not {shard}")
            check_against_git(gate_context(job, digest), Named(str(path), evidence))
            report = report_from_dict(dict(evidence.report))
        exchange.write_file(out_folder(job), MEMBER, evidence_file.to_json(evidence))
        return report


SHARD = ShardMode()


def _shard(job: Job) -> Shard:
    if job.inputs.shard is None:
        raise InternalError("the shard mode runs only with the `shard` input")
    return job.inputs.shard
