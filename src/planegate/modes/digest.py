"""`digest` mode: main's digest of a pushed commit. The run phase collects main's inventory
and runs main's suite; the judge hashes the protected files from git itself and writes the
digest the workflow uploads as the artifact."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from planegate import exitcodes
from planegate.config.from_git import load_config
from planegate.errors import InputDataError
from planegate.gate import exchange
from planegate.gate.digest_check import build_digest, compute_digest
from planegate.github.inputs import FetchedDigest, Job
from planegate.modes.base import exchange_folder, out_folder, phase_of
from planegate.progress import Progress
from planegate.repo import digest_format as digest_mod
from planegate.repo.git import GitRepo
from planegate.repo.snapshot import snapshot
from planegate.report import Report


class DigestMode:
    name = "digest"
    posts_verdict = False
    uses_main_digest = False
    writes_report = True

    def run(self, job: Job, folder: Path, environ: Mapping[str, str], progress: Progress) -> int:
        repo = GitRepo(Path(job.working_directory))
        made = build_digest(repo, repo.resolve(job.head), job.inputs.config, progress)
        exchange.write_file(folder, digest_mod.FILE_NAME, digest_mod.to_json(made))
        return exitcodes.PASS

    def judge(
        self,
        job: Job,
        digest: FetchedDigest | None,
        environ: Mapping[str, str],
        progress: Progress,
    ) -> Report:
        repo = GitRepo(Path(job.working_directory))
        commit = repo.resolve(job.head)
        if phase_of(environ) == "all":
            made = build_digest(repo, commit, job.inputs.config, progress)
            source = "collected and hashed in this run"
        else:
            made = _rehashed(repo, commit, job, exchange_folder(environ))
            source = "hashed from git by the judge; inventory and main's run from the run phase"
        out = out_folder(job) / digest_mod.FILE_NAME
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


DIGEST = DigestMode()


def _rehashed(repo: GitRepo, commit: str, job: Job, folder: Path) -> digest_mod.Digest:
    """The run phase's digest with its hashes recomputed from git: only the inventory and
    main's run are taken from it."""
    path = folder / digest_mod.FILE_NAME
    try:
        text = path.read_bytes()
    except FileNotFoundError:
        raise InputDataError(f"{path}: missing: the run phase left no digest") from None
    claimed = digest_mod.from_json(text, str(path))
    snap = snapshot(repo, commit)
    cfg = load_config(repo, commit, job.inputs.config, set(snap.files))
    made = compute_digest(snap, cfg, claimed.inventory, claimed.run)
    if claimed.commit != commit:
        raise InputDataError(f"{path}: made for {claimed.commit[:12]}, not {commit[:12]}")
    return made
