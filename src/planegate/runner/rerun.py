"""One extra session in a tree over chosen nodeids, each run `runs` times: the base's side of
a fair verdict, triage's reruns, and (when asked) the base's whole collection in passing."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from planegate.config.planemap import file_of
from planegate.runner import startup
from planegate.runner.child import repeat
from planegate.runner.session import ChildPlugin, Outcome, RunResult
from planegate.runner.spec import Sessions, pytest_args

# pytest's own traceback of a failure reads and parses every source file in it (a 25,000-line
# test file costs over a second a failure); a rerun counts outcomes and never shows them, so
# its failures keep their crash lines ("E ...") and build no traceback
NO_TRACEBACK = "--tb=no"


@dataclass(frozen=True)
class Rerun:
    """What a rerun saw: each requested nodeid's first outcome, how many of `runs` failed,
    and, when the whole suite was collected, every nodeid collected."""

    commit: str
    runs: int
    outcomes: Mapping[str, Outcome] = field(default_factory=dict)
    failures: Mapping[str, int] = field(default_factory=dict)
    collected: tuple[str, ...] = ()
    closed: bool = True
    problem: str = ""  # why the session tells nothing (it did not close), else ""
    refused: str = ""  # pytest's message when it refused to start (a usage error), else ""

    def outcome_of(self, nodeid: str) -> Outcome | None:
        """The nodeid's outcome when it was rerun and the session closed; else None (the
        rerun tells nothing about it)."""
        return self.outcomes.get(nodeid) if self.closed else None


def rerun(
    sessions: Sessions,
    commit: str,
    nodeids: Sequence[str],
    runs: int = 1,
    *,
    only: Callable[[Sequence[str]], tuple[ChildPlugin, ...]],
    whole_suite: bool = False,
) -> Rerun:
    """Run `nodeids` (each `runs` times) in one session of `sessions.tree`; `only` gives the
    child plugins that run just those nodeids (the sweep's: `freeze/sweep_plugin.py`). With
    `whole_suite` the session collects what a plain run would (the configuration's
    testpaths) and deselects the rest; otherwise it collects only the nodeids' files. Its
    failures build no traceback (`NO_TRACEBACK`, after the configured arguments)."""
    files = sorted({file_of(n) for n in nodeids if (sessions.tree / file_of(n)).is_file()})
    if not whole_suite and not files:
        missing = {n: Outcome(n, "missing") for n in nodeids}
        return Rerun(commit, runs, missing, dict.fromkeys(nodeids, 0))
    result = sessions.run(
        targets=() if whole_suite else tuple(files),
        canaries=False,
        child_plugins=only(nodeids),
        repeat=max(1, runs),
        extra_args=(*pytest_args(sessions.cfg), NO_TRACEBACK),
    )
    return _read(commit, runs, nodeids, result)


def _read(commit: str, runs: int, nodeids: Sequence[str], result: RunResult) -> Rerun:
    counted_runs, failures = repeat.failures_of(result.extra)
    if counted_runs <= 1:  # one run: the channel's own outcome says whether it failed
        failures = {n: int(result.outcome_of(n).outcome in ("failed", "error")) for n in nodeids}
    outcomes = {n: result.outcome_of(n) for n in nodeids}
    problem = "" if result.closed else _why(result)
    return Rerun(
        commit,
        runs,
        outcomes,
        {n: failures.get(n, 0) for n in nodeids},
        result.collected,
        result.closed,
        problem,
        startup.refusal(result) or "",
    )


def _why(result: RunResult) -> str:
    if result.timed_out:
        return "timed out"
    return f"exited {result.exit_status}: {startup.pytest_message(result.output)}"
