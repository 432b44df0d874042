"""What the gate reads of main's Python source before its run, from main's digest.

Before the head's spec the gate needs two things only main's test source tells: the evidence
by default (which modules the tests import under their test roots, which shipped assertion
helpers they use) and the test functions of each scoring file (the sampled canaries choose
among them). Parsing main's tests for them is the gate's largest cost before its run on a big
suite, and the child waits for it. `planegate digest` records them once on main
(`MainSource`); the gate of a patch on that tip takes them from the digest (`claim`) and, once
its test child has started, works them out again from git on a thread of its own and
compares (`check`): any difference is a PG303 error, so a digest that named less than main's
source says fails the gate, whatever the run said.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from planegate import collectable
from planegate.config.default_evidence import DefaultEvidence
from planegate.config.load import Config
from planegate.config.planemap import PlaneMap
from planegate.findings import Finding, Severity, Step
from planegate.gate.alongside import Alongside
from planegate.gate.context import Context, protection_at
from planegate.probes.protocol import scoring_files_of
from planegate.repo.digest_format import MainSource
from planegate.repo.git import GitRepo
from planegate.repo.snapshot import Snapshot, decode, snapshot


def of(snap: Snapshot, cfg: Config, plane_map: PlaneMap, evidence: DefaultEvidence) -> MainSource:
    """What `snap`'s source says, for the digest (`evidence`: its evidence by default)."""
    files = scoring_files_of(cfg, plane_map, snap.files)
    texts = snap.read_many(files)
    return MainSource(
        imported=evidence.parsed.imported,
        shipped=evidence.parsed.shipped,
        tests={
            path: tuple(collectable.test_functions(decode(texts.get(path)) or "")) for path in files
        },
    )


def claim(
    ctx: Context, source: MainSource, *, check: bool = True
) -> Alongside[tuple[Finding, ...]] | None:
    """The base's source taken from its digest when nothing has read it yet, and the check of
    that against git's, started beside the next test child (None: not taken, nothing to
    check, or `check` False: a process that writes no finding leaves it to one that does)."""
    if not ctx.protected.claim(source) or not check:
        return None
    inputs = (ctx.repo.root, ctx.base.commit, ctx.cfg, dict(ctx.frozen), ctx.plane_map)
    owner = ctx.cfg.owner
    return Alongside(lambda: differences(source, _from_git(*inputs), ctx.base.commit, owner))


def _from_git(
    root: Path, commit: str, cfg: Config, frozen: Mapping[str, str], plane_map: PlaneMap
) -> MainSource:
    """What the commit's source says, read through a repository object of its own (GitPython's
    processes are not shared between threads)."""
    snap = snapshot(GitRepo(root), commit)
    _, evidence = protection_at(snap, cfg, frozen)
    return of(snap, cfg, plane_map, evidence)


def differences(
    claimed: MainSource, actual: MainSource, commit: str, owner: str
) -> tuple[Finding, ...]:
    """A PG303 error for each part of the digest's word that git's source does not bear out."""
    differing = sorted(
        path
        for path in {*claimed.tests, *actual.tests}
        if path not in claimed.tests
        or path not in actual.tests
        or tuple(claimed.tests[path]) != tuple(actual.tests[path])
    )
    parts = (
        ("the modules main's tests import", _sides(claimed.imported, actual.imported)),
        ("main's shipped assertion helpers", _sides(claimed.shipped, actual.shipped)),
        ("the test functions of main's scoring files", [("in", differing)] if differing else []),
    )
    return tuple(
        Finding(
            "PG303",
            Step.EVIDENCE,
            Severity.ERROR,
            f"main's digest and git's source at {commit[:12]} disagree on {what} ("
            + "; ".join(f"{side} {_few(paths)}" for side, paths in sides)
            + "); the gate took the digest's word before its run",
            path=sides[0][1][0],
            owner=owner,
        )
        for what, sides in parts
        if sides
    )


def _sides(said: Iterable[str], found: Iterable[str]) -> list[tuple[str, list[str]]]:
    """What only the digest names and what only git's source does (nothing: they agree)."""
    only_said, only_found = sorted(set(said) - set(found)), sorted(set(found) - set(said))
    return [
        (side, paths)
        for side, paths in (("in the digest only:", only_said), ("in git only:", only_found))
        if paths
    ]


def _few(paths: list[str]) -> str:
    return ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
