"""The head's test child, started before the gate knows its run.

A test child spends its first few hundred milliseconds starting its interpreter and importing
the harness (pytest, pluggy, Hypothesis), none of which depends on what it will run; the gate
spends as long importing itself and reading git before the head's run is known. `park` starts
a child at the gate's start, on a thread, for folders made ahead (an empty tree the head's
worktree is later exported into, a scratch folder), with the environment and sandbox the run
will most likely want: main's configuration is not read yet, so the configuration's
defaults (no extra environment variables, no network) stand in for it, with what main's
`tox.ini` sets (one `git show`; never the patch's files).

When the head's run starts, `session.run` plans its child as always and `take`s the waiting
one only if that plan is equal in every part (command, sandbox, environment, user, folders):
a child that started otherwise is killed and a new one started. So the waiting child is one
the run could have started itself, only earlier; the run's spec (what to run and trust) goes
to it on its own pipe as to any child. Until then it runs planegate's own code and pytest's
imports in a tree still empty (Hypothesis's, which run installed entry points, come after).
`ahead` kills an unused one when the command ends.

A run can ask for a spare (`spare`): once its own child is started, another is started the
same way for the next run in the same tree (the fixture probe's, after the head's scoring
run), on the same terms: the next run takes it only if it plans the same child.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from planegate.config import defaults
from planegate.repo import gitenv, opened
from planegate.runner import contain, launch
from planegate.runner import env as child_env

_LOCK = threading.Lock()


@dataclass
class _Waiting:
    tree: Path  # the tree of the run it waits for
    folder: Path | None  # made ahead, holding `tree` until the head's tree is exported into it
    scratch: Path
    ready: threading.Event = field(default_factory=threading.Event)  # started, or failed to
    launched: threading.Event = field(default_factory=threading.Event)  # its process exists
    started: launch.Started | None = None


_SLOT: list[_Waiting] = []
_OPEN: list[bool] = []  # an `ahead` block runs: a spare started now is discarded at its end


@contextlib.contextmanager
def ahead(root: Path, environ: Mapping[str, str], base: str) -> Iterator[None]:
    """A child parked for the head's run of the gate in `root` against `base` while the block
    runs; an unused one is killed and its folders removed at the end."""
    park(root, environ, base)
    _OPEN.append(True)
    try:
        yield
    finally:
        _OPEN.pop()
        discard()


def park(root: Path, environ: Mapping[str, str], base: str) -> None:
    """Start the parked child on a thread of its own (the caller goes on importing)."""
    folder = Path(tempfile.mkdtemp())
    (folder / "tree").mkdir()
    waiting = _Waiting(folder / "tree", folder, Path(tempfile.mkdtemp()))
    with _LOCK:
        _SLOT.append(waiting)
    environ = dict(environ)
    # asked here, both at once, before the caller's imports hold the interpreter lock: on the
    # thread they waited for it after each step of each git process
    env = {**environ, **gitenv.hardened(environ)}
    commands: list[tuple[str, ...]] = [("rev-parse", "--show-toplevel", "--git-common-dir")]
    if not base.startswith("-"):
        commands.append(("show", f"{base}:tox.ini"))
    named, *shown = _gits(root, env, commands)
    _name_repository(root, named)
    ci = child_env.ci_settings_of((shown[0] if shown else None) or "")

    def plan() -> launch.Plan:
        return launch.plan_for(
            waiting.tree, waiting.scratch, environ, (), defaults.SANDBOX_NETWORK, ci, probe=False
        )

    def probe(planned: launch.Plan) -> None:
        launch.require_sandbox(planned, environ)

    threading.Thread(target=_start, args=(waiting, plan, probe), name="parked", daemon=True).start()
    if contain.user_check_done(environ):
        # a few ms alone; beside the caller's imports, which hold the interpreter lock, the
        # start waited for the lock after each of its steps (unless it waits for the check
        # whether the unprivileged user can run the interpreter: the caller goes on then)
        waiting.launched.wait()


def spare(
    tree: Path,
    parent: Mapping[str, str],
    allow: Iterable[str],
    network: bool,
    ci: Mapping[str, str],
) -> None:
    """A child for the next run in `tree`, planned as `session.run` plans one (`ci`: what the
    tree's tox configuration sets, read by the caller before the tree's opens were watched):
    started on a thread now, while the caller's run goes on. Only inside an `ahead` block
    (which discards it if no run takes it), and only when no child waits."""
    with _LOCK:
        if not _OPEN or _SLOT:
            return
        waiting = _Waiting(tree, None, Path(tempfile.mkdtemp()))
        _SLOT.append(waiting)
    parent, allow, ci = dict(parent), tuple(allow), dict(ci)

    def plan() -> launch.Plan:
        return launch.plan_for(tree, waiting.scratch, parent, allow, network, ci)

    threading.Thread(target=_start, args=(waiting, plan), name="spare", daemon=True).start()


def _start(
    waiting: _Waiting,
    plan: Callable[[], launch.Plan],
    probe: Callable[[launch.Plan], None] | None = None,
) -> None:
    """Start the child, then stay until its run ends: the sandbox kills its process when the
    thread that started it ends (bwrap's --die-with-parent is the kernel's parent-death
    signal, which follows the starting thread). `probe`: whether the sandbox can start here,
    asked once the child is started, while it starts (a sandbox that cannot start leaves
    nothing running: bwrap exits before the interpreter)."""
    ended = threading.Event()
    try:
        planned = plan()
        waiting.started = launch.start(planned)
        waiting.started.stack.callback(ended.set)
        waiting.launched.set()
        if probe is not None:
            probe(planned)
    except Exception:  # the run starts its own child, and reports what fails
        if waiting.started is not None:
            waiting.started.discard()
        waiting.started = None
        ended.set()
    finally:
        waiting.launched.set()
        waiting.ready.set()
    ended.wait()


def _name_repository(root: Path, named: str | None) -> None:
    """The repository the gate opens next, named as `repo/git.py` will name it (its work tree
    top and git common dir, `named`: `git rev-parse`'s lines): the sandbox hides it from the
    start."""
    lines = (named or "").split("\n")
    if len(lines) >= 2 and lines[0] and lines[1]:
        opened.add(lines[0], os.path.join(root, lines[1]))


def _gits(root: Path, env: Mapping[str, str], commands: list[tuple[str, ...]]) -> list[str | None]:
    """Each git command's output, None where it fails, the commands run at once (the tree's own
    git, as the gate runs it: no hooks, no system or global configuration)."""
    running: list[subprocess.Popen[str] | None] = []
    for args in commands:
        try:
            running.append(
                subprocess.Popen(
                    ["git", *args],
                    cwd=root,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    text=True,
                    env=dict(env),
                )
            )
        except OSError:
            running.append(None)
    found: list[str | None] = []
    for process in running:
        if process is None:
            found.append(None)
            continue
        out, _ = process.communicate()
        found.append(out if process.returncode == 0 else None)
    return found


def reserved() -> Path | None:
    """The empty folder the head's tree is to be exported into, while a child waits for it."""
    with _LOCK:
        return _SLOT[0].tree if _SLOT and _SLOT[0].folder is not None else None


