"""`merge` mode: the sharded gate's one verdict, posted as one check run and comment.

It runs no project code, so it has no run phase: the judge downloads this workflow run's
shard artifacts with the token (github/shard_artifacts.py) and merges them as
`planegate gate --merge` does (shards/merge.py: every git fact recomputed, every file checked
against git and the shards against each other).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from planegate.github.inputs import FetchedDigest, Job
from planegate.github.shard_artifacts import fetch_evidence
from planegate.modes.base import no_run_phase
from planegate.modes.gate import gate_options
from planegate.progress import Progress
from planegate.report import Report
from planegate.shards import evidence_file
from planegate.shards import merge as shard_merge


class MergeMode:
    name = "merge"
    posts_verdict = True
    uses_main_digest = True
    writes_report = True

    def run(self, job: Job, folder: Path, environ: Mapping[str, str], progress: Progress) -> int:
        raise no_run_phase(self.name)

    def judge(
        self,
        job: Job,
        digest: FetchedDigest | None,
        environ: Mapping[str, str],
        progress: Progress,
    ) -> Report:
        files = [
            shard_merge.Named(source, evidence_file.from_json(data, source))
            for source, data in fetch_evidence(job, environ)
        ]
        return shard_merge.run(gate_options(job, digest), files, progress)


MERGE = MergeMode()
