"""The base's side of the observed signs (signs/compare.py): before the patch is blamed
for a sign main's own code could show, the same tests run on the base's exported tree under
the same conditions.

At most two sessions, in one export of the base's tip, each only when the head showed
something to compare:
- traced (read tracing as in the head's run), collecting what the head's run collected and
  running only the tests under which production code opened an oracle file, the tests
  during which a harness change appeared and those under which main's own lines started a
  process or loaded a foreign function: what main's production code opened there, which
  harness changes main's run shows and what main's code started (signs/spawned.py);
- then the fixture probe's survivors, with the same byte of the same locked files changed;
  those that survive on the base too run once more on both trees (the head's exported again
  and overlaid) with every byte of their files changed: main's state only when the head's
  outcome is no better than the base's both times.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Protocol

from planegate.config.planemap import data_files
from planegate.freeze import sweep_plugin
from planegate.probes.fixture import plan as probe
from planegate.probes.fixture import whole as whole_probe
from planegate.probes.fixture.whole import OnHead, WholeOnHead, passing, write_all
from planegate.probes.fixture.wire import ProbeResult
from planegate.progress import QUIET, Progress
from planegate.repo.digest_format import RecordedSigns
from planegate.runner.session import RunResult, Tamper
from planegate.runner.spec import Sessions
from planegate.runner.traced import Launch, TraceSpec
from planegate.signs import compare, spawned
from planegate.signs.compare import MainsSigns
from planegate.signs.lines import MainsLines


class OnMain(OnHead, Protocol):
    """The gate's context, as far as the base's sessions need it: git's facts, and how the
    base's tests run (its ini options, the environment, its symlinks for the overlay), as
    the head's every-byte run needs them too."""