def scratch_for(tree: Path) -> Path | None:
    """The waiting child's scratch folder when it waits for a run in `tree`."""
    with _LOCK:
        waiting = _SLOT[0] if _SLOT and _SLOT[0].tree == tree else None
    if waiting is None:
        return None
    waiting.ready.wait()
    return waiting.scratch if waiting.started is not None else None


def take(plan: launch.Plan) -> launch.Started | None:
    """The waiting child, for a run in its tree, when it was started as `plan` says and is
    still alive; else None, and a child waiting for that tree is killed (it waits no more)."""
    with _LOCK:
        waiting = _SLOT[0] if _SLOT and _SLOT[0].tree == plan.tree else None
        if waiting is not None:
            _SLOT.clear()
    if waiting is None:
        return None
    waiting.ready.wait()
    started = waiting.started
    if started is None:  # none started: the run made a scratch folder of its own
        shutil.rmtree(waiting.scratch, ignore_errors=True)
        return None
    if started.plan == plan and started.alive():
        started.parked = True
        return started
    started.discard()
    return None


def discard() -> None:
    """Kill a child still waiting and remove its folders."""
    with _LOCK:
        waiting = _SLOT.pop() if _SLOT else None
    if waiting is None:
        return
    waiting.ready.wait()
    if waiting.started is not None:
        waiting.started.discard()
    if waiting.folder is not None:
        shutil.rmtree(waiting.folder, ignore_errors=True)
    shutil.rmtree(waiting.scratch, ignore_errors=True)
