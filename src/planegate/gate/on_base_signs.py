"""The base's side of the observed signs (steps/mains_signs.py): before the patch is blamed
for a sign main's own code could show, the same tests run on the base's exported tree under
the same conditions.

At most two sessions, in one export of the base's tip, each only when the head showed
something to compare:
- traced (read tracing as in the head's run), collecting what the head's run collected and
  running only the tests under which production code opened an oracle file and the tests
  during which a harness change appeared: what main's production code opened there and which
  harness changes main's run shows;
- then the fixture probe's survivors, with the same byte of the same locked files changed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from planegate.config.planemap import file_of
from planegate.gate.context import Context
from planegate.progress import QUIET, Progress
from planegate.runner import fixture_probe as probe
from planegate.runner.session import RunResult, Tamper
from planegate.runner.spec import Sessions
from planegate.runner.traced import TraceSpec
from planegate.steps import mains_signs
from planegate.steps.mains_signs import MainsSigns


def observe(
    ctx: Context,
    head_run: RunResult,
    probed: probe.ProbeResult,
    tampering: Iterable[Tamper] = (),
    trace: TraceSpec | None = None,
    progress: Progress = QUIET,
) -> MainsSigns:
    """Run, on the base, what the head's signs need; nothing when there are none (or when the
    head's run cannot be trusted: its own findings stand)."""
    if not head_run.closed or head_run.canary_problem:
        return MainsSigns()
    signs = [*head_run.tampering, *tampering]
    oracle = mains_signs.oracle_reads(head_run.reads)
    harness = [t for t in signs if mains_signs.harness_sign(t) is not None]
    traced = (
        sorted({*mains_signs.oracle_tests(oracle), *_anchors(harness, head_run)})
        if oracle or harness
        else None
    )
    if traced is None and not probed.survivors:
        return MainsSigns()
    progress.step("base", f"looking at the patch's observed signs on {ctx.base.commit[:12]}")
    trusted = frozenset(ctx.protection.select(ctx.base.files))
    with ctx.repo.worktree(ctx.base.commit) as tree:
        sessions = Sessions(tree, ctx.cfg, ctx.base_ini, ctx.environ, trusted=trusted)
        found = MainsSigns()
        if traced is not None:
            found = _traced(sessions, traced, oracle, trace)
        if probed.survivors:
            found = _perturbed(sessions, probed, found)
    return found


def _anchors(harness: list[Tamper], head_run: RunResult) -> tuple[str, ...]:
    return mains_signs.harness_anchors(harness, head_run.selected)


def _traced(
    sessions: Sessions,
    nodeids: list[str],
    oracle: dict[str, tuple[str, ...]],
    trace: TraceSpec | None,
) -> MainsSigns:
    """One session collecting the whole suite (import-time signs come with it), running only
    `nodeids`, reads traced."""
    result = sessions.run(
        canaries=False, probes={"order": "collected", "only": nodeids}, trace=trace
    )
    if not result.closed:
        return MainsSigns(problems=(_why("traced", result),))
    harness = tuple(
        dict.fromkeys(
            sign for t in result.tampering if (sign := mains_signs.harness_sign(t)) is not None
        )
    )
    reads = mains_signs.base_prod_reads(result.reads, oracle)
    return MainsSigns(prod_reads=reads, harness=harness, traced=True)


def _perturbed(sessions: Sessions, probed: probe.ProbeResult, found: MainsSigns) -> MainsSigns:
    """The survivors again, on the base, with the same files perturbed the same way."""
    nodeids = [nodeid for nodeid, _ in probed.survivors]
    probe.perturb_files(sessions.tree, [f for _, files in probed.survivors for f in files])
    files = sorted({file_of(n) for n in nodeids if (sessions.tree / file_of(n)).is_file()})
    if not files:
        return found
    result = sessions.run(
        targets=tuple(files), canaries=False, probes={"order": "collected", "only": nodeids}
    )
    if not result.closed:
        return replace(found, problems=(*found.problems, _why("fixture probe", result)))
    survived = tuple(n for n in nodeids if result.outcome_of(n).passed)
    return replace(found, survivors=survived, caught=tuple(n for n in nodeids if n not in survived))


def _why(what: str, result: RunResult) -> str:
    how = "timed out" if result.timed_out else f"exited {result.exit_status}"
    return f"the base's {what} session did not close ({how}): the head's signs stand"
