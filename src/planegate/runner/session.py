"""Run one pytest session in a child process and read its verdict from the result channel."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from planegate.progress import QUIET, Progress
from planegate.runner import env as child_env
from planegate.runner import ini

BOOTSTRAP = (
    "import sys; sys.path[:] = [p for p in sys.path if p not in ('', '.')]; "
    "from planegate.runner.child import main; raise SystemExit(main())"
)
MAX_OUTPUT = 200_000


@dataclass(frozen=True)
class Outcome:
    nodeid: str
    outcome: str  # passed failed error skipped xfailed xpassed missing deselected
    message: str = ""
    duration: float = 0.0

    @property
    def passed(self) -> bool:
        return self.outcome == "passed"


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
    probes: Mapping[str, Any] | None = None  # options of runner.probes.ProbesPlugin (the sweep)
    answer_probes: bool = False  # register the answer probes' plugins (runner/probe_*.py)
    nice: int = 0  # added to the child's niceness: a run beside the scoring run yields to it


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

    def outcome_of(self, nodeid: str) -> Outcome:
        if nodeid in self.outcomes:
            return self.outcomes[nodeid]
        if nodeid in self.collected and nodeid not in self.selected:
            return Outcome(nodeid, "deselected")
        return Outcome(nodeid, "missing")


def run(
    spec: RunSpec, progress: Progress = QUIET, parent_env: Mapping[str, str] | None = None
) -> RunResult:
    with tempfile.TemporaryDirectory(prefix="planegate-run-") as scratch:
        scratch_dir = Path(scratch)
        nonce = secrets.token_hex(16)
        canary_prefix = f"test_planegate_canary_{secrets.token_hex(4)}"
        args = _arguments(spec, scratch_dir, canary_prefix)
        env = child_env.minimal(
            parent_env if parent_env is not None else os.environ,
            str(scratch_dir / "home"),
            spec.env_allow,
        )
        (scratch_dir / "home").mkdir()
        child_spec = {
            "fd": -1,
            "nonce": nonce,
            "deselect": sorted(spec.deselect),
            "canary_prefix": canary_prefix,
            "rootdir": str(spec.tree),
            "args": args,
            "probes": dict(spec.probes) if spec.probes is not None else None,
            "answer_probes": spec.answer_probes,
            "nice": spec.nice,
        }
        fold, output, status, timed_out = _execute(spec, child_spec, env, scratch_dir, progress)
    return _interpret(fold, canary_prefix, output, status, timed_out, spec)


def _arguments(spec: RunSpec, scratch: Path, canary_prefix: str) -> list[str]:
    ini_path = spec.tree / f".planegate-{secrets.token_hex(4)}.ini"
    ini_path.write_text(ini.render(dict(spec.ini_options)), "utf-8")
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
    for module in plugin_modules(spec.plugins):
        args += ["-p", module]
    args += list(spec.extra_args)
    if spec.collect_only:
        args.append("--collect-only")
    targets = list(spec.targets) or ini.testpaths(dict(spec.ini_options)) or ["."]
    if spec.canaries and not spec.collect_only:
        canary = scratch / "canary" / f"{canary_prefix}.py"
        canary.parent.mkdir()
        canary.write_text(
            f"def {canary_prefix}_must_pass():\n    assert 1 + 1 == 2\n\n\n"
            f"def {canary_prefix}_must_fail():\n    assert 1 + 1 == 3\n",
            "utf-8",
        )
        targets.append(str(canary))
    return args + targets


def plugin_modules(names: Iterable[str]) -> list[str]:
    """Map allowed plugin names (entry-point or distribution names) to importable modules."""
    from importlib.metadata import entry_points

    points = list(entry_points(group="pytest11"))
    modules: list[str] = []
    for name in names:
        matches = [
            ep
            for ep in points
            if ep.name == name or (ep.dist is not None and ep.dist.name.lower() == name.lower())
        ]
        found = [ep.value.split(":", 1)[0] for ep in matches] or [name]
        modules += [module for module in found if module not in modules]
    return modules


def _execute(
    spec: RunSpec,
    child_spec: dict[str, Any],
    env: dict[str, str],
    scratch: Path,
    progress: Progress,
) -> tuple[_Fold, str, int | None, bool]:
    read_fd, write_fd = os.pipe()
    child_spec["fd"] = write_fd
    log_path = scratch / "output.log"
    fold = _Fold(str(child_spec["nonce"]))
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-c", BOOTSTRAP],
            cwd=spec.tree,
            env=env,
            stdin=subprocess.PIPE,
            stdout=log,
            stderr=subprocess.STDOUT,
            pass_fds=(write_fd,),
            start_new_session=True,
        )
        os.close(write_fd)
        reader = threading.Thread(target=_read_lines, args=(read_fd, fold, progress), daemon=True)
        reader.start()
        assert proc.stdin is not None
        try:
            proc.stdin.write((json.dumps(child_spec) + "\n").encode())
            proc.stdin.close()
        except BrokenPipeError:
            pass
        timed_out = False
        try:
            status: int | None = proc.wait(timeout=spec.timeout)
        except subprocess.TimeoutExpired:
            timed_out, status = True, None
        finally:
            _kill_group(proc)
        reader.join(timeout=5)
    output = log_path.read_bytes()[-MAX_OUTPUT:].decode("utf-8", "replace")
    return fold, output, status, timed_out


class _Fold:
    """The result stream folded as it arrives: memory grows with tests, not with records."""

    def __init__(self, nonce: str) -> None:
        self.nonce = nonce
        self.collected: list[str] = []
        self.selected: list[str] = []
        self.phases: dict[str, dict[str, dict[str, Any]]] = {}
        self.errors: list[tuple[str, str]] = []
        self.examples: dict[str, int] = {}
        self.ended = self.seen_selected = False
        self.stray = 0

    def feed(self, line: str) -> None:
        record = _record(line, self.nonce)
        if record is None:
            self.stray += 1
            return
        kind = record.get("kind")
        if kind == "collected":
            self.collected = list(record["nodeids"])
        elif kind == "selected":
            self.selected, self.seen_selected = list(record["nodeids"]), True
        elif kind == "collect_error":
            self.errors.append((str(record["nodeid"]), str(record["message"])))
        elif kind == "report":
            self.phases.setdefault(record["nodeid"], {})[record["when"]] = _slim(record)
        elif kind == "hypothesis":
            self.examples[str(record["nodeid"])] = int(record["max_examples"])
        elif kind == "end":
            self.ended = True


def _slim(record: dict[str, Any]) -> dict[str, Any]:
    """Only what `_outcome` reads: 50,000 tests stay well inside the memory budget."""
    slim: dict[str, Any] = {
        "when": sys.intern(str(record["when"])),
        "outcome": sys.intern(str(record["outcome"])),
        "duration": record.get("duration", 0.0),
    }
    if record.get("wasxfail"):
        slim["wasxfail"] = True
    if record.get("message"):
        slim["message"] = record["message"]
    return slim


def _read_lines(fd: int, fold: _Fold, progress: Progress) -> None:
    done = 0
    with os.fdopen(fd, "rb") as stream:
        for raw in stream:
            text = raw.decode("utf-8", "replace").rstrip("\n")
            fold.feed(text)
            if '"when": "teardown"' in text:
                done += 1
                progress.update(done, len(fold.selected))


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def _interpret(
    fold: _Fold,
    canary_prefix: str,
    output: str,
    status: int | None,
    timed_out: bool,
    spec: RunSpec,
) -> RunResult:
    collected, selected, phases = fold.collected, fold.selected, fold.phases
    errors, examples, stray = fold.errors, fold.examples, fold.stray
    ended, seen_selected = fold.ended, fold.seen_selected
    unfinished = _unfinished(selected, phases, spec)
    closed = ended and seen_selected and not unfinished
    outcomes = {nodeid: _outcome(nodeid, by_when) for nodeid, by_when in phases.items()}
    canary_ids = {n for n in collected if canary_prefix in n}
    problem = _canary_problem(canary_ids, outcomes, canary_prefix, spec, closed)
    own = [n for n in collected if n not in canary_ids]
    return RunResult(
        collected=tuple(own),
        selected=tuple(n for n in selected if n not in canary_ids),
        outcomes={k: v for k, v in outcomes.items() if k not in canary_ids},
        collect_errors=tuple(errors),
        closed=closed,
        exit_status=status,
        timed_out=timed_out,
        output=output,
        canary_problem=problem,
        stray_lines=stray,
        unfinished=tuple(n for n in unfinished if n not in canary_ids),
        examples={k: v for k, v in examples.items() if k not in canary_ids},
    )


def _unfinished(
    selected: Iterable[str], phases: Mapping[str, Mapping[str, Any]], spec: RunSpec
) -> list[str]:
    """A closing record only counts once every selected test has reported its teardown:
    `pytest.exit()` or a KeyboardInterrupt from the patch still runs pytest_sessionfinish."""
    if spec.collect_only:
        return []
    return [n for n in selected if "teardown" not in phases.get(n, {})]


def _record(line: str, nonce: str | None) -> dict[str, Any] | None:
    """A record of this run, or None; `nonce=None` skips the tag check (progress only)."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError:
        return None
    if not isinstance(record, dict) or (nonce is not None and record.get("nonce") != nonce):
        return None
    return record


