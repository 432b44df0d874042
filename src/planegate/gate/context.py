"""The gate's options and its Context: what both halves read from git, built once per run."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import Any

from planegate import collectable
from planegate.collectable import TestFunction
from planegate.config import default_evidence, owners
from planegate.config.classify import Classification, head_rows
from planegate.config.from_git import load_config
from planegate.config.load import Config
from planegate.config.planemap import PlaneMap, file_of
from planegate.config.protection import Protection
from planegate.freeze.frozen import frozen_nodeids
from planegate.repo.digest_format import MainSource
from planegate.repo.git import GitRepo
from planegate.repo.gitdiff import Change
from planegate.repo.snapshot import Snapshot, snapshot
from planegate.runner import contain, pytest_ini
from planegate.steps import new_tests
from planegate.steps.run_facts import Commits


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
    # the CLI's planegate-digest.json in the work tree: used when neither of the two above is
    # given and it is the digest of the base tip (never set by the action)
    worktree_digest: Path | None = None
    # the login GitHub verified for a commit (the action), for rows a person adds to classify
    # new tests; None: judged from git's own record against `agents.authors` (the CLI)
    people: Callable[[str], str | None] | None = None


@dataclass(frozen=True)
class Context:
    """What both halves of the gate read from git: never from running project code.

    What more than one part of the gate needs is computed here once: the base's pytest ini
    options, both ledgers' text, git's diff from the base to the head.
    """

    options: GateOptions
    opened: Opened
    cfg: Config
    who: owners.Owners
    ledger_base: str | None
    frozen: Mapping[str, str]
    plane_map: PlaneMap
    protected: BaseEvidence

    @property
    def repo(self) -> GitRepo:
        return self.opened.repo

    @property
    def commits(self) -> Commits:
        return self.opened.commits

    @property
    def base(self) -> Snapshot:
        """The base's tip."""
        return self.opened.base

    @property
    def head(self) -> Snapshot:
        """The head merged onto the base's tip (the head itself on a conflict)."""
        return self.opened.head

    @property
    def changes(self) -> tuple[Change, ...]:
        """What the patch changes on the base: the base's tip against the merged tree."""
        return self.opened.changes

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

    @property
    def protection(self) -> Protection:
        return self.protected.found[0]

    @property
    def evidence(self) -> default_evidence.DefaultEvidence:
        return self.protected.found[1]

    def test_functions(self, path: str) -> Sequence[TestFunction]:
        return self.protected.test_functions(path)

    @cached_property
    def base_ini(self) -> dict[str, Any]:
        """The ini options pytest would pick at the base: every run of the gate uses them."""
        return pytest_ini.base_options(self.base.read)

    @cached_property
    def base_links(self) -> frozenset[str]:
        """The base's symlinks: the overlay restores them as links."""
        return self.repo.symlinks(self.base.commit)

    @cached_property
    def ledger_head(self) -> str | None:
        return self.head.text(self.cfg.ledger)

    @cached_property
    def new_tests(self) -> Classification:
        """The test files the patch adds and how they are classified (git only)."""
        cfg, people = self.cfg, self.options.people
        return new_tests.classify(
            new_tests.Sources(
                cfg=cfg,
                frozen=frozenset(self.frozen),
                files=new_tests.added_test_files(self.changes, self.base_ini),
                base_text=self.base.read(cfg.path),
                head_text=self.head.read(cfg.path),
                rows=lambda: head_rows(
                    self.base.read(cfg.path) or b"", self.head.read(cfg.path) or b"", cfg.path
                ),
                commits=lambda: self.repo.commits_touching(
                    self.commits.base_tip, self.commits.head, cfg.path
                ),
                person=(
                    new_tests.git_person(cfg.agent_authors)
                    if people is None
                    else new_tests.verified_people(people, cfg.agent_authors)
                ),
            )
        )

    def with_agent(self, agent: bool) -> Context:
        return replace(self, options=replace(self.options, agent=agent))


