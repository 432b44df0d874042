"""Main's run for `runner: junit`: `planegate digest` runs the configured command once at
main's commit (frozen ids deselected through the runner's filter, as every gate does) and
records what it saw in the digest's usual format (gate/main_run.py): the inventory from the
ids its JUnit XML names, the scoring tests that did not pass, and each id's class seconds.

A gate whose base is the digest's commit, in the same environment, reads the base's outcomes
from it instead of running the base's build and suite (gate/junit_gate.py)."""

from __future__ import annotations

from planegate.config.planemap import PlaneMap
from planegate.errors import ConfigError
from planegate.gate.main_run import Ran, fingerprint, summarise
from planegate.junit import run as junit_run
from planegate.progress import Progress
from planegate.repo.git import GitRepo


def run_main(
    repo: GitRepo,
    commit: str,
    plane_map: PlaneMap,
    frozen: frozenset[str],
    progress: Progress,
    *,
    record: bool = True,
) -> Ran:
    """One run of the command at `commit`: its ids are the inventory, its outcomes main's run
    (not recorded with `record` False: a foreign runner cannot list its tests without running
    them, so `--collect-only` runs the command and keeps only the ids)."""
    cfg = plane_map.config
    if cfg.junit is None:  # the schema asks for it with runner: junit
        raise ConfigError(f"{cfg.path}: runner: junit without a junit section")
    progress.step("main's run", "running the base's suite once for the digest (runner: junit)")
    with repo.worktree(commit) as tree:
        result = junit_run.run(tree, cfg.junit, frozen, progress=progress)
    if not result.collected:
        why = "; ".join(result.notes) or f"the command exited {result.exit_status}"
        raise ConfigError(
            f"the suite's command named no test at {commit[:12]}: {why}",
            'fix junit.command or junit.xml in planegate.yml (docs/configuration.md, "runner: '
            'junit")',
        )
    inventory = plane_map.inventory(result.collected)
    if not record:
        return Ran(inventory, None)
    if not result.closed:
        why = "; ".join(result.notes) or "the run did not close"
        return Ran(inventory, None, f"main's run is not recorded: {why}")
    return Ran(inventory, summarise(result, plane_map, fingerprint()))
