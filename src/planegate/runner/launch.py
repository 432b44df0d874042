"""Starting a test child, apart from what it runs.

What the child is started with is fixed at its start: its command (the sandbox's options
among it), environment, folders, user. What it runs (its spec) comes later, on a pipe of its
own, and the child imports pytest before it reads it (`child/main.py`). So a child can
be started before its run is known (`runner/parked.py`) and its start-up overlaps the gate's:
a `Plan` says how a child starts, and a started child serves a run whose plan is equal.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from planegate.repo import opened
from planegate.runner import collector, contain, sandbox
from planegate.runner import env as child_env
from planegate.runner.child.disguise import padding
from planegate.runner.child.main import SCRIPT

PIPE_SIZE = 1 << 20  # the result stream's pipe


@dataclass(frozen=True)
class Plan:
    """Everything a child's start fixes: equal plans start indistinguishable children."""

    tree: Path
    scratch: Path
    env: Mapping[str, str] = field(hash=False)
    how: contain.Launch
    box: tuple[str, sandbox.Layout] | None  # None with `--no-sandbox`
    site: tuple[str, ...]  # the project's site folders


def plan_for(  # noqa: PLR0913 - a child's start, and whether its sandbox is probed now
    tree: Path,
    scratch: Path,
    parent: Mapping[str, str],
    allow: Iterable[str],
    network: bool,
    ci: Mapping[str, str] | None = None,
    *,
    probe: bool = True,
) -> Plan:
    """How a child for `tree` starts: the environment cut from `parent` (with `allow`, and
    `ci`, by default what the tree's tox configuration sets), its user, its sandbox. Raises
    ServiceUnavailable when the sandbox cannot start here; with `probe` False that is asked
    later (`require_sandbox`), as the child started ahead of its run does (runner/parked.py)."""
    site = child_env.project_site(parent)
    home = scratch / "home"
    home.mkdir(exist_ok=True)
    ci = child_env.ci_settings(tree) if ci is None else ci
    env = child_env.minimal(parent, str(home), allow, str(tree), ci)
    how = contain.plan_launch(tree, scratch, child_env.child_user(parent))
    box = _box(tree, scratch, parent, site, network, how)
    plan = Plan(tree, scratch, env, how, box, site)
    if probe:
        require_sandbox(plan, parent)
    return plan


def require_sandbox(plan: Plan, parent: Mapping[str, str]) -> None:
    """Raise ServiceUnavailable when the plan's sandbox cannot start here (probed once per way
    of starting it: runner/sandbox.py)."""
    if plan.box is not None:
        sandbox.require(parent, plan.how.prefix, plan.how.user, plan.box[1])


def _box(
    tree: Path,
    scratch: Path,
    parent: Mapping[str, str],
    site: Iterable[str],
    network: bool,
    how: contain.Launch,
) -> tuple[str, sandbox.Layout] | None:
    """The sandbox the child runs in (the bwrap program and its layout); None with
    `--no-sandbox`. The repositories the gate opened are masked like HOME: a program a test
    starts cannot read main's checkout."""
    if sandbox.switched_off():
        return None
    root = not how.prefix and (os.geteuid() if how.user is None else how.user) == 0
    other = bool(how.prefix) or how.user is not None  # the child is not this process's user
    layout = sandbox.Layout(
        tree=str(tree),
        scratch=str(scratch),
        masked=(*sandbox.masked_folders(parent, network), *opened.folders()),
        keep=sandbox.kept(parent.get("PATH", ""), [*site, *git_dirs(tree)], other),
        network=network,
        root=root,
        writable=sandbox.writable_folders(parent),
    )
    return sandbox.program(parent), layout


def git_dirs(tree: Path) -> list[str]:
    """The repository's git folder, from the worktree's `.git` file: hooks written there would
    run in the gate's own git commands."""
    try:
        text = (tree / ".git").read_text("utf-8")
    except OSError:
        return []
    if not text.startswith("gitdir:"):
        return []
    gitdir = Path(text.split(":", 1)[1].strip())
    try:
        common = (gitdir / (gitdir / "commondir").read_text("utf-8").strip()).resolve()
    except OSError:
        common = gitdir.resolve()
    return [str(common), str(gitdir.resolve())]