def _outcome(nodeid: str, by_when: Mapping[str, Mapping[str, Any]]) -> Outcome:
    duration = sum(float(r.get("duration", 0.0)) for r in by_when.values())
    failed = [r for r in by_when.values() if r["outcome"] == "failed"]
    if failed:
        first = failed[0]
        kind = "failed" if first["when"] == "call" else "error"
        if first["when"] == "call" and first.get("wasxfail"):
            kind = "xpassed"  # a strict xfail that passed
        return Outcome(nodeid, kind, str(first.get("message", "")), duration)
    skipped = next((r for r in by_when.values() if r["outcome"] == "skipped"), None)
    if skipped is not None:
        kind = "xfailed" if skipped.get("wasxfail") else "skipped"
        return Outcome(nodeid, kind, str(skipped.get("message", "")), duration)
    call = by_when.get("call")
    if call is None or "teardown" not in by_when:
        return Outcome(nodeid, "missing", "", duration)
    return Outcome(nodeid, "xpassed" if call.get("wasxfail") else "passed", "", duration)


def _canary_problem(
    canary_ids: set[str], outcomes: Mapping[str, Outcome], prefix: str, spec: RunSpec, closed: bool
) -> str | None:
    if not spec.canaries or spec.collect_only or not closed:
        return None
    must_pass = next((outcomes.get(n) for n in canary_ids if n.endswith("_must_pass")), None)
    must_fail = next((outcomes.get(n) for n in canary_ids if n.endswith("_must_fail")), None)
    if must_pass is None or must_fail is None:
        return "a canary test of the gate's own was not reported"
    if not must_pass.passed:
        return f"the must-pass canary was reported {must_pass.outcome}"
    if must_fail.outcome != "failed":
        return f"the must-fail canary was reported {must_fail.outcome}"
    return None
