"""The evidence step (exit 3): protected paths, the fixture manifest, the digest."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import pathspec

from planegate.config import manifest as fixtures
from planegate.config import protection as protect
from planegate.config.load import Config
from planegate.config.owners import Owners
from planegate.errors import InputDataError
from planegate.findings import Finding, Severity, Step
from planegate.gate.digest import Digest
from planegate.repo.hashing import bytes_sha256

Hasher = Callable[[str], "str | None"]
Reader = Callable[[str], "bytes | None"]


@dataclass(frozen=True)
class Snapshot:
    """What the evidence step needs of one commit."""

    commit: str
    files: tuple[str, ...]
    read: Reader
    sha256: Hasher


def protected_hashes(snapshot: Snapshot, protection: protect.Protection) -> dict[str, str]:
    """sha256 of every protected file, and of the pytest tables of pyproject.toml/setup.cfg."""
    hashes: dict[str, str] = {}
    for path in protection.select(snapshot.files):
        sha = snapshot.sha256(path)
        if sha is not None:
            hashes[path] = sha
    for path in snapshot.files:
        if path.rsplit("/", 1)[-1] in protect.PYTEST_TABLE_FILES and path not in hashes:
            table = protect.pytest_table(path, snapshot.read(path))
            if table is not None:
                hashes[f"{path}#pytest"] = bytes_sha256(protect.table_digest_bytes(table))
    return hashes


def compute_digest(
    snapshot: Snapshot, config: Config, inventory: Mapping[str, Iterable[str]]
) -> Digest:
    hashes = protected_hashes(snapshot, protect.Protection(config))
    return Digest(snapshot.commit, hashes, {k: tuple(v) for k, v in inventory.items()})


def data_files(config: Config, files: Iterable[str]) -> list[str]:
    patterns = config.planes["fixture"].data
    if not patterns:
        return []
    spec = pathspec.GitIgnoreSpec.from_lines(list(patterns))
    return [path for path in files if spec.match_file(path) and path != config.manifest]


def protected_change_findings(
    changes: Iterable[protect.ProtectedChange], config: Config, owners: Owners, *, agent: bool
) -> list[Finding]:
    fail = agent or config.on_human == "fail"
    rule = "PG301" if fail else "PG304"
    severity = Severity.ERROR if fail else Severity.WARNING
    findings = []
    for change in changes:
        plane = _plane_of_path(config, change.path)
        owner = (
            owners.of_plane_map()
            if change.path == config.path
            else owners.of_plane(plane, change.path)
        )
        if change.status == "pytest-table":
            findings.append(
                Finding(
                    "PG305" if fail else "PG304",
                    Step.EVIDENCE,
                    severity,
                    f"{change.path}: the pytest configuration table changed",
                    path=change.path,
                    owner=owner,
                )
            )
            continue
        what = f"{change.old_path} → {change.path}" if change.old_path else change.path
        findings.append(
            Finding(
                rule,
                Step.EVIDENCE,
                severity,
                f"protected {what} {change.status}",
                path=change.path,
                owner=owner,
                plane=plane,
            )
        )
    return findings


def _plane_of_path(config: Config, path: str) -> str | None:
    for name in ("fixture", "property"):
        plane = config.planes[name]
        if pathspec.GitIgnoreSpec.from_lines([*plane.paths, *plane.data]).match_file(path):
            return name
    return None


def manifest_findings(
    config: Config, base: Snapshot, head: Snapshot, owners: Owners
) -> list[Finding]:
    """The base's manifest against the base's and the head's data files."""
    owner = owners.of_plane("fixture", config.manifest)
    raw = base.read(config.manifest)
    base_data = data_files(config, base.files)
    if raw is None:
        if not base_data:
            return []
        return [
            Finding(
                "PG302",
                Step.EVIDENCE,
                Severity.ERROR,
                f"{config.manifest} is missing on the base but {len(base_data)} fixture data "
                "files exist; run `planegate lock`",
                path=config.manifest,
                owner=owner,
            )
        ]
    try:
        manifest = fixtures.parse(raw, f"{config.manifest}@base")
    except InputDataError as error:
        return [
            Finding(
                "PG302",
                Step.EVIDENCE,
                Severity.ERROR,
                error.message,
                path=config.manifest,
                owner=owner,
            )
        ]
    findings = []
    for label, snapshot in (("base", base), ("head", head)):
        paths = set(data_files(config, snapshot.files)) | set(manifest.files)
        actual = {path: snapshot.sha256(path) for path in sorted(paths)}
        for mismatch in fixtures.verify(manifest, actual):
            if label == "head" and _same_on_base(mismatch.path, base, actual):
                continue  # already reported for the base
            findings.append(
                Finding(
                    "PG302",
                    Step.EVIDENCE,
                    Severity.ERROR,
                    f"{mismatch.describe()} (on the {label})",
                    path=mismatch.path,
                    owner=owners.of_plane("fixture", mismatch.path),
                    plane="fixture",
                )
            )
    return findings


def _same_on_base(path: str, base: Snapshot, head_actual: Mapping[str, str | None]) -> bool:
    return base.sha256(path) == head_actual.get(path)
