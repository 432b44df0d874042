"""What the steps and capabilities read of git: the protocol the gate's context satisfies.

Everything here is taken from git before any project code runs (the base's configuration,
owners, plane map, protected paths, the diff, the ledger on both sides), so a step, a probe's
findings or the signs' findings can read the gate's facts without importing the gate.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Protocol

from planegate.collectable import TestFunction
from planegate.config.classify import Classification
from planegate.config.default_evidence import DefaultEvidence
from planegate.config.load import Config
from planegate.config.owners import Owners
from planegate.config.planemap import PlaneMap
from planegate.config.protection import Protection
from planegate.repo.git import GitRepo
from planegate.repo.gitdiff import Change
from planegate.repo.snapshot import Snapshot


class GitFacts(Protocol):
    """Facts taken from git, never from running project code (the gate's Context)."""

    @property
    def repo(self) -> GitRepo: ...
    @property
    def base(self) -> Snapshot: ...  # the merge base
    @property
    def head(self) -> Snapshot: ...
    @property
    def cfg(self) -> Config: ...  # the base's configuration
    @property
    def who(self) -> Owners: ...
    @property
    def plane_map(self) -> PlaneMap: ...
    @property
    def protection(self) -> Protection: ...
    @property
    def evidence(self) -> DefaultEvidence: ...  # the base's evidence beyond the patterns
    def test_functions(self, path: str) -> Sequence[TestFunction]: ...  # main's, in a file
    @property
    def changes(self) -> tuple[Change, ...]: ...  # git's diff from the base to the head
    @property
    def ledger_base(self) -> str | None: ...
    @property
    def ledger_head(self) -> str | None: ...
    @property
    def agent(self) -> bool: ...
    @property
    def author(self) -> str: ...
    @property
    def today(self) -> date: ...
    @property
    def new_tests(self) -> Classification: ...  # the test files the patch adds
