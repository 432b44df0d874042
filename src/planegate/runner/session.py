"""Run one pytest session in a child process and read its verdict from the result channel.

The parent's side of DESIGN §5: the child gets a minimal environment, a gate-written ini,
canaries with ordinary names, its spec on a pipe of its own and the channel's write end; the
parent contains the run (`runner/contain.py`) and folds the stream (`runner/stream.py`).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from planegate.progress import QUIET, Progress
from planegate.runner import (
    contain,
    inotify,
    launch,
    parked,
    plugins,
    pytest_ini,
    reading,
    subtests,
    traced,
    treescan,
)
from planegate.runner import env as child_env
from planegate.runner.child.extras import EXTRA_KINDS
from planegate.runner.reading import Heard, Hook
from planegate.runner.roots import package_roots
from planegate.runner.stream import Fold, Outcome, Tamper, outcome_of

__all__ = ["ChildPlugin", "Outcome", "RunResult", "RunSpec", "Tamper", "plugin_modules", "run"]
MAX_OUTPUT = 200_000


@dataclass(frozen=True)
class ChildPlugin:
    """A plugin the child imports by module name and builds with `options` (plain JSON), through
    the module's entry function (`runner/child/plugin_api.py`). `before_allowed`: registered
    before the allowed plugins (pluggy calls it after them), else after them. `records`: the
    kinds of record it sends, one of each per run, kept in `RunResult.extra`. A capability
    hands these to the session; the runner knows none of them."""

    module: str
    options: Mapping[str, Any] = field(default_factory=dict, hash=False)
    before_allowed: bool = False
    records: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "module": self.module,
            "options": dict(self.options),
            "before_allowed": self.before_allowed,
        }


BESIDE = 10  # the niceness of a run of main's code beside the head's scoring run: it yields


@dataclass(frozen=True)
class RunSpec:
    tree: Path
    ini_options: Mapping[str, Any]
    plugins: tuple[str, ...] = ("hypothesis",)
    extra_args: tuple[str, ...] = ()
    deselect: frozenset[str] = frozenset()
    collect_only: bool = False
    timeout: float = 1200.0
    env_allow: tuple[str, ...] = ()
    canaries: bool = True
    targets: tuple[str, ...] = ()  # nodeids or paths; default: the ini's testpaths, else "."
    trusted: frozenset[str] = frozenset()  # tree paths that are main's evidence (the overlay's)
    repeat: int = 1  # run each selected test this many times (child/repeat.py)
    nice: int = 0  # added to the child's niceness: a run beside the scoring run yields to it
    trace: traced.TraceSpec | None = None  # trace the files each test opens (child/reads.py)
    kinds: bool = False  # which items are Hypothesis tests, which not functions (child/kinds.py)
    child_plugins: tuple[ChildPlugin, ...] = ()  # a capability's plugins, loaded in this order
    network: bool = False  # the sandbox lets the child reach the network (sandbox.network)
    spare: bool = False  # a child for the next run in this tree starts beside this one's
    ci: Mapping[str, str] | None = None  # what the tree's tox.ini sets; None: read at the run
    # called in the caller's thread once the child has selected its tests: work beside the run
    then: Hook | None = field(default=None, compare=False)
    # called in the caller's thread, after `then`, with a record of these kinds once it is in
    # (while the run goes on): work that a record of the run can start before the run ends
    heard: Mapping[str, Heard] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class RunResult:
    collected: tuple[str, ...]
    selected: tuple[str, ...]
    outcomes: Mapping[str, Outcome]
    collect_errors: tuple[tuple[str, str], ...]
    closed: bool
    exit_status: int | None
    timed_out: bool
    output: str  # the child's stdout and stderr, kept for reports (untrusted: wrap when echoed)
    canary_problem: str | None = None
    stray_lines: int = 0
    notes: tuple[str, ...] = field(default=())
    unfinished: tuple[str, ...] = ()  # selected nodeids that never reported their teardown
    examples: Mapping[str, int] = field(default_factory=dict)  # Hypothesis max_examples per test
    tampering: tuple[Tamper, ...] = ()  # what the audit hook, the checks and the stream saw
    extra: Mapping[str, Any] = field(default_factory=dict)  # extras' and child plugins' records
    reads: Mapping[str, traced.Reads] = field(default_factory=dict)  # traced opens per test
    unsandboxed: bool = False  # the child ran without the sandbox (--no-sandbox)
    opened: inotify.Opens | None = None  # a traced run: the kernel's opens of locked files
    ahead: float = 0.0  # seconds its child was started before the run (runner/parked.py)

    def outcome_of(self, nodeid: str) -> Outcome:
        if nodeid in self.outcomes:
            return self.outcomes[nodeid]
        if nodeid in self._deselected:
            return Outcome(nodeid, "deselected")
        return Outcome(nodeid, "missing")

    @cached_property
    def _deselected(self) -> frozenset[str]:
        return frozenset(self.collected).difference(self.selected)


@dataclass(frozen=True)
class _Canary:
    """Two tests of the gate's own with names like any project's: one passes, one fails."""

    module: str
    must_pass: str
    must_fail: str

    @classmethod
    def new(cls) -> _Canary:
        names = [f"test_{secrets.token_hex(3)}" for _ in range(3)]
        return cls(names[0], names[1], names[2] + "x")

    def owns(self, nodeid: str) -> bool:
        """A canary, or a repeated run of one (`<nodeid>@2`: probes/answers/child/
        probe_repeat.py)."""
        name = nodeid.rsplit("::", 1)[-1].split("@", 1)[0]
        return name in (self.must_pass, self.must_fail)


@dataclass(frozen=True)
class _Execution:
    fold: Fold
    output: str
    status: int | None
    timed_out: bool
    notes: tuple[str, ...]
    tampering: tuple[Tamper, ...]
    unsandboxed: bool = False
    ahead: float = 0.0


def run(
    spec: RunSpec, progress: Progress = QUIET, parent_env: Mapping[str, str] | None = None
) -> RunResult:
    parent = parent_env if parent_env is not None else os.environ
    # a child of another user may leave what this process cannot remove: the container goes
    with _scratch(spec.tree) as scratch_dir:
        canary = _Canary.new()
        args = _arguments(spec, scratch_dir, canary)
        # read before the tree's opens are watched
        ci = dict(spec.ci) if spec.ci is not None else child_env.ci_settings(spec.tree)
        plan = launch.plan_for(spec.tree, scratch_dir, parent, spec.env_allow, spec.network, ci)
        child_spec = {
            "nonce": secrets.token_hex(16),
            "deselect": sorted(spec.deselect),
            "rootdir": str(spec.tree),
            "args": args,
            "trusted": sorted(spec.trusted),
            "protect": [
                *contain.protected_folders(plan.env["PATH"]),
                *plan.site,
                *launch.git_dirs(spec.tree),
            ],
            "modules": plugin_modules(spec.plugins, plan.site),
            "site": list(plan.site),
            "ini": args[1],
            "hidden_env": child_env.hidden(parent, ci),
            "drop_caps": plan.how.drop_caps,
            "roots": package_roots(spec.tree, spec.ini_options),
            "repeat": spec.repeat,
            "nice": spec.nice,
            "reads": _traced(spec),
            "kinds": spec.kinds,
            "child_plugins": [plugin.to_json() for plugin in spec.child_plugins],
        }
        found = treescan.suspicious(spec.tree, spec.trusted)
        committed = [Tamper(event, path) for event, path in found]
        treescan.clear_caches(spec.tree)
        try:
            with inotify.watching(spec.tree, _locked(spec)) as opened:
                started = parked.take(plan) or launch.start(plan)
                if spec.nice:  # from its start on: the child's own change comes with its spec
                    contain.yield_cpu(started.proc.pid, spec.nice)
                if spec.spare:
                    parked.spare(spec.tree, parent, spec.env_allow, spec.network, ci)
                execution = _execute(spec, child_spec, started, progress)
        finally:
            Path(args[1]).unlink(missing_ok=True)  # the gate-written ini
            treescan.clear_caches(spec.tree)  # what this run wrote is no later run's
    result = _interpret(execution, canary, spec, tuple(committed))
    if spec.trace is not None:
        result = replace(result, opened=opened[0])
    return _with_fixture_hints(result, plan.site)


@contextlib.contextmanager
def _scratch(tree: Path) -> Iterator[Path]:
    """The run's scratch folder: the one of the child started ahead for `tree`, if one waits
    (runner/parked.py), else a new one; removed afterwards."""
    made = parked.scratch_for(tree)
    if made is None:
        with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as scratch:
            yield Path(scratch)
        return
    try:
        yield made
    finally:
        shutil.rmtree(made, ignore_errors=True)


def _locked(spec: RunSpec) -> list[str]:
    """The files whose opens the kernel counts in a traced run: main's test files and the
    tree's evidence (signs/unseen.py)."""
    if spec.trace is None:
        return []
    return sorted({*spec.trace.test_files, *spec.trusted})


