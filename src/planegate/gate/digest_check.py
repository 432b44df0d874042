"""Main's digest: computed from git (`planegate digest`), and checked against git by the gate."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from planegate.config import protection as protect
from planegate.config.from_git import load_config
from planegate.config.load import Config
from planegate.config.planemap import PlaneMap
from planegate.errors import InputDataError
from planegate.findings import Finding, Severity, Step
from planegate.freeze.frozen import frozen_nodeids
from planegate.gate import main_run, source_facts
from planegate.gate.alongside import Alongside
from planegate.gate.context import Context, DigestInput, GateOptions, protection_at
from planegate.gate.execute import collect_inventory
from planegate.progress import QUIET, Progress
from planegate.repo import digest_format
from planegate.repo.digest_format import Digest, MainRun, MainSource
from planegate.repo.git import GitRepo
from planegate.repo.hashing import bytes_sha256
from planegate.repo.snapshot import Snapshot, snapshot
from planegate.runner import pytest_ini


@dataclass(frozen=True)
class DigestCheck:
    """The digest's findings, the base inventory it vouches for (None: collect it), the words
    the report uses for where the digest came from, main's run of its scoring tests when
    the gate may use it (None: the gate runs the base itself; `source` says why), and the check
    of what it said of main's source against git's, under way beside the test child."""

    checked: tuple[Finding, ...]
    inventory: dict[str, list[str]] | None
    source: str
    main_run: MainRun | None = None
    source_check: Alongside[tuple[Finding, ...]] | None = None

    @property
    def findings(self) -> tuple[Finding, ...]:
        """Every finding of the digest's: the check of main's source waited for."""
        if self.source_check is None:
            return self.checked
        return self.checked + self.source_check.result()


def protected_hashes(snap: Snapshot, protection: protect.Protection) -> dict[str, str]:
    """sha256 of every protected file, and of the pytest tables of pyproject.toml/setup.cfg."""
    hashes: dict[str, str] = {}
    for path in protection.select(snap.files):
        sha = snap.sha256(path)
        if sha is not None:
            hashes[path] = sha
    for path in snap.files:
        if path.rsplit("/", 1)[-1] in protect.PYTEST_TABLE_FILES and path not in hashes:
            table = protect.pytest_table(path, snap.read(path))
            if table is not None:
                hashes[f"{path}#pytest"] = bytes_sha256(protect.table_digest_bytes(table))
    return hashes


def compute_digest(
    snap: Snapshot,
    config: Config,
    inventory: Mapping[str, Iterable[str]],
    run: MainRun | None = None,
    protection: protect.Protection | None = None,
    source: MainSource | None = None,
) -> Digest:
    """The digest of `snap`; `protection` when the caller has worked it out for the same commit
    and configuration (the gate's base evidence at the base tip)."""
    if protection is None:
        frozen = frozen_nodeids(snap.text(config.ledger), config.ledger)
        protection, _ = protection_at(snap, config, frozen)
    hashes = protected_hashes(snap, protection)
    return Digest(snap.commit, hashes, {k: tuple(v) for k, v in inventory.items()}, run, source)


def build_digest(
    repo: GitRepo,
    commit: str,
    config_path: str | None,
    progress: Progress = QUIET,
    *,
    run_tests: bool = True,
) -> Digest:
    """Main's digest at `commit`: protected hashes, the inventory per plane and, unless
    `run_tests` is False (collection only), main's run of its scoring tests."""
    snap = snapshot(repo, commit)
    cfg = load_config(repo, commit, config_path, set(snap.files))
    frozen = frozenset(frozen_nodeids(snap.text(cfg.ledger), cfg.ledger))
    plane_map = PlaneMap(cfg, frozen)
    protection, evidence = protection_at(snap, cfg, dict.fromkeys(frozen, ""))
    source = source_facts.of(snap, cfg, plane_map, evidence)
    if cfg.runner == "junit":  # main's run by the configured command (gate/junit_main.py)
        from planegate.gate import junit_main  # imported by the runner that uses it alone

        ran = junit_main.run_main(repo, commit, plane_map, frozen, progress, record=run_tests)
    elif not run_tests:
        base_ini = pytest_ini.base_options(snap.read)
        inventory = collect_inventory(repo, commit, base_ini, plane_map, progress)
        return compute_digest(snap, cfg, inventory, protection=protection, source=source)
    else:
        base_ini = pytest_ini.base_options(snap.read)
        ran = main_run.run_main(repo, snap, base_ini, plane_map, frozen, progress)
    if ran.why_not:
        progress.step("main's run", ran.why_not)
    return compute_digest(snap, cfg, ran.inventory, ran.run, protection, source)


def digest_input(options: GateOptions) -> DigestInput | None:
    """The digest the gate was given: in memory, or read from `digest_file`."""
    if options.digest is not None or options.digest_file is None:
        return options.digest
    path = options.digest_file
    try:
        text = path.read_bytes()
    except OSError as error:
        raise InputDataError(f"{path}: cannot read the digest: {error.strerror}") from None
    return DigestInput(text, str(path), f"digest file {path}")


def worktree_digest_note(ctx: Context) -> str:
    """A hint when `planegate digest` left the base tip's digest in the work tree. It is never
    read unasked: anything that ran in this work tree (the patch's own tests, run by hand, or a
    child of an earlier gate) can write that path, and a digest decides which failures are
    "as on main"; `--digest` is the person's word that the file is theirs."""
    path = ctx.options.worktree_digest
    if path is None or not path.is_file():
        return ""
    try:
        tracked = path.resolve().relative_to(ctx.repo.root.resolve()).as_posix()
    except ValueError:
        tracked = None
    if tracked is not None and (tracked in ctx.head.files or tracked in ctx.base.files):
        return ""  # a file git tracks is the patch's or main's, not what `digest` wrote
    try:
        commit = digest_format.from_json(path.read_bytes(), path.name).commit
    except (InputDataError, OSError):
        return ""
    if commit != ctx.base.commit:
        return ""
    return (
        f"; {path.name} in the work tree is a digest of the base tip: pass "
        f"`--digest {path.name}` to use it (it is not read unasked)"
    )


def check_digest(ctx: Context, *, check_source: bool = True) -> DigestCheck:
    """Main's digest against git: its commit must be the base's tip or an ancestor of it, and
    its hashes must match git's there; only the tip's own digest vouches for the inventory.
    `check_source` False: what it says of main's source is taken but not checked here (the
    action's run phase: its judge phase checks it and reports what it finds)."""
    given = digest_input(ctx.options)
    base = ctx.base
    if given is None:
        note = worktree_digest_note(ctx)
        return DigestCheck(
            (), None, f"recomputed from git at the base tip {base.commit[:12]}" + note
        )
    artifact = digest_format.from_json(given.text, given.name)
    source = f"{given.origin} (commit {artifact.commit[:12]})"
    commit = ctx.repo.resolve(artifact.commit)
    owner = ctx.cfg.owner
    if not ctx.repo.is_ancestor(commit, base.commit):
        finding = Finding(
            "PG303",
            Step.EVIDENCE,
            Severity.ERROR,
            f"the digest's commit {artifact.commit[:12]} is not the base tip "
            f"{base.commit[:12]} nor an ancestor of it",
            owner=owner,
        )
        return DigestCheck((finding,), None, source + "; refused, recomputed at the base tip")
    source_check = None
    if commit == base.commit and artifact.source is not None:
        source_check = source_facts.claim(ctx, artifact.source, check=check_source)
    if commit == base.commit:  # the base evidence the gate has worked out already
        recomputed = compute_digest(base, ctx.cfg, artifact.inventory, protection=ctx.protection)
    else:
        recomputed = compute_digest(snapshot(ctx.repo, commit), ctx.cfg, artifact.inventory)
    findings = digest_format.compare(artifact, recomputed, owner)
    if findings:
        return DigestCheck(
            tuple(findings),
            None,
            source + "; inventory recomputed at the base tip",
            source_check=source_check,
        )
    if commit != base.commit:
        return DigestCheck(
            (),
            None,
            source + f"; the newest digest is of an ancestor of the base tip {base.commit[:12]}: "
            "it matches git there, the inventory is recomputed at the tip",
        )
    inventory = {plane: list(ids) for plane, ids in artifact.inventory.items()}
    run, why_not = main_run.usable(artifact.run, main_run.fingerprint())
    source += "; matches git at the base tip"
    if why_not:
        source += f"; {why_not}: the base's outcomes are run here"
    return DigestCheck((), inventory, source, run, source_check=source_check)
