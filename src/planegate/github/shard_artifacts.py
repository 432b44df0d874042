"""The shard jobs' evidence artifacts of this workflow run, for `merge` mode.

Each `gate` job with a `shard: K/N` input uploads its evidence as the artifact
`planegate-shard-K-of-N` (one file, `planegate-shard.json`). The merge job, in the same
workflow run after them (`needs:`), lists the run's artifacts with the token, downloads every
one of that name and hands the evidence to the merge (shards/merge.py), which checks each
against git and the shards against each other: a missing, repeated or foreign shard fails
the merge, never passes it.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Mapping

from planegate.errors import InputDataError, UsageError
from planegate.github.client import ClientSettings, make_github
from planegate.github.download import download_zip
from planegate.github.inputs import Job, token_of

PREFIX = "planegate-shard-"
MEMBER = "planegate-shard.json"
MAX_EVIDENCE_BYTES = 256 * 1024 * 1024  # a shard of a very large suite, with its execution
MAX_SHARDS = 256


def fetch_evidence(
    job: Job, environ: Mapping[str, str], settings: ClientSettings | None = None
) -> list[tuple[str, bytes]]:
    """(where it came from, the evidence file's bytes) of every shard artifact of this run."""
    token = token_of(environ)
    if token is None:
        raise UsageError("merge mode reads the shard jobs' artifacts: it needs the github-token")
    run_id = job.runner.run_id
    if not run_id or not run_id.isdigit():
        raise UsageError("merge mode reads this workflow run's artifacts: GITHUB_RUN_ID is not set")
    client = make_github(job.runner.api_url, token, settings, verify=job.inputs.ca_bundle or True)
    run = client.get_repo(job.runner.repository).get_workflow_run(int(run_id))
    found: list[tuple[str, bytes]] = []
    for artifact in run.get_artifacts():
        if not artifact.name.startswith(PREFIX) or artifact.expired:
            continue
        if len(found) == MAX_SHARDS:
            raise InputDataError(f"more than {MAX_SHARDS} shard artifacts in run {run_id}")
        zipped = download_zip(artifact.archive_download_url, token, artifact.name)
        source = f"artifact {artifact.name} #{artifact.id} of run {run_id}"
        found.append((source, member(zipped, source)))
    if not found:
        raise InputDataError(
            f"no {PREFIX}* artifact in workflow run {run_id}: the merge job runs after every "
            "shard job (`needs:`), and each uploads its evidence (the action does it when the "
            "`shard` input is set)"
        )
    return found


def member(zipped: bytes, source: str) -> bytes:
    """The evidence file inside an artifact's zip."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(zipped))
    except zipfile.BadZipFile:
        raise InputDataError(f"{source} is not a zip file") from None
    with archive:
        try:
            info = archive.getinfo(MEMBER)
        except KeyError:
            raise InputDataError(f"{source} holds no {MEMBER}") from None
        if info.file_size > MAX_EVIDENCE_BYTES:
            raise InputDataError(f"{MEMBER} in {source} is {info.file_size} bytes: too large")
        return archive.read(info)