def _traced(spec: RunSpec) -> dict[str, list[str]] | None:
    if spec.trace is None:
        return None
    return {**spec.trace.to_json(), "locked": _locked(spec)}


def _arguments(spec: RunSpec, scratch: Path, canary: _Canary) -> list[str]:
    ini_path = spec.tree / f".pytest-{secrets.token_hex(4)}.ini"
    ini_path.write_text(pytest_ini.render(dict(spec.ini_options)), "utf-8")
    args = [
        "-c",
        str(ini_path),
        "--rootdir",
        str(spec.tree),
        "-p",
        "no:cacheprovider",
        "-q",
        "-p",
        "no:randomly",
        "--assert=rewrite",
    ]
    args += list(spec.extra_args)  # the allowed plugins are registered by the child itself
    if spec.collect_only:
        args.append("--collect-only")
    targets = list(spec.targets) or pytest_ini.testpaths(dict(spec.ini_options)) or ["."]
    if spec.canaries and not spec.collect_only:
        path = scratch / "tests" / f"{canary.module}.py"
        path.parent.mkdir()
        path.write_text(
            f"def {canary.must_pass}():\n    assert 1 + 1 == 2\n\n\n"
            f"def {canary.must_fail}():\n    assert 1 + 1 == 3\n",
            "utf-8",
        )
        targets.append(str(path))
    return args + targets


