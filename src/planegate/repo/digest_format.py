"""Main's digest artifact: sha256 of every protected file, one root hash, the inventory, and
what main's own run of its scoring tests saw (the tests that did not pass, in what environment)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from planegate import wire
from planegate.errors import InputDataError
from planegate.findings import Finding, Severity, Step

SCHEMA_VERSION = 1
FILE_NAME = "planegate-digest.json"
SOURCE_NAME = "planegate-digest-source.txt"  # beside a fetched digest: which artifact it is
LIE_FIELDS = ("nodeid", "where", "operand", "type", "kind")  # a lie's key in `run.lies`


LieKey = tuple[str, str, int, str, str]


@dataclass(frozen=True)
class MainRun:
    """Main's run of its scoring tests at the digest's commit: every scoring test that did
    not pass (outcome, and the skip or xfail reason), the seconds each test file took, and the
    environment it ran in (`environment.fingerprint()`); a gate in another environment does
    not use it."""

    environment: Mapping[str, str]
    not_passed: Mapping[str, tuple[str, str]]  # nodeid: (outcome, message)
    file_seconds: Mapping[str, float] = field(default_factory=dict)
    signs: RecordedSigns | None = None  # None: an older digest, or a run that did not trace
    # the values main's asserts compared that lied in main's run (probes/honest/), each as
    # (nodeid, where, operand, type, kind); None: an older digest, or not recorded
    lies: tuple[LieKey, ...] | None = None


@dataclass(frozen=True)
class RecordedSigns:
    """What main's run showed of the observed signs (signs/compare.py), so that a gate
        compares the head's signs with them instead of running the base: the repository files
        main's production code opened under each key (a nodeid, or a module outside any test),
        the harness changes of main's run (event, path, line, as `harness_sign` gives them), the
        fixture tests run again with one byte of their locked files changed (nodeid: files), those
        that still passed, and those of them that passed with every byte of the files changed;
        the processes main's production code started and the foreign functions it loaded (event,
        program or symbol, path, line; None in a digest written before they were recorded); the
    locked files opened more often than main's audit hook saw (signs/unseen.py; None: unknown)."""

    prod_reads: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    harness: tuple[tuple[str, str, int], ...] = ()
    probed: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    survivors: tuple[str, ...] = ()
    whole: tuple[str, ...] = ()
    launches: tuple[tuple[str, str, str, int], ...] | None = None
    unseen: Mapping[str, int] | None = None  # locked path: opens no audit event showed


@dataclass(frozen=True)
class MainSource:
    """What the gate reads of main's Python source before its run, read once by `digest`: the
    evidence by default's parse (`config.default_evidence.Parsed`: the modules under the test
    roots main's tests import, and main's shipped assertion helpers) and the test functions
    of each scoring file (`collectable.test_functions`). A gate takes them from the digest of
    its base tip instead of parsing main's tests first, and checks them against git's once
    its run has started (gate/source_facts.py)."""

    imported: tuple[str, ...] = ()
    shipped: tuple[str, ...] = ()
    tests: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Digest:
    commit: str
    files: Mapping[str, str]
    inventory: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    run: MainRun | None = None
    source: MainSource | None = None  # None: an older digest

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
    if digest.run is not None:
        run: dict[str, Any] = {
            "environment": dict(sorted(digest.run.environment.items())),
            "not_passed": {
                nodeid: {"outcome": outcome, "message": message}
                for nodeid, (outcome, message) in sorted(digest.run.not_passed.items())
            },
            "file_seconds": dict(sorted(digest.run.file_seconds.items())),
        }
        if digest.run.signs is not None:
            run["signs"] = _signs_json(digest.run.signs)
        if digest.run.lies is not None:
            run["lies"] = [
                dict(zip(LIE_FIELDS, key, strict=True)) for key in sorted(digest.run.lies)
            ]
        data["run"] = run
    if digest.source is not None:
        data["source"] = _source_json(digest.source)
    return wire.DIGEST.dump(data)


def _source_json(source: MainSource) -> dict[str, Any]:
    return {
        "imported": sorted(source.imported),
        "shipped": sorted(source.shipped),
        "tests": {
            path: [list(function) for function in functions]
            for path, functions in sorted(source.tests.items())
        },
    }


def _source_of(data: Mapping[str, Any] | None) -> MainSource | None:
    if data is None:
        return None
    return MainSource(
        imported=tuple(data["imported"]),
        shipped=tuple(data["shipped"]),
        tests={
            path: tuple((name, kind) for name, kind in functions)
            for path, functions in data["tests"].items()
        },
    )


def _signs_json(signs: RecordedSigns) -> dict[str, Any]:
    found: dict[str, Any] = {
        "prod_reads": {key: list(paths) for key, paths in sorted(signs.prod_reads.items())},
        "harness": [
            {"event": event, "path": path, "line": line}
            for event, path, line in sorted(signs.harness)
        ],
        "probed": {nodeid: list(files) for nodeid, files in sorted(signs.probed.items())},
        "survivors": sorted(signs.survivors),
        "whole": sorted(signs.whole),
    }
    if signs.launches is not None:
        found["launches"] = [
            {"event": event, "name": name, "path": path, "line": line}
            for event, name, path, line in sorted(signs.launches)
        ]
    if signs.unseen is not None:
        found["unseen"] = dict(sorted(signs.unseen.items()))
    return found


def _signs_of(data: Mapping[str, Any] | None) -> RecordedSigns | None:
    if data is None:
        return None
    return RecordedSigns(
        prod_reads={key: tuple(paths) for key, paths in data["prod_reads"].items()},
        harness=tuple((h["event"], h["path"], h["line"]) for h in data["harness"]),
        probed={nodeid: tuple(files) for nodeid, files in data["probed"].items()},
        survivors=tuple(data["survivors"]),
        whole=tuple(data["whole"]),
        launches=_launches_of(data.get("launches")),
        unseen=None if data.get("unseen") is None else dict(data["unseen"]),
    )


def _launches_of(data: Any) -> tuple[tuple[str, str, str, int], ...] | None:
    if data is None:
        return None
    return tuple((d["event"], d["name"], d["path"], d["line"]) for d in data)


def _run_of(data: Mapping[str, Any] | None) -> MainRun | None:
    if data is None:
        return None
    return MainRun(
        environment=dict(data["environment"]),
        not_passed={
            nodeid: (entry["outcome"], entry.get("message", ""))
            for nodeid, entry in data["not_passed"].items()
        },
        file_seconds=dict(data.get("file_seconds", {})),
        signs=_signs_of(data.get("signs")),
        lies=_lies_of(data.get("lies")),
    )


def _lies_of(data: Any) -> tuple[LieKey, ...] | None:
    if data is None:
        return None
    return tuple((d["nodeid"], d["where"], d["operand"], d["type"], d["kind"]) for d in data)


def from_json(text: str | bytes, source: str) -> Digest:
    data = wire.DIGEST.load(text, source)
    digest = Digest(
        commit=data["commit"],
        files=dict(data["files"]),
        inventory={plane: tuple(ids) for plane, ids in data.get("inventory", {}).items()},
        run=_run_of(data.get("run")),
        source=_source_of(data.get("source")),
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
