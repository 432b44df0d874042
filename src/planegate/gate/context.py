"""The gate's options and its Context: what both halves read from git, built once per run."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import Any

from planegate.config import evidence, owners
from planegate.config.from_git import load_config
from planegate.config.load import Config
from planegate.config.planemap import PlaneMap, file_of
from planegate.config.protection import Protection
from planegate.freeze import ledger
from planegate.repo.git import GitRepo
from planegate.repo.gitdiff import Change
from planegate.repo.snapshot import Snapshot, snapshot
from planegate.runner import ini


@dataclass(frozen=True)
class DigestInput:
    """Main's digest held in memory: `name` heads error messages, `origin` tells the report
    where it came from."""

    text: str | bytes
    name: str
    origin: str


@dataclass(frozen=True)
class GateOptions:
    root: Path
    base: str
    head: str = "HEAD"
    digest_file: Path | None = None
    config_path: str | None = None
    agent: bool = True
    author: str = "the patch author"
    today: date = field(default_factory=date.today)
    environ: Mapping[str, str] | None = None
    digest: DigestInput | None = None  # main's digest in memory; read before `digest_file`


@dataclass(frozen=True)
class Commits:
    """The base's tip (evidence, configuration, digest), the patch's head, their merge base,
    and the tree of the head merged onto the tip (empty when the merge conflicts)."""

    base_tip: str
    head: str
    merge_base: str
    merged: str = ""
    conflicts: tuple[str, ...] = ()


@dataclass(frozen=True)
class Context:
    """What both halves of the gate read from git: never from running project code.

    What more than one part of the gate needs is computed here once: the base's pytest ini
    options, both ledgers' text, git's diff from the base to the head.
    """

    options: GateOptions
    repo: GitRepo
    commits: Commits
    base: Snapshot  # the base's tip
    head: Snapshot  # the head merged onto the base's tip (the head itself on a conflict)
    cfg: Config
    who: owners.Owners
    ledger_base: str | None
    frozen: Mapping[str, str]
    plane_map: PlaneMap
    protection: Protection
    evidence: evidence.DefaultEvidence = field(default_factory=evidence.DefaultEvidence)

    @property
    def agent(self) -> bool:
        return self.options.agent

    @property
    def author(self) -> str:
        return self.options.author

    @property
    def today(self) -> date:
        return self.options.today

    @property
    def environ(self) -> Mapping[str, str] | None:
        return self.options.environ

    @cached_property
    def base_ini(self) -> dict[str, Any]:
        """The ini options pytest would pick at the base: every run of the gate uses them."""
        return ini.base_options(self.base.read)

    @cached_property
    def base_links(self) -> frozenset[str]:
        """The base's symlinks: the overlay restores them as links."""
        return self.repo.symlinks(self.base.commit)

    @cached_property
    def ledger_head(self) -> str | None:
        return self.head.text(self.cfg.ledger)

    @cached_property
    def changes(self) -> tuple[Change, ...]:
        """What the patch changes on the base: the base's tip against the merged tree."""
        return tuple(self.repo.changes(self.base.commit, self.head.commit))

    def with_agent(self, agent: bool) -> Context:
        return replace(self, options=replace(self.options, agent=agent))


def protection_at(
    snap: Snapshot, cfg: Config, frozen: Mapping[str, str]
) -> tuple[Protection, evidence.DefaultEvidence]:
    """What is protected in one commit: the configured patterns, the frozen nodeids' files and
    the default evidence (listed nodeids' files, test helpers, `__init__.py` files)."""
    frozen_files = sorted({file_of(n) for n in frozen})
    found = evidence.collect(
        cfg,
        snap.files,
        snap.read,
        frozen_files=frozen_files,
        pythonpath=ini.pythonpath(ini.base_options(snap.read)),
        read_many=snap.read_many,
    )
    return Protection(cfg, tuple(sorted({*frozen_files, *found.paths}))), found


def build(options: GateOptions) -> Context:
    repo = GitRepo(options.root)
    head = repo.resolve(options.head)
    base_tip = repo.resolve(options.base)
    merge_base = repo.merge_base(base_tip, head)
    merged = repo.merge(base_tip, head)
    commits = Commits(base_tip, head, merge_base, merged.tree or "", merged.conflicts)
    base = snapshot(repo, base_tip)
    cfg = load_config(repo, base.commit, options.config_path, set(base.files))
    ledger_base = base.text(cfg.ledger)
    frozen = ledger.frozen_nodeids(ledger_base, cfg.ledger)
    protection, found = protection_at(base, cfg, frozen)
    return Context(
        options=options,
        repo=repo,
        commits=commits,
        base=base,
        head=snapshot(repo, merged.tree or head),
        cfg=cfg,
        who=owners.load(cfg, {p: base.read(p) for p in owners.CODEOWNERS_PATHS}),
        ledger_base=ledger_base,
        frozen=frozen,
        plane_map=PlaneMap(cfg, frozenset(frozen)),
        protection=protection,
        evidence=found,
    )