def plugin_modules(names: Iterable[str], site: Iterable[str] = ()) -> list[str]:
    """The modules the child imports for the allowed plugins (runner/plugins.py)."""
    return plugins.modules(names, site)


def _execute(
    spec: RunSpec, child_spec: dict[str, Any], started: launch.Started, progress: Progress
) -> _Execution:
    child_spec["fd"] = started.child_end
    kinds = EXTRA_KINDS.union(*(plugin.records for plugin in spec.child_plugins))
    fold = Fold(str(child_spec["nonce"]), kinds)
    proc, plan = started.proc, started.plan
    ended = threading.Event()

    def end() -> None:
        # the session's records are all in: what the child runs from here on (pytest's
        # clean-up, the project's exit handlers) can change none of them, so it stops now
        ended.set()
        _kill_group(proc)

    with started.stack:
        signals = reading.Signals()
        reader = threading.Thread(
            target=reading.read_lines,
            args=(started.results, fold, progress, end, signals),
            daemon=True,
        )
        reader.start()
        launch.send_spec(started, json.dumps(child_spec).encode())
        beside = reading.beside_the_run(spec.then, spec.heard, signals, fold)
        status, timed_out = _wait(proc, spec.timeout, beside)
        killed = contain.kill_descendants(proc.pid, started.children)
        proc.wait()
        reader.join(timeout=5)
    if ended.is_set() and not timed_out:
        status = fold.exitstatus  # pytest's own code, sent with the closing record
    if ended.is_set() and plan.box is not None:  # else the kernel counts it (reaped here)
        with _SPENT_LOCK:
            _SPENT[0] += fold.cpu
    output = (plan.scratch / "output.log").read_bytes()[-MAX_OUTPUT:].decode("utf-8", "replace")
    changed = (
        []
        if started.before is None  # the sandbox kept them read-only
        else contain.changed(
            started.before, contain.interpreter_snapshot(plan.env["PATH"], plan.site)
        )
    )
    notes = (f"killed {killed} processes the run left behind",) if killed else ()
    found = tuple(Tamper(f"the run changed {path}") for path in changed[:10])
    unboxed, ahead = plan.box is None, round(started.waited, 3) if started.parked else 0.0
    return _Execution(fold, output, status, timed_out, notes, found, unboxed, ahead)


_SPENT = [0.0]  # the CPU seconds this process's test children reported at their end
_SPENT_LOCK = threading.Lock()


def children_cpu() -> float:
    """The CPU seconds the sandboxed test children of this process reported with their
    closing record (their own and their subprocesses'): a child stopped at that record is
    not reaped by this process, so the kernel's count of its children leaves it out."""
    with _SPENT_LOCK:
        return _SPENT[0]