def observe(  # noqa: PLR0913 - the head's run and what the probes found of it
    ctx: OnMain,
    head_run: RunResult,
    probed: ProbeResult,
    tampering: Iterable[Tamper] = (),
    progress: Progress = QUIET,
    main: RecordedSigns | None = None,
    *,
    beside: WholeOnHead | None = None,
) -> MainsSigns:
    """Run, on the base, what the head's signs need; nothing when there are none (or when the
    head's run cannot be trusted: its own findings stand). With main's signs recorded in the
    digest (`main`), compare with those instead; `beside`: the head's run with every byte
    changed that the fixture probe began beside its own (probes/fixture/whole.py), if any."""
    if not head_run.closed or head_run.canary_problem:
        return MainsSigns()
    starts = None
    if any(r.launches for r in head_run.reads.values()):
        starts = spawned.to_compare(head_run.reads, MainsLines(ctx.base.text, ctx.head.text))
    if (
        main is not None
        and all(main.probed.get(nodeid) == files for nodeid, files in probed.survivors)
        and (main.launches is not None or starts is None)
    ):
        return _recorded(ctx, probed, main, progress, beside)
    signs = [*head_run.tampering, *tampering]
    opened = {path for r in head_run.reads.values() for path in r.prod}
    locked = data_files(ctx.cfg, opened) if opened else []
    oracle = compare.oracle_reads(head_run.reads, locked)
    harness = [t for t in signs if compare.harness_sign(t) is not None]
    traced = (
        sorted({*compare.oracle_tests(oracle), *_anchors(harness, head_run), *(starts or ())})
        if oracle or harness or starts is not None
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
            trace = TraceSpec(ctx.evidence.test_side, ctx.evidence.roots)
            found = _traced(sessions, traced, oracle, trace)
        if probed.survivors:
            found = _perturbed(ctx, sessions, probed, found)
    return found


def _recorded(
    ctx: OnMain,
    probed: ProbeResult,
    main: RecordedSigns,
    progress: Progress,
    beside: WholeOnHead | None,
) -> MainsSigns:
    """Main's signs from its run in the digest: nothing runs on the base. A fixture survivor
    main's probe caught is the patch's; one that survived on main too runs once more on the
    head with every byte of its files changed (unless it passed so on main: then it is main's
    state whatever the head does), and is main's state when it then passes on the head only
    where it passed on main."""
    signs = MainsSigns(
        prod_reads=main.prod_reads,
        harness=tuple(Tamper(event, path, line) for event, path, line in main.harness),
        traced=True,
        recorded=True,
        launches=tuple(Launch(*sign) for sign in main.launches or ()),
        unseen=main.unseen,
    )
    # main's state without a run on the head: main passes them with every byte changed
    signs = replace(signs, survivors=tuple(nodeid for nodeid, _ in probed.as_on_main))
    files = dict(probed.survivors)
    if not files:
        return signs
    both = [nodeid for nodeid in files if nodeid in main.survivors]
    whole = frozenset(main.whole)
    # one main passes with every byte changed is main's state whatever the head does
    asked = [nodeid for nodeid in both if nodeid not in whole]
    if asked:
        head = _whole_on_head(ctx, asked, files, progress, beside)
        if head is None:
            problem = _why_not("whole-file fixture probe")
            return replace(signs, caught=tuple(files), problems=(problem,))
        both = [nodeid for nodeid in both if nodeid not in head or nodeid in whole]
    caught = tuple(nodeid for nodeid in files if nodeid not in both)
    return replace(signs, survivors=(*signs.survivors, *both), caught=caught)


def _whole_on_head(
    ctx: OnMain,
    asked: list[str],
    files: Mapping[str, tuple[str, ...]],
    progress: Progress,
    beside: WholeOnHead | None,
) -> frozenset[str] | None:
    """Which of `asked` pass on the head with every byte of their files changed: from the run
    the fixture probe started beside its own when it ran them all, else from a run now."""
    if beside is not None and beside.ran.issuperset(asked):
        return None if beside.passed is None else beside.passed & frozenset(asked)
    progress.step("base signs", f"{len(asked)} fixture survivors with every byte changed")
    wholly = sorted({f for nodeid in asked for f in files[nodeid]})
    return whole_probe.on_head(ctx, asked, wholly)


def _anchors(harness: list[Tamper], head_run: RunResult) -> tuple[str, ...]:
    return compare.harness_anchors(harness, head_run.selected)


def _traced(
    sessions: Sessions,
    nodeids: list[str],
    oracle: dict[str, tuple[str, ...]],
    trace: TraceSpec | None,
) -> MainsSigns:
    """One session collecting the whole suite (import-time signs come with it), running only
    `nodeids`, reads traced."""
    result = sessions.run(canaries=False, child_plugins=sweep_plugin.only(nodeids), trace=trace)
    if not result.closed:
        return MainsSigns(problems=(_why("traced", result),))
    harness = tuple(
        dict.fromkeys(
            sign for t in result.tampering if (sign := compare.harness_sign(t)) is not None
        )
    )
    reads = compare.base_prod_reads(result.reads, oracle)
    starts = tuple(dict.fromkeys(x for r in result.reads.values() for x in r.launches))
    return MainsSigns(prod_reads=reads, harness=harness, traced=True, launches=starts)


def _perturbed(
    ctx: OnMain, sessions: Sessions, probed: ProbeResult, found: MainsSigns
) -> MainsSigns:
    """The survivors again on the base with the same byte of the same files changed; those
    that survive there too, once more on both trees with every byte of their files changed.
    Main's state is a test the base lets through whenever the head does; one that still
    passes on the head when main's test sees the change (a comparison the patch made always
    true, hidden behind a byte main does not check) is the patch's."""
    files = dict(probed.survivors)
    probe.perturb_files(sessions.tree, [f for names in files.values() for f in names])
    single = passing(sessions, list(files))
    if single is None:
        return replace(found, problems=(*found.problems, _why_not("fixture probe")))
    both = [nodeid for nodeid in files if nodeid in single]
    if both:
        wholly = sorted({f for nodeid in both for f in files[nodeid]})
        write_all(ctx.base.read, sessions.tree, wholly)
        base = passing(sessions, both)
        head = whole_probe.on_head(ctx, both, wholly)
        if base is None or head is None:
            problem = _why_not("whole-file fixture probe")
            return replace(found, caught=tuple(files), problems=(*found.problems, problem))
        both = [nodeid for nodeid in both if nodeid not in head or nodeid in base]
    caught = tuple(nodeid for nodeid in files if nodeid not in both)
    return replace(found, survivors=tuple(both), caught=caught)


def _why_not(what: str) -> str:
    return f"the {what} session on main did not close: the head's survivors stand"


def _why(what: str, result: RunResult) -> str:
    how = "timed out" if result.timed_out else f"exited {result.exit_status}"
    return f"the base's {what} session did not close ({how}): the head's signs stand"
