"""Sampled canaries: main's own scoring tests, rerun with a production function they call
broken on purpose. Each must fail; one that passes means the run lied, or the test does not
depend on that function, and the base says which (docs/runner.md, "Sampled canaries").

1. While the head's scoring run goes, a child on the base's tree runs a few of main's scoring
   tests, chosen with a seed from `os.urandom`, and records which production functions each
   calls directly (`runner/calls.py`): main's code, so the patch has no say in it.
2. Once the head's run closed with its fixed canaries right: up to `pytest.sampled_canaries`
   of those tests that passed on the head, each with one function it calls; every chosen
   function is broken in the head's tree (`runner/mutants.py`) and the chosen tests run in
   one session, with the same harness, channel and canaries as any run; the files are then
   put back.
3. A test that did not fail runs once more on the base's tree, broken the same way: failing
   there, the patch's run lied (PG125); passing there too, main's test does not depend on
   that function (PG126, a warning). A mutant run that did not close, or whose fixed
   canaries were wrong, is PG127.
"""

from __future__ import annotations

import ast
import contextlib
import os
import random
import secrets
import shlex
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from planegate import sourcesize
from planegate.config.planemap import file_of
from planegate.gate import flipped
from planegate.gate.context import Context
from planegate.gate.flipped import scoring_files
from planegate.report import ProbeRecord
from planegate.runner import mutants
from planegate.runner.answer_probes import AnswerProbes, ProbeFailure
from planegate.runner.calls import CallSpec, calls_of
from planegate.runner.mutants import LIED, SAMPLED, UNCLOSED, UNTESTED
from planegate.runner.session import RunResult
from planegate.runner.spec import Sessions, pytest_args
from planegate.vocabulary import SCORING_PLANES

FACTOR = 2  # tests traced on the base per test sampled
NICE = 10  # the base's trace yields the CPU to the head's scoring run beside it
FAILED = ("failed", "error")


@dataclass(frozen=True)
class Traced:
    """The base's trace: the tests asked for, and the run (None when none ran)."""

    asked: tuple[str, ...] = ()
    result: RunResult | None = None
    seconds: float = 0.0
    why: str = ""


@dataclass(frozen=True)
class Target:
    """A sampled test and the function broken for it (its `def` line on the head's tree)."""

    nodeid: str
    path: str
    qualname: str
    line: int


class Pending:
    """The base's trace in a thread; `result()` waits for it."""

    def __init__(self, rng: random.Random, done: Traced | None = None) -> None:
        self.rng = rng
        self._done = done or Traced()
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    def start(self, work: Callable[[], RunResult], asked: tuple[str, ...]) -> None:
        def run() -> None:
            started = time.monotonic()
            try:
                self._done = Traced(asked, work(), time.monotonic() - started)
            except BaseException as error:  # handed to the caller of result()
                self._error = error

        self._thread = threading.Thread(target=run, name="canary-trace", daemon=True)
        self._thread.start()

    def result(self) -> Traced:
        if self._thread is not None:
            self._thread.join()
        if self._error is not None:
            raise self._error
        return self._done


@contextlib.contextmanager
def tracing(ctx: Context) -> Iterator[Pending]:
    """The base's trace of a random few of main's scoring tests, started now."""
    rng = random.Random(os.urandom(16))
    if ctx.cfg.sampled_canaries <= 0:
        yield Pending(rng, Traced(why="off (pytest.sampled_canaries: 0)"))
        return
    asked = candidates(ctx, rng, ctx.cfg.sampled_canaries * FACTOR)
    if not asked:
        yield Pending(rng, Traced(why="no scoring test of main's to sample"))
        return
    files = tuple(sorted({file_of(n) for n in asked}))
    spec = CallSpec(asked, ctx.evidence.test_side, ctx.evidence.roots)
    with ctx.repo.worktree(ctx.base.commit) as tree:
        trusted = frozenset(ctx.protection.select(ctx.base.files))
        sessions = Sessions(tree, ctx.cfg, ctx.base_ini, ctx.environ, trusted=trusted)
        pending = Pending(rng)
        pending.start(
            lambda: sessions.run(targets=files, canaries=False, nice=NICE, calls=spec), asked
        )
        try:
            yield pending
        finally:
            with contextlib.suppress(BaseException):
                pending.result()


def candidates(ctx: Context, rng: random.Random, count: int) -> tuple[str, ...]:
    """`count` test functions of main's scoring files (`path::name`, `path::Class::name`),
    read from main's source: files in random order, one test each, then round again."""
    files = list(scoring_files(ctx))
    rng.shuffle(files)
    per_file: list[list[str]] = []
    for path in files:
        if len(per_file) >= count:
            break
        names = _test_functions(ctx.base.text(path) or "")
        found = [f"{path}::{name}" for name in names if f"{path}::{name}" not in ctx.frozen]
        if found:
            rng.shuffle(found)
            per_file.append(found)
    picked: list[str] = []
    for depth in range(count):
        picked += [names[depth] for names in per_file if depth < len(names)]
        if len(picked) >= count or all(depth >= len(names) for names in per_file):
            break
    return tuple(picked[:count])


