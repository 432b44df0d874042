"""Main's own run of its scoring tests, made once by `planegate digest` and used by every gate.

Which of main's scoring tests do not pass is a fact of main, not of the patch: the gate needs
it to tell the tests a patch flips (fail on main, pass on the patch: probes/answers/)
and to say "skipped on main too". The digest records it once per push to main; a gate whose
base is the digest's commit, in the same environment, reads it instead of running the base.
"""

from __future__ import annotations

import platform
import sys
import sysconfig
import time
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from planegate.config.planemap import PlaneMap, file_of
from planegate.gate.context import protection_at
from planegate.gate.execute import nothing_collected
from planegate.probes.honest import plan as honest_plan
from planegate.probes.honest import wire as honest_wire
from planegate.progress import Progress
from planegate.repo.digest_format import LieKey, MainRun
from planegate.repo.git import GitRepo
from planegate.repo.snapshot import Snapshot
from planegate.runner import startup
from planegate.runner.session import RunResult
from planegate.runner.spec import Sessions
from planegate.runner.traced import TraceSpec
from planegate.signs import record as signs_record
from planegate.vocabulary import SCORING_PLANES

MESSAGE_CHARS = 2000  # the schema's bound on a stored reason
# outcomes whose message is kept: a skip's or xfail's reason, and a setup or collection error's
# text (a fixture not found, an import that fails: what a maintainer needs to fix main); an
# assertion's failure text is not kept
REASONED = ("skipped", "xfailed", "error")


def fingerprint() -> dict[str, str]:
    """The environment the tests run in: this interpreter (the child's), this machine, and
    its time zone (the child gets the caller's `TZ`, not a fixed one)."""
    return {
        "python": platform.python_version(),
        "implementation": sys.implementation.name,
        "platform": sysconfig.get_platform(),
        "timezone": f"{time.tzname[0]} {time.timezone}",
    }


@dataclass(frozen=True)
class Ran:
    """The inventory main's run collected, and what it saw (None: the run told nothing)."""

    inventory: dict[str, list[str]]
    run: MainRun | None
    why_not: str = ""


def run_main(
    repo: GitRepo,
    snap: Snapshot,
    ini_options: Mapping[str, Any],
    plane_map: PlaneMap,
    frozen: frozenset[str],
    progress: Progress,
) -> Ran:
    """One session of main's suite at the snapshot's commit: its collection is the inventory,
    its outcomes are main's run (frozen tests deselected, as every gate does), traced as the
    gate's head run is, then main's fixture probe (signs/record.py)."""
    progress.step("main's run", "running the base's tests once for the digest")
    cfg = plane_map.config
    protection, found = protection_at(snap, cfg, dict.fromkeys(frozen, ""))
    trusted = frozenset(protection.select(snap.files))
    with repo.worktree(snap.commit) as tree:
        sessions = Sessions(tree, cfg, ini_options, trusted=trusted, progress=progress)
        honest = honest_plan.plugins_of(snap.files, found.test_side, found.roots)
        result = sessions.run(
            deselect=frozen, trace=TraceSpec(found.test_side, found.roots), child_plugins=honest
        )
        if not result.collected:
            raise nothing_collected(snap.commit, result, repo.root)
        inventory = plane_map.inventory(result.collected)
        if not result.closed or result.canary_problem:
            return Ran(inventory, None, f"main's run is not recorded: {_unclosed(result)}")
        progress.step("main's run", "the fixture probe on main's tree")
        signs = signs_record.probe_on_main(sessions, snap, plane_map, result)
    summary = summarise(result, plane_map, fingerprint())
    return Ran(inventory, replace(summary, signs=signs, lies=mains_lies(result)))


def _unclosed(result: RunResult) -> str:
    """Why main's run tells nothing: pytest's own collection error names what to fix here."""
    if result.canary_problem:
        return result.canary_problem
    if not startup.interrupted_by_collection(result):
        return "the run did not close"
    nodeid, message = result.collect_errors[0]
    last = message.strip().splitlines()[-1] if message.strip() else "a collection error"
    last = last[1:].strip() if last.startswith("E ") else last  # pytest's error marker
    more = f" (and {len(result.collect_errors) - 1} more)" if len(result.collect_errors) > 1 else ""
    return (
        f"pytest stopped at collection errors, so no test ran: {nodeid or 'collection'}: "
        f"{last}{more}; until main's tests collect in this "
        "environment (install what they import, or leave the file out with pytest's "
        "--ignore), every gate runs the base's side itself and stops at the same error"
    )


def mains_lies(result: RunResult) -> tuple[LieKey, ...] | None:
    """The values main's asserts compared that lied in main's run, as the honest-values check
    keys them (probes/honest/): a gate reads them instead of running its lies on the base.
    None when the run sent no record of them."""
    reported = honest_wire.lies_of(result.extra)
    return None if reported is None else tuple(sorted({lie.key for lie in reported[0]}))


def summarise(result: RunResult, plane_map: PlaneMap, environment: Mapping[str, str]) -> MainRun:
    """The scoring tests that did not pass (those the base's own options deselect included),
    and each test file's seconds."""
    not_passed: dict[str, tuple[str, str]] = {}
    seconds: defaultdict[str, float] = defaultdict(float)
    for nodeid in result.collected:
        if plane_map.plane_of(nodeid) not in SCORING_PLANES:
            continue
        outcome = result.outcome_of(nodeid)
        seconds[file_of(nodeid)] += outcome.duration
        if not outcome.passed:
            reason = outcome.message if outcome.outcome in REASONED else ""
            not_passed[nodeid] = (outcome.outcome, reason[:MESSAGE_CHARS])
    return MainRun(
        dict(environment),
        not_passed,
        {path: round(total, 3) for path, total in seconds.items()},
    )


def usable(run: MainRun | None, environment: Mapping[str, str]) -> tuple[MainRun | None, str]:
    """Main's run when it ran where this gate runs; else None, and why."""
    if run is None:
        return None, "the digest holds no run of main's tests"
    keys = {*run.environment, *environment}
    differs = sorted(k for k in keys if run.environment.get(k) != environment.get(k))
    if differs:
        key = differs[0]
        return None, (
            f"main's run was in another environment ({key} {run.environment.get(key, '?')}, "
            f"here {environment.get(key, '?')})"
        )
    return run, ""
