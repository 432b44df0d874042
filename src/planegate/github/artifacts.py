"""Main's `planegate-digest` artifact: find one made on the default branch, download, unzip.

Only an artifact uploaded by a `push` run on this repository's default branch is main's
evidence. Anything else (a pull request run, a fork's run, another branch) could have been
made by the patch under review and is refused with a reason. What the listing itself rules
out is refused before git is asked anything, and a commit the clone does not hold (a newer
push to main, history not fetched) is refused too: one stray artifact never stops the gate.
"""

from __future__ import annotations

import dataclasses
import io
import itertools
import re
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

import requests
from github.Artifact import Artifact
from github.Repository import Repository
from github.WorkflowRun import WorkflowRun

from planegate.errors import InputDataError, ServiceUnavailable
from planegate.findings import Finding, Severity, Step
from planegate.github.client import CALL_ERRORS, describe
from planegate.github.download import Transfer, download_zip

DEFAULT_NAME = "planegate-digest"
DIGEST_MEMBER = "planegate-digest.json"
MAX_DIGEST_BYTES = 64 * 1024 * 1024
MAX_CANDIDATES = 100
_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


class Ancestry(Protocol):
    """The git facts the choice needs (planegate.repo.git.GitRepo has this shape); none of
    them raises for a commit the clone does not hold."""

    def resolve(self, ref: str) -> str: ...

    def has_commit(self, sha: str) -> bool: ...

    def is_ancestor(self, ancestor: str, descendant: str) -> bool: ...


@dataclass(frozen=True)
class DigestRequest:
    """Which artifact is main's: this repository's, its default branch's, at the base's tip
    (or its newest ancestor that has one)."""

    token: str
    repository_id: int
    default_branch: str
    base: str  # the base's tip, a full sha
    name: str = DEFAULT_NAME


@dataclass(frozen=True)
class ArtifactRef:
    id: int
    name: str
    head_sha: str
    created_at: datetime | None
    download_url: str
    run_id: int | None
    run_repository_id: int | None
    run_head_repository_id: int | None
    run_head_branch: str | None


@dataclass(frozen=True)
class RunFacts:
    id: int
    event: str
    head_branch: str | None
    head_repository_id: int | None
    repository_id: int | None


@dataclass(frozen=True)
class Refusal:
    artifact_id: int
    head_sha: str
    reason: str


@dataclass(frozen=True)
class DigestFetch:
    """The outcome, as a value: the digest bytes (or None), where they came from, what was
    refused and why, and a problem if a chosen artifact could not be read."""

    data: bytes | None
    source: str
    artifact: ArtifactRef | None = None
    refused: tuple[Refusal, ...] = ()
    problem: str | None = None

    def findings(self, owner: str = "the corpus owner") -> tuple[Finding, ...]:
        found = [
            Finding(
                rule="PG306",
                step=Step.EVIDENCE,
                severity=Severity.WARNING,
                message=f"artifact {r.artifact_id} (commit {r.head_sha[:12]}) refused: {r.reason}",
                owner=owner,
            )
            for r in self.refused
        ]
        if self.data is None:
            why = f" ({self.problem})" if self.problem else ""
            found.append(
                Finding(
                    rule="PG307",
                    step=Step.EVIDENCE,
                    severity=Severity.NOTICE,
                    message=f"{self.source}{why}",
                    owner=owner,
                )
            )
        return tuple(found)


def artifact_ref(artifact: Artifact) -> ArtifactRef:
    raw = artifact.raw_data.get("workflow_run") or {}
    return ArtifactRef(
        id=artifact.id,
        name=artifact.name,
        head_sha=str(raw.get("head_sha") or ""),
        created_at=artifact.created_at,
        download_url=artifact.archive_download_url,
        run_id=raw.get("id"),
        run_repository_id=raw.get("repository_id"),
        run_head_repository_id=raw.get("head_repository_id"),
        run_head_branch=raw.get("head_branch"),
    )


def run_facts(run: WorkflowRun) -> RunFacts:
    raw = run.raw_data
    head_repo = raw.get("head_repository") or {}
    repo = raw.get("repository") or {}
    return RunFacts(
        id=run.id,
        event=str(raw.get("event")),
        head_branch=raw.get("head_branch"),
        head_repository_id=raw.get("head_repository_id") or head_repo.get("id"),
        repository_id=repo.get("id"),
    )


def artifact_refusal(ref: ArtifactRef, request: DigestRequest) -> str | None:
    """What the listing's own facts (name, `workflow_run`, head sha) already rule out."""
    if ref.name != request.name:
        return f"it is named {ref.name!r}, not {request.name!r}"
    if ref.run_id is None:
        return "it names no workflow run"
    head_repo = ref.run_head_repository_id
    if head_repo is not None and head_repo != request.repository_id:
        return f"it was made by a run on another repository (id {head_repo}, a fork)"
    if ref.run_repository_id is not None and ref.run_repository_id != request.repository_id:
        return f"it belongs to another repository (id {ref.run_repository_id})"
    if ref.run_head_branch is not None and ref.run_head_branch != request.default_branch:
        return _other_branch(ref.run_head_branch, request.default_branch)
    if not _SHA.fullmatch(ref.head_sha):
        return f"its head sha {ref.head_sha[:64]!r} is not a commit sha"
    return None