def _test_functions(source: str) -> list[str]:
    module = sourcesize.parse(source)
    if module is None:
        return []
    found = []
    for node in module.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found += [node.name] if node.name.startswith("test") else []
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            found += [
                f"{node.name}::{item.name}"
                for item in node.body
                if isinstance(item, ast.FunctionDef) and item.name.startswith("test")
            ]
    return found


def check(
    ctx: Context, sessions: Sessions, head: RunResult, pending: Pending, checkout: str
) -> AnswerProbes:
    """Choose, break, run, judge: what the sampled canaries found and what they cost."""
    started = time.monotonic()
    traced = pending.result()
    if traced.result is None or not head.closed or head.canary_problem:
        why = traced.why or "the head's run did not hold: its own finding stands"
        return _record("not run", time.monotonic() - started, 0, why)
    targets = choose(ctx, sessions.tree, head, traced.result, pending.rng)
    if not targets:
        why = f"none of the {len(traced.asked)} tests traced on main calls a function to break"
        return _record("not run", time.monotonic() - started, 0, why)
    message = f"state not ready ({secrets.token_hex(3)})"
    run = _run_broken(sessions, targets, message, ctx)
    if run is None:
        return _record(
            "not run", time.monotonic() - started, 0, "the chosen functions could not be broken"
        )
    failures = verdicts(ctx, targets, run, message, checkout)
    seconds = time.monotonic() - started
    detail = "; ".join(f"{t.nodeid} -> {t.qualname} ({t.path}:{t.line})" for t in targets)
    detail += f" (traced {len(traced.asked)} on main alongside in {traced.seconds:.1f} s)"
    outcome = "fail" if any(f.probe != UNTESTED for f in failures) else "pass"
    found = _record(outcome, seconds, len(targets), detail)
    return replace(found, failures=failures, tampering=run.tampering)


def _record(outcome: str, seconds: float, tests: int, detail: str) -> AnswerProbes:
    return AnswerProbes(records=(ProbeRecord(SAMPLED, outcome, round(seconds, 3), tests, detail),))


def choose(
    ctx: Context, tree: Path, head: RunResult, traced: RunResult, rng: random.Random
) -> tuple[Target, ...]:
    """Up to `pytest.sampled_canaries` traced tests that passed on the head, each with one
    function it calls on main that is a plain function there and that the patch left as it
    was (an honest patch that rewrites the function is not taken for a lying run)."""
    calls = calls_of(traced.extra)
    changed = set(flipped.changed_code(ctx))
    order = sorted(calls)
    rng.shuffle(order)
    chosen: list[Target] = []
    for nodeid in order:
        if len(chosen) >= ctx.cfg.sampled_canaries:
            break
        if not head.outcome_of(nodeid).passed or nodeid in ctx.frozen:
            continue
        if ctx.plane_map.plane_of(nodeid) not in SCORING_PLANES:
            continue
        options = list(calls[nodeid])
        rng.shuffle(options)
        for call in options:
            qualname = mutants.function_at(ctx.base.text(call.path) or "", call.line, call.name)
            if call.path in changed and not _same_def(ctx, tree, call.path, qualname):
                continue  # a break tests the channel, never a function the patch rewrote
            line = mutants.line_of(_text(tree, call.path), qualname) if qualname else None
            if qualname is not None and line is not None:
                chosen.append(Target(nodeid, call.path, qualname, line))
                break
    return tuple(chosen)


def _same_def(ctx: Context, tree: Path, path: str, qualname: str | None) -> bool:
    """The function's every `def` reads the same on the head as on main."""
    if qualname is None:
        return False
    before = mutants.defs(ctx.base.text(path) or "").get(qualname, [])
    after = mutants.defs(_text(tree, path)).get(qualname, [])
    return bool(before) and [ast.dump(n) for n in before] == [ast.dump(n) for n in after]


def _inside(tree: Path, path: str) -> Path | None:
    """`tree/path` when it is a regular file of the tree: no symlink on the way out of it (a
    folder the patch turned into a link would have the break written elsewhere)."""
    file = tree / path
    root = tree.resolve()
    if file.is_symlink() or not file.is_file() or file.resolve().parent != (root / path).parent:
        return None
    return file


def _text(tree: Path, path: str) -> str:
    file = _inside(tree, path)
    return "" if file is None else file.read_bytes().decode("utf-8", "replace")


