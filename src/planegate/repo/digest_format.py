"""Main's digest artifact: sha256 of every protected file, one root hash, and the inventory."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from planegate import loading
from planegate.errors import InputDataError
from planegate.findings import Finding, Severity, Step

SCHEMA_VERSION = 1
ARTIFACT_NAME = "planegate-digest"
FILE_NAME = "planegate-digest.json"


@dataclass(frozen=True)
class Digest:
    commit: str
    files: Mapping[str, str]
    inventory: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def root(self) -> str:
        return root_hash(self.files)


def root_hash(files: Mapping[str, str]) -> str:
    """One hash over (path, sha256) pairs in path order: changes iff any protected byte does."""
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(path.encode("utf-8") + b"\0" + files[path].encode("ascii") + b"\n")
    return digest.hexdigest()


def to_json(digest: Digest) -> str:
    data = {
        "schema_version": SCHEMA_VERSION,
        "commit": digest.commit,
        "root": digest.root,
        "files": dict(sorted(digest.files.items())),
        "inventory": {plane: list(ids) for plane, ids in sorted(digest.inventory.items())},
    }
    return json.dumps(data, indent=2) + "\n"


def from_json(text: str | bytes, source: str) -> Digest:
    data = loading.load_json(
        text,
        source,
        limits=loading.DIGEST,
        schema="digest",
        hint="regenerate it with `planegate digest` on main",
    )
    digest = Digest(
        commit=data["commit"],
        files=dict(data["files"]),
        inventory={plane: tuple(ids) for plane, ids in data.get("inventory", {}).items()},
    )
    if digest.root != data["root"]:
        raise InputDataError(f"{source}: root hash does not match its files (the file was edited)")
    return digest


def compare(artifact: Digest, recomputed: Digest, owner: str) -> list[Finding]:
    """Every protected file whose hash differs between the artifact and git."""
    findings = []
    for path in sorted(set(artifact.files) | set(recomputed.files)):
        expected, actual = artifact.files.get(path), recomputed.files.get(path)
        if expected == actual:
            continue
        if expected is None:
            what = "is protected in git but missing from the digest"
        elif actual is None:
            what = "is in the digest but not protected in git"
        else:
            what = f"hash differs: digest {expected[:12]}, git {actual[:12]}"
        findings.append(
            Finding(
                "PG303",
                Step.EVIDENCE,
                Severity.ERROR,
                f"{path} {what} (digest of {artifact.commit[:12]})",
                path=path.split("#", 1)[0],
                owner=owner,
            )
        )
    return findings
