"""Triage of failing scoring tests: rerun each on head and on base, as the gate runs them,
and label it a regression, flaky under the patch, or already failing on base."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from planegate.config.load import Config
from planegate.freeze import sweep as core
from planegate.freeze import sweep_plugin
from planegate.progress import QUIET, Progress
from planegate.repo.git import GitRepo
from planegate.repo.snapshot import snapshot
from planegate.runner import pytest_ini
from planegate.runner.rerun import Rerun, rerun
from planegate.runner.spec import Sessions, pytest_args


@dataclass(frozen=True)
class Triage:
    label: str
    repro: str
    head_failures: int
    base_failures: int
    runs: int


@dataclass(frozen=True)
class Reruns:
    """How to rerun: `prepare_head` is applied to the head's tree first (the gate passes its
    overlay of the base's protected files); the base's pytest configuration is used on both
    sides (read from the base commit when `ini_options` is None)."""

    ini_options: Mapping[str, Any] | None = None
    prepare_head: Callable[[Path], object] | None = None
    runs: int = 3
    environ: Mapping[str, str] | None = None
    progress: Progress = QUIET
    base: Rerun | None = None  # the base's reruns when the gate has them already
    checkout: str | None = None  # how a person gets the head's tree (default: checkout head)


def repro_command(commit: str, nodeid: str, cfg: Config, checkout: str | None = None) -> str:
    """A command that reruns the test at the commit as the gate does."""
    args = ["python", "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly"]
    args += pytest_args(cfg)
    return (checkout or f"git checkout {commit[:12]}") + " && " + shlex.join([*args, nodeid])


def triage(
    repo: GitRepo,
    base_commit: str,
    head_commit: str,
    nodeids: Sequence[str],
    cfg: Config,
    how: Reruns | None = None,
) -> dict[str, Triage]:
    """Rerun failing scoring tests `how.runs` times on head and on base: one session per
    commit, each test run `how.runs` times in it (the base's side is taken from `how.base`
    when the gate has rerun them there already)."""
    if not nodeids:
        return {}
    how = how or Reruns()
    if how.ini_options is None:
        how = replace(how, ini_options=pytest_ini.base_options(snapshot(repo, base_commit).read))
    runs = how.runs
    how.progress.step("triage", f"rerunning {len(nodeids)} failing tests {runs}x on head and base")
    head = _reruns(repo, head_commit, nodeids, cfg, how)
    base = how.base
    if base is None or base.runs < runs or not base.closed:
        base = _reruns(repo, base_commit, nodeids, cfg, replace(how, prepare_head=None))
    result = {}
    for nodeid in nodeids:
        on_base = base.outcome_of(nodeid)
        present = on_base is not None and on_base.outcome != "missing"
        label = core.triage_label(
            base.failures.get(nodeid, 0), head.failures.get(nodeid, 0), runs, present
        )
        result[nodeid] = Triage(
            label,
            repro_command(head_commit, nodeid, cfg, how.checkout),
            head.failures.get(nodeid, 0),
            base.failures.get(nodeid, 0),
            runs,
        )
    return result


def _reruns(repo: GitRepo, commit: str, nodeids: Sequence[str], cfg: Config, how: Reruns) -> Rerun:
    """One session at `commit` running each nodeid `how.runs` times, its tree prepared by
    `how.prepare_head` first when there is one."""
    assert how.ini_options is not None
    with repo.worktree(commit) as tree:
        if how.prepare_head is not None:
            how.prepare_head(tree)
        sessions = Sessions(tree, cfg, how.ini_options, how.environ)
        return rerun(sessions, commit, nodeids, how.runs, only=sweep_plugin.only)