def _other_branch(branch: str | None, default_branch: str) -> str:
    return f"it was made on branch {branch!r}, not the default branch {default_branch!r}"


def run_refusal(
    run: RunFacts | None, run_id: int | None, *, repository_id: int, default_branch: str
) -> str | None:
    """None when the run was a push to the default branch of this repository."""
    if run is None:
        return f"its workflow run {run_id} could not be read"
    if run.event != "push":
        return f"it was made by a {run.event} run, not a push to {default_branch}"
    if run.head_repository_id not in (None, repository_id):
        return f"its run's head repository is another repository (id {run.head_repository_id})"
    if run.repository_id not in (None, repository_id):
        return f"its run belongs to another repository (id {run.repository_id})"
    if run.head_branch != default_branch:
        return _other_branch(run.head_branch, default_branch)
    return None


def screen(
    refs: Iterable[ArtifactRef], request: DigestRequest, ancestry: Ancestry
) -> tuple[list[ArtifactRef], list[Refusal]]:
    """The candidates, the base tip's first then its ancestors' newest first, and the refused.
    Git is asked only about artifacts the listing did not already rule out."""
    kept: list[ArtifactRef] = []
    refused: list[Refusal] = []
    for ref in refs:
        reason = artifact_refusal(ref, request)
        at_base = ref.head_sha == request.base
        if reason is None and not at_base and not ancestry.has_commit(ref.head_sha):
            reason = (
                f"its commit {ref.head_sha[:12]} is not in this clone "
                "(a newer push, or history that was not fetched)"
            )
        if reason is not None:
            refused.append(Refusal(ref.id, ref.head_sha, reason))
        else:
            kept.append(ref)
    newest = sorted(kept, key=lambda r: (r.created_at is not None, r.created_at), reverse=True)
    exact = [r for r in newest if r.head_sha == request.base]
    older = [
        r
        for r in newest
        if r.head_sha != request.base and ancestry.is_ancestor(r.head_sha, request.base)
    ]
    return exact + older, refused


def extract_digest(zip_bytes: bytes, member: str = DIGEST_MEMBER) -> bytes:
    try:
        archive = zipfile.ZipFile(io.BytesIO(zip_bytes))
    except zipfile.BadZipFile:
        raise InputDataError("the digest artifact is not a zip file") from None
    with archive:
        try:
            info = archive.getinfo(member)
        except KeyError:
            names = ", ".join(archive.namelist()[:5]) or "nothing"
            raise InputDataError(
                f"the digest artifact has no {member} (it holds {names})"
            ) from None
        if info.file_size > MAX_DIGEST_BYTES:
            raise InputDataError(f"{member} in the artifact is {info.file_size} bytes: too large")
        return archive.read(info)


def fetch_digest(
    repo: Repository,
    request: DigestRequest,
    ancestry: Ancestry,
    verify: bool | str = True,
    transfer: Transfer | None = None,
) -> DigestFetch:
    """Never raises for GitHub trouble: every failure becomes "recomputed, and why".
    `verify` is TLS verification (a CA bundle's path, or False); `transfer` the download's
    other settings (retries, backoff, byte cap)."""
    transfer = dataclasses.replace(transfer or Transfer(), verify=verify)
    fallback = f"no usable {request.name} artifact: recomputed at the base tip {request.base[:12]}"
    try:
        listed = itertools.islice(repo.get_artifacts(name=request.name), MAX_CANDIDATES)
        refs = [artifact_ref(a) for a in listed]
    except CALL_ERRORS as error:
        return DigestFetch(None, fallback, problem=f"listing artifacts failed: {describe(error)}")
    candidates, refused = screen(refs, request, ancestry)
    runs: dict[int, RunFacts | None] = {}
    for ref in candidates:
        reason = run_refusal(
            _run(repo, ref.run_id, runs),
            ref.run_id,
            repository_id=request.repository_id,
            default_branch=request.default_branch,
        )
        if reason is not None:
            refused.append(Refusal(ref.id, ref.head_sha, reason))
            continue
        return _download(ref, request, transfer, tuple(refused), fallback)
    return DigestFetch(None, fallback, refused=tuple(refused))


def _run(
    repo: Repository, run_id: int | None, cache: dict[int, RunFacts | None]
) -> RunFacts | None:
    if run_id is None:
        return None
    if run_id not in cache:
        try:
            cache[run_id] = run_facts(repo.get_workflow_run(run_id))
        except CALL_ERRORS:
            cache[run_id] = None
    return cache[run_id]


def _download(
    ref: ArtifactRef,
    request: DigestRequest,
    transfer: Transfer,
    refused: tuple[Refusal, ...],
    fallback: str,
) -> DigestFetch:
    where = (
        "the base tip"
        if ref.head_sha == request.base
        else "the newest ancestor of the base tip that has one"
    )
    try:
        zipped = download_zip(ref.download_url, request.token, ref.name, transfer)
        data = extract_digest(zipped)
    except (ServiceUnavailable, InputDataError, requests.RequestException) as error:
        problem = f"artifact {ref.id} could not be read: {getattr(error, 'message', error)}"
        return DigestFetch(None, fallback, artifact=ref, refused=refused, problem=problem)
    source = (
        f"artifact {ref.name} #{ref.id} from push run {ref.run_id} at {ref.head_sha[:12]} ({where})"
    )
    return DigestFetch(data, source, artifact=ref, refused=refused)