def _wait(
    proc: subprocess.Popen[bytes], timeout: float, first: Hook | None = None
) -> tuple[int | None, bool]:
    """The child's exit status, or None and True when it ran out of time (killed then). A
    blocking wait sees the exit at once (`Popen.wait` with a timeout polls, up to 50 ms
    apart); a timer kills the child's group when the time is up. `first`: called in this
    thread once the timer runs; should it raise, the child is killed."""
    expired = threading.Event()

    def expire() -> None:
        if proc.poll() is None:
            expired.set()
            _kill_group(proc)

    timer = threading.Timer(timeout, expire)
    timer.daemon = True
    timer.start()
    try:
        if first is not None:
            try:
                first()
            except BaseException:
                _kill_group(proc)
                raise
        status = proc.wait()
    finally:
        timer.cancel()
    return (None, True) if expired.is_set() else (status, False)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the child's process group (it leads a session of its own), if it is still there."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def _interpret(
    execution: _Execution, canary: _Canary, spec: RunSpec, found: tuple[Tamper, ...]
) -> RunResult:
    fold = execution.fold
    collected, selected, phases = fold.collected, fold.selected, fold.phases
    unfinished = _unfinished(selected, phases, spec)
    closed = fold.ended and fold.seen_selected and not unfinished
    outcomes = {
        nodeid: _with_subtests(outcome_of(nodeid, by_when), fold.subtests.get(nodeid, ()))
        for nodeid, by_when in phases.items()
    }
    canary_ids = {n for n in collected if canary.owns(n)}
    problem = _canary_problem(canary_ids, outcomes, canary, spec, closed)
    return RunResult(
        collected=tuple(n for n in collected if n not in canary_ids),
        selected=tuple(n for n in selected if n not in canary_ids),
        outcomes={k: v for k, v in outcomes.items() if k not in canary_ids},
        collect_errors=tuple(fold.errors),
        closed=closed,
        exit_status=execution.status,
        timed_out=execution.timed_out,
        output=execution.output,
        canary_problem=problem,
        stray_lines=fold.stray,
        notes=execution.notes,
        unfinished=tuple(n for n in unfinished if n not in canary_ids),
        examples={k: v for k, v in fold.examples.items() if k not in canary_ids},
        tampering=found + fold.tampering() + execution.tampering,
        extra=fold.extra,
        reads={k: traced.Reads(*v) for k, v in fold.reads.items() if k not in canary_ids},
        unsandboxed=execution.unsandboxed,
        ahead=execution.ahead,
    )


def _with_fixture_hints(result: RunResult, site: tuple[str, ...]) -> RunResult:
    """pytest's "fixture 'X' not found" names the installed distribution providing X."""

    def hinted(text: str) -> str:
        return plugins.explain_missing_fixtures(text, site) if "fixture '" in text else text

    if not any("fixture '" in o.message for o in result.outcomes.values()) and not any(
        "fixture '" in message for _, message in result.collect_errors
    ):
        return result
    return replace(
        result,
        outcomes={k: replace(o, message=hinted(o.message)) for k, o in result.outcomes.items()},
        collect_errors=tuple((nodeid, hinted(text)) for nodeid, text in result.collect_errors),
    )


def _with_subtests(outcome: Outcome, subs: Iterable[Mapping[str, Any]]) -> Outcome:
    kind, message = subtests.verdict(outcome.outcome, outcome.message, subs)
    return Outcome(outcome.nodeid, kind, message, outcome.duration)


def _unfinished(
    selected: Iterable[str], phases: Mapping[str, Mapping[str, Any]], spec: RunSpec
) -> list[str]:
    """A closing record only counts once every selected test has reported its teardown:
    `pytest.exit()` or a KeyboardInterrupt from the patch still runs pytest_sessionfinish."""
    if spec.collect_only:
        return []
    return [n for n in selected if "teardown" not in phases.get(n, {})]


def _canary_problem(
    canary_ids: set[str],
    outcomes: Mapping[str, Outcome],
    canary: _Canary,
    spec: RunSpec,
    closed: bool,
) -> str | None:
    if not spec.canaries or spec.collect_only or not closed:
        return None
    must_pass = next((outcomes.get(n) for n in canary_ids if n.endswith(canary.must_pass)), None)
    must_fail = next((outcomes.get(n) for n in canary_ids if n.endswith(canary.must_fail)), None)
    if must_pass is None or must_fail is None:
        return "a canary test of the gate's own was not reported"
    if not must_pass.passed:
        return f"the must-pass canary was reported {must_pass.outcome}"
    if must_fail.outcome != "failed":
        return f"the must-fail canary was reported {must_fail.outcome}"
    return None