class BaseEvidence:
    """What the base protects and the test functions of its files, worked out when first asked
    (the hunk analysis starts before it); held by reference, so a Context copied by
    `with_agent` shares it. Main's digest of the base tip may tell what the base's source
    says first (`claim`): its files are then not parsed before the run."""

    def __init__(self, snap: Snapshot, cfg: Config, frozen: Mapping[str, str]) -> None:
        self._inputs = (snap, cfg, frozen)
        self._claimed: MainSource | None = None

    def claim(self, source: MainSource) -> bool:
        """Take the digest's word for what the base's source says, unless the base's evidence
        was worked out already; True when taken (it must then be checked against git's)."""
        if "found" in vars(self):
            return False
        self._claimed = source
        return True

    @cached_property
    def found(self) -> tuple[Protection, default_evidence.DefaultEvidence]:
        claimed = self._claimed
        parsed = (
            None if claimed is None else default_evidence.Parsed(claimed.imported, claimed.shipped)
        )
        return protection_at(*self._inputs, parsed=parsed)

    def test_functions(self, path: str) -> Sequence[TestFunction]:
        """The test functions of one of the base's files (kinds: `collectable.py`)."""
        if self._claimed is not None:
            return self._claimed.tests.get(path, ())
        return collectable.test_functions(self._inputs[0].text(path) or "")


def protection_at(
    snap: Snapshot,
    cfg: Config,
    frozen: Mapping[str, str],
    parsed: default_evidence.Parsed | None = None,
) -> tuple[Protection, default_evidence.DefaultEvidence]:
    """What is protected in one commit: the configured patterns, the frozen nodeids' files and
    the default evidence (listed nodeids' files, test helpers, `__init__.py` files); `parsed`:
    what the commit's source says, when known already."""
    frozen_files = sorted({file_of(n) for n in frozen})
    found = default_evidence.collect(
        cfg,
        snap.files,
        snap.read,
        frozen_files=frozen_files,
        pythonpath=pytest_ini.pythonpath(pytest_ini.base_options(snap.read)),
        read_many=snap.read_many,
        parsed=parsed,
    )
    return Protection(cfg, tuple(sorted({*frozen_files, *found.paths}))), found


@dataclass(frozen=True)
class Opened:
    """The commits a gate compares and their snapshots: git only, before the configuration."""

    repo: GitRepo
    commits: Commits
    base: Snapshot  # the base's tip
    head: Snapshot  # the head merged onto the base's tip (the head itself on a conflict)

    @cached_property
    def changes(self) -> tuple[Change, ...]:
        """What the patch changes on the base: the base's tip against the merged tree."""
        return tuple(self.repo.changes(self.base.commit, self.head.commit))


def open_commits(options: GateOptions) -> Opened:
    """The commits and their snapshots; the check a root parent makes before its first test
    child is started here too, in a process of its own (runner/contain.py)."""
    contain.start_user_check(os.environ if options.environ is None else options.environ)
    repo = GitRepo(options.root)
    head = repo.resolve(options.head)
    base_tip = repo.resolve(options.base)
    merge_base = repo.merge_base(base_tip, head)
    merged = repo.merge(base_tip, head)
    commits = Commits(base_tip, head, merge_base, merged.tree or "", merged.conflicts)
    return Opened(repo, commits, snapshot(repo, base_tip), snapshot(repo, merged.tree or head))


def build(options: GateOptions, opened: Opened | None = None) -> Context:
    """The gate's Context; `opened` when the caller has opened the commits already."""
    opened = opened or open_commits(options)
    base = opened.base
    cfg = load_config(opened.repo, base.commit, options.config_path, set(base.files))
    ledger_base = base.text(cfg.ledger)
    frozen = frozen_nodeids(ledger_base, cfg.ledger)
    return Context(
        options=options,
        opened=opened,
        cfg=cfg,
        who=owners.load(cfg, {p: base.read(p) for p in owners.CODEOWNERS_PATHS}),
        ledger_base=ledger_base,
        frozen=frozen,
        plane_map=PlaneMap(cfg, frozenset(frozen)),
        protected=BaseEvidence(base, cfg, frozen),
    )