@contextlib.contextmanager
def broken_in(tree: Path, targets: tuple[Target, ...], message: str) -> Iterator[bool]:
    """Every target's function broken in `tree` for the duration; the files put back after.
    Yields False (and changes nothing) when one of them cannot be broken there."""
    by_path: dict[str, list[str]] = {}
    for target in targets:
        by_path.setdefault(target.path, []).append(target.qualname)
    saved: dict[Path, bytes] = {}
    texts = {}
    for path, qualnames in by_path.items():
        file = _inside(tree, path)
        text = None if file is None else mutants.broken(_text(tree, path), qualnames, message)
        if file is None or text is None:
            yield False
            return
        texts[file] = text
    try:
        for file, text in texts.items():
            saved[file] = file.read_bytes()
            file.write_text(text, "utf-8")
        yield True
    finally:
        for file, data in saved.items():
            file.write_bytes(data)


def _run_broken(
    sessions: Sessions, targets: tuple[Target, ...], message: str, ctx: Context
) -> RunResult | None:
    """The targets' tests in one session of `sessions`, their functions broken (None when
    one cannot be broken in that tree)."""
    nodeids = tuple(dict.fromkeys(t.nodeid for t in targets))
    timeout = min(ctx.cfg.pytest_timeout, ctx.cfg.probe_budget)
    with broken_in(sessions.tree, targets, message) as ready:
        if not ready:
            return None
        return sessions.run(targets=nodeids, deselect=frozenset(ctx.frozen), timeout=timeout)


def verdicts(
    ctx: Context, targets: tuple[Target, ...], run: RunResult, message: str, checkout: str
) -> tuple[ProbeFailure, ...]:
    """Each target's failure, if any: a run that did not hold fails them all (PG127); a test
    that did not fail is judged by the same break on the base (PG125 or PG126). `{f}` in a
    sentence stands for the broken function and its place."""

    def failure(target: Target, kind: str, what: str) -> ProbeFailure:
        return _failure(target, kind, what, message, ctx, checkout)

    if not run.closed or run.canary_problem:
        why = run.canary_problem or "it did not finish (no closing record, or a test unfinished)"
        what = f"the run with {{f}} broken cannot be trusted: {why}"
        return tuple(failure(t, UNCLOSED, what) for t in targets)
    survivors = tuple(t for t in targets if run.outcome_of(t.nodeid).outcome not in FAILED)
    if not survivors:
        return ()
    on_main = _on_base(ctx, survivors, message)
    held = on_main is not None and on_main.closed and not on_main.canary_problem
    found = []
    for target in survivors:
        state = run.outcome_of(target.nodeid).outcome
        if on_main is None or not held:
            what = (
                f"reported {state} with {{f}} broken; main's run with the same break did not hold"
            )
            found.append(failure(target, LIED, what))
            continue
        base = on_main.outcome_of(target.nodeid).outcome
        if base == state:
            what = (
                f"{state} with {{f}} broken, on main's code too: main's test does not depend on it"
            )
            found.append(failure(target, UNTESTED, what))
        else:
            what = (
                f"reported {state} with {{f}} broken, {base} on main with the same break: the run "
                "does not report what the test did, or the patch no longer calls it where main does"
            )
            found.append(failure(target, LIED, what))
    return tuple(found)


def _on_base(ctx: Context, survivors: tuple[Target, ...], message: str) -> RunResult | None:
    """The survivors on the base's tree, each function broken there as on the head."""
    with ctx.repo.worktree(ctx.base.commit) as tree:
        on_base = tuple(
            replace(t, line=line)
            for t in survivors
            if (line := mutants.line_of(_text(tree, t.path), t.qualname)) is not None
        )
        trusted = frozenset(ctx.protection.select(ctx.base.files))
        sessions = Sessions(tree, ctx.cfg, ctx.base_ini, ctx.environ, trusted=trusted)
        if len(on_base) != len(survivors):
            return None
        return _run_broken(sessions, on_base, message, ctx)


def _failure(
    target: Target, kind: str, what: str, message: str, ctx: Context, checkout: str
) -> ProbeFailure:
    args = ["python", "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly"]
    args += [*pytest_args(ctx.cfg), target.nodeid]
    repro = (
        f"{checkout}, replace the body of {target.qualname} ({target.path}:{target.line}) "
        f"with `raise {mutants.EXCEPTION}({message!r})`, then {shlex.join(args)}"
    )
    where = f"{target.qualname} ({target.path}:{target.line})"
    return ProbeFailure(kind, target.nodeid, f"{where}: {what.format(f=where)}", repro)


def joined(answers: AnswerProbes, sampled: AnswerProbes) -> AnswerProbes:
    """The flipped tests' probes with the sampled canaries' failures, record and tampering."""
    return replace(
        answers,
        failures=(*answers.failures, *sampled.failures),
        records=(*answers.records, *sampled.records),
        tampering=(*answers.tampering, *sampled.tampering),
    )
