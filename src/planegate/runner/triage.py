"""Triage of failing scoring tests: rerun each on head and on base, as the gate runs them,
and label it a regression, flaky under the patch, or already failing on base."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from planegate.config.load import Config
from planegate.config.planemap import file_of
from planegate.freeze import sweep as core
from planegate.progress import QUIET, Progress
from planegate.repo.git import GitRepo
from planegate.repo.snapshot import snapshot
from planegate.runner import ini
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
    """Rerun failing scoring tests `how.runs` times on head and on base."""
    if not nodeids:
        return {}
    how = how or Reruns()
    if how.ini_options is None:
        how = replace(how, ini_options=ini.base_options(snapshot(repo, base_commit).read))
    runs = how.runs
    how.progress.step("triage", f"rerunning {len(nodeids)} failing tests {runs}x on head and base")
    head = _reruns(repo, head_commit, nodeids, cfg, how)
    base = _reruns(repo, base_commit, nodeids, cfg, replace(how, prepare_head=None))
    result = {}
    for nodeid in nodeids:
        h_fail, _ = head[nodeid]
        b_fail, on_base = base[nodeid]
        label = core.triage_label(b_fail, h_fail, runs, on_base)
        result[nodeid] = Triage(
            label, repro_command(head_commit, nodeid, cfg, how.checkout), h_fail, b_fail, runs
        )
    return result


def _reruns(
    repo: GitRepo,
    commit: str,
    nodeids: Sequence[str],
    cfg: Config,
    how: Reruns,
) -> dict[str, tuple[int, bool]]:
    """nodeid -> (failures, collected at all) over `how.runs` sessions at `commit`, its
    tree prepared by `how.prepare_head` first when there is one."""
    assert how.ini_options is not None
    failures = dict.fromkeys(nodeids, 0)
    collected: set[str] = set()
    with repo.worktree(commit) as tree:
        if how.prepare_head is not None:
            how.prepare_head(tree)
        files = sorted({file_of(n) for n in nodeids if (tree / file_of(n)).is_file()})
        sessions = Sessions(tree, cfg, how.ini_options, how.environ)
        for _ in range(how.runs if files else 0):
            result = sessions.run(
                targets=tuple(files),
                canaries=False,
                probes={"order": "collected", "only": list(nodeids)},
            )
            collected.update(result.collected)
            for nodeid in nodeids:
                failures[nodeid] += int(result.outcome_of(nodeid).outcome in core.FAILING)
    return {n: (failures[n] if n in collected else 0, n in collected) for n in nodeids}