@dataclass
class Started:
    """A child started from a plan, waiting for its spec. `stack` holds what lasts until its
    run ends (the containment guard, the output log)."""

    plan: Plan
    proc: subprocess.Popen[bytes]
    results: int  # the parent's end of the result stream
    child_end: int  # the result stream's descriptor in the child
    spec_end: int  # the parent's end of the spec pipe
    before: contain.Snapshot | None  # the interpreter's folders before it (None: not compared)
    children: frozenset[int]  # this process's children before it
    log: BinaryIO
    stack: contextlib.ExitStack
    at: float = field(default_factory=time.monotonic)  # when it started
    waited: float = 0.0  # seconds from its start to its spec
    parked: bool = False  # started before its run was known (runner/parked.py)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def discard(self) -> None:
        """Kill it and what it started, and release what it holds (a child never used)."""
        with self.stack:
            with contextlib.suppress(OSError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()  # reaped first: a dead child is no longer in the process table
            contain.kill_descendants(self.proc.pid, self.children)
            for fd in (self.results, self.spec_end):
                with contextlib.suppress(OSError):
                    os.close(fd)


def start(plan: Plan) -> Started:
    """The child started and given its script; it imports pytest and waits for its spec."""
    stack = contextlib.ExitStack()
    read_fd, write_fd = os.pipe()
    widen(write_fd)
    spec_read, spec_write = os.pipe()
    before = interpreter_snapshot(plan)
    command, args_fd = _command(plan.how, plan.box)
    fds = (write_fd, spec_read) if args_fd is None else (write_fd, spec_read, args_fd)
    try:
        log = stack.enter_context((plan.scratch / "output.log").open("wb"))
        children = stack.enter_context(contain.guarded())
        proc = contain.launch(
            lambda: subprocess.Popen(
                command,
                cwd=plan.tree,
                env=dict(plan.env),
                stdin=subprocess.PIPE,
                stdout=log,
                stderr=subprocess.STDOUT,
                pass_fds=fds,
                start_new_session=True,
                user=plan.how.user,
                group=plan.how.user,
                extra_groups=None if plan.how.user is None else [],
                umask=plan.how.umask,
            ),
            counted=False,
        )
    except BaseException:
        stack.close()
        for fd in (read_fd, spec_write, *fds):
            os.close(fd)
        raise
    for fd in fds:
        os.close(fd)
    _script(proc, SCRIPT.format(fd=spec_read))
    return Started(plan, proc, read_fd, write_fd, spec_write, before, children, log, stack)


def interpreter_snapshot(plan: Plan) -> contain.Snapshot | None:
    """The interpreter's folders as a child of `plan` could change them (compared after its
    run); None when it cannot: the sandbox mounts them read-only unless one of them lies in,
    or holds, a folder it lets the child write (its tree, its scratch folder, those named in
    PLANEGATE_SANDBOX_WRITABLE)."""
    folders = contain.interpreter_folders(plan.env["PATH"], plan.site)
    if plan.box is not None and not any(
        sandbox.overlaps(folder, plan.box[1]) for folder, _ in folders
    ):
        return None
    return contain.snapshot_of(folders)


def _command(
    how: contain.Launch, box: tuple[str, sandbox.Layout] | None
) -> tuple[list[str], int | None]:
    """The child's command line, and the descriptor bwrap reads its options from."""
    python = [sys.executable, "-", padding()]
    if box is None:
        return [*how.prefix, *python], None
    program, layout = box
    read, write = os.pipe()
    with os.fdopen(write, "wb") as handle:  # a few KiB: the pipe holds them
        handle.write(sandbox.encoded(sandbox.arguments(layout)))
    return [*how.prefix, program, "--args", str(read), *python], read


def widen(fd: int) -> None:
    """A pipe of 1 MiB where Linux allows it (64 KiB by default): on a busy machine the
    parent's reader runs late in bursts, and the child then waits in its write."""
    import fcntl  # POSIX only, and F_SETPIPE_SZ Linux only: elsewhere the pipe stays as it is

    if hasattr(fcntl, "F_SETPIPE_SZ"):
        with contextlib.suppress(OSError):
            fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_SIZE)


def _script(proc: subprocess.Popen[bytes], script: str) -> None:
    assert proc.stdin is not None
    try:
        proc.stdin.write(script.encode())
        proc.stdin.close()
    except BrokenPipeError:
        pass


def send_spec(started: Started, spec: bytes) -> None:
    """The run's spec to the child (it closes the pipe: the child reads to its end); the
    gate's set-up is over then, and the collector back on (`collector.py`)."""
    collector.resume()
    contain.count_launch()
    started.waited = time.monotonic() - started.at
    with contextlib.suppress(BrokenPipeError), os.fdopen(started.spec_end, "wb") as handle:
        handle.write(spec)
