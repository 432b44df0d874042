"""Containment on the parent's side of a run (Linux; elsewhere only the process group).

- The parent becomes a child subreaper for the run (PR_SET_CHILD_SUBREAPER): a descendant
  that leaves the child's session or process group is re-parented to us, not to init, and is
  killed with everything else when the run ends, whatever its session or process group.
- The parent is not dumpable during the run (PR_SET_DUMPABLE 0): a process of the same user
  cannot read its /proc/<pid>/environ (where a CLI may hold GITHUB_TOKEN) or memory.
- With `PLANEGATE_CHILD_USER` (the action's container), the child runs as that user, started
  through `setpriv` with every capability dropped; the parent needs CAP_SETUID, CAP_SETGID and
  CAP_KILL (to kill what the child leaves) and refuses to run otherwise. Without it, as root,
  the child runs as an unprivileged user (65534) when the interpreter, the tree and the
  scratch folder can be made reachable for it; otherwise it drops its capabilities itself
  (`bootstrap.lock_down`). Any other user runs the child as itself: it cannot switch.
- The interpreter's folders are compared before and after the run: a `.pth`, a module or a
  program written there would run in later runs (or in the gate itself).

Runs may overlap (the base's run beside the head's, gate/flipped.py): the process-wide
settings are set by the first run under way and restored by the last, and a run that ends
never kills another run's child or what lies below it (`launch` registers each child).
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import site
import stat
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from planegate.errors import ServiceUnavailable
from planegate.runner.env import USER_VARIABLE

PR_SET_DUMPABLE, PR_GET_DUMPABLE = 4, 3
# Folders the system's package manager writes while it installs: not watched (a root child
# could write there too; running it as another user is what stops that, see child_user).
SYSTEM_BIN = frozenset({"/usr/bin", "/usr/sbin", "/bin", "/sbin"})
PR_SET_CHILD_SUBREAPER, PR_GET_CHILD_SUBREAPER = 36, 37
NOBODY = 65534
CAP_KILL, CAP_SETGID, CAP_SETUID, CAP_SETPCAP = 5, 6, 7, 8
SETPRIV = ("/usr/bin/setpriv", "/bin/setpriv")  # never from PATH: the project's bin is on it
HARNESS_PACKAGES = ("pytest", "_pytest", "pluggy", "hypothesis")
_LOCK = threading.Lock()
_GUARD: dict[str, int | None] = {"runs": 0, "dumpable": None, "reaper": None}
_ACTIVE: set[int] = set()  # the child of every run under way
_LAUNCHED = threading.Condition(_LOCK)  # notified at each child's start (`launch`)
_LAUNCHES = [0]  # how many children `launch` started in this process


def linux() -> bool:
    return sys.platform.startswith("linux") and os.path.isdir("/proc/self")


@functools.cache
def _libc() -> object | None:
    if not linux():
        return None
    import ctypes

    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def _prctl_get(option: int) -> int | None:
    libc = _libc()
    if libc is None:
        return None
    if option == PR_GET_CHILD_SUBREAPER:
        import ctypes

        value = ctypes.c_int(0)
        if libc.prctl(option, ctypes.byref(value), 0, 0, 0) != 0:  # type: ignore[attr-defined]
            return None
        return value.value
    result = int(libc.prctl(option, 0, 0, 0, 0))  # type: ignore[attr-defined]
    return None if result < 0 else result


def _prctl_set(option: int, value: int) -> None:
    libc = _libc()
    if libc is not None:
        libc.prctl(option, value, 0, 0, 0)  # type: ignore[attr-defined]


@contextlib.contextmanager
def guarded() -> Iterator[frozenset[int]]:
    """Subreaper and not dumpable for the run; yields the children we had before it."""
    with _LOCK:
        if not _GUARD["runs"]:
            _GUARD["dumpable"] = _prctl_get(PR_GET_DUMPABLE)
            _GUARD["reaper"] = _prctl_get(PR_GET_CHILD_SUBREAPER)
            _prctl_set(PR_SET_DUMPABLE, 0)
            _prctl_set(PR_SET_CHILD_SUBREAPER, 1)
        _GUARD["runs"] = int(_GUARD["runs"] or 0) + 1
        before = frozenset(_children(os.getpid(), _parents()))
    try:
        yield before
    finally:
        with _LOCK:
            _GUARD["runs"] = int(_GUARD["runs"] or 0) - 1
            if not _GUARD["runs"]:
                reaper, dumpable = _GUARD["reaper"], _GUARD["dumpable"]
                if reaper is not None:
                    _prctl_set(PR_SET_CHILD_SUBREAPER, reaper)
                if dumpable is not None:
                    _prctl_set(PR_SET_DUMPABLE, dumpable)


def launch(
    start: Callable[[], subprocess.Popen[bytes]], counted: bool = True
) -> subprocess.Popen[bytes]:
    """Start a run's child and register it, at once: no other run ending meanwhile takes it
    for a process its own run left behind. `counted`: its run starts now (`launches`); a
    child started ahead of its run is counted when it gets it (`count_launch`)."""
    with _LOCK:
        proc = start()
        _ACTIVE.add(proc.pid)
    if counted:
        count_launch()
    return proc


def count_launch() -> None:
    """A child's run starts: wake whoever waits for one (`wait_for_launch`)."""
    with _LOCK:
        _LAUNCHES[0] += 1
        _LAUNCHED.notify_all()


def launches() -> int:
    """How many children `launch` has started so far in this process."""
    with _LOCK:
        return _LAUNCHES[0]


def wait_for_launch(after: int, stop: Callable[[], bool]) -> None:
    """Wait until a child is started past the first `after`, or `stop()` (checked at `wake`)."""
    with _LAUNCHED:
        _LAUNCHED.wait_for(lambda: _LAUNCHES[0] > after or stop())


def wake() -> None:
    """Let every `wait_for_launch` check its `stop` again."""
    with _LAUNCHED:
        _LAUNCHED.notify_all()


def yield_cpu(leader: int, niceness: int) -> None:
    """Every process of the group `leader` started (a test child and what it starts, inside
    the sandbox too) at `niceness`, from now on: a run beside the scoring run yields the CPU
    to it from its interpreter's start, not only once it has its spec."""
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PGRP, leader, niceness)


def kill_descendants(root: int, before: frozenset[int]) -> int:
    """SIGKILL the child `root`, everything below it and every process re-parented to us during
    the run, until none is left; reap those that became our children. Returns how many.
    The children of other runs under way, and what lies below them, are left alone; so are
    our children in our own session (git, say): a run's processes can never join it."""
    me, killed = os.getpid(), set()
    try:
        for attempt in range(200):
            with _LOCK:
                table = _parents()
                others = _ACTIVE - {root}
                spared = others | _below(others, table)
                new = {p for p in _children(me, table) if p not in before and not _ours(p)}
                roots = ({root} | new) - spared
                targets = (_below(roots, table) | (roots & set(table))) - spared
                if not targets - {root} and root not in table:
                    break
                _kill(targets)
            killed |= targets - {root}
            for pid in targets:
                if pid != root and table.get(pid) == me:
                    with contextlib.suppress(ChildProcessError):
                        os.waitpid(pid, os.WNOHANG)
            time.sleep(_pause(attempt))
    finally:
        with _LOCK:
            _ACTIVE.discard(root)
    return len(killed)


def _pause(attempt: int) -> float:
    """Seconds to wait before looking again: a killed process is usually gone within a
    millisecond, so the first looks come soon; later ones 10 ms apart."""
    return min(0.01, 0.001 * (1 << min(attempt, 4)))


def _ours(pid: int) -> bool:
    """In this process's session: started by the gate itself, not left behind by a run (whose
    child starts a session of its own)."""
    try:
        return os.getsid(pid) == os.getsid(0)
    except OSError:
        return False


def _kill(pids: Iterable[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def _parents() -> dict[int, int]:
    """pid -> parent pid of every process (from /proc/<pid>/stat); empty off Linux."""
    table: dict[int, int] = {}
    if not linux():
        return table
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                text = handle.read().decode("ascii", "replace")
        except OSError:
            continue
        fields = text.rsplit(")", 1)[-1].split()
        if len(fields) > 1 and fields[1].isdigit():
            table[int(name)] = int(fields[1])
    return table


def _children(pid: int, table: Mapping[int, int]) -> set[int]:
    return {child for child, parent in table.items() if parent == pid}


def _below(roots: Iterable[int], table: Mapping[int, int]) -> set[int]:
    found: set[int] = set()
    todo = list(roots)
    while todo:
        for child in _children(todo.pop(), table):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


# an unprivileged child ---------------------------------------------------------------------


@dataclass(frozen=True)
class Launch:
    """How the child starts: a command before the interpreter (setpriv), the user Popen
    switches to (a root parent), the child's umask, whether it drops capabilities itself."""

    prefix: tuple[str, ...] = ()
    user: int | None = None
    umask: int = -1
    drop_caps: bool = False


def plan_launch(tree: Path, scratch: Path, wanted: tuple[int, int] | None) -> Launch:
    """The child as `wanted` (uid, gid) through setpriv, else as `child_user` decides."""
    if wanted is None:
        user = child_user(tree, scratch)
        return Launch(user=user, drop_caps=linux() and os.geteuid() == 0 and user is None)
    uid, gid = wanted
    caps = effective_capabilities()
    program = next((path for path in SETPRIV if os.access(path, os.X_OK)), None)
    why = _cannot_switch(caps, program)
    if not why and not all(_open_for_others(f) for f in [*tree.parents, *scratch.parents]):
        why = "the run's folders cannot be made reachable for that user"
    if why or program is None:
        raise ServiceUnavailable(
            f"the tests cannot run as user {uid}:{gid} (PLANEGATE_CHILD_USER): {why}",
            "the action's phase-1 container grants what this needs; elsewhere leave it unset",
        )
    for path in (tree, scratch):
        _share(path)
    bounding = ("--bounding-set=-all",) if caps >> CAP_SETPCAP & 1 else ()
    prefix = (program, f"--reuid={uid}", f"--regid={gid}", "--clear-groups")
    prefix += ("--inh-caps=-all", "--ambient-caps=-all", *bounding, "--no-new-privs", "--")
    return Launch(prefix=prefix, umask=0)  # what the child leaves, the parent can remove


def _cannot_switch(caps: int, program: str | None) -> str:
    if not linux():
        return "not Linux"
    if program is None:
        return "no setpriv in /usr/bin or /bin"
    needed = {"CAP_SETUID": CAP_SETUID, "CAP_SETGID": CAP_SETGID, "CAP_KILL": CAP_KILL}
    missing = [name for name, bit in needed.items() if not caps >> bit & 1]
    return f"this process lacks {', '.join(missing)}" if missing else ""


def effective_capabilities() -> int:
    """This process's effective capability set (a bit mask; 0 off Linux)."""
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("CapEff:"):
                    return int(line.split()[1], 16)
    except (OSError, ValueError, IndexError):
        pass
    return 0


def child_user(tree: Path, scratch: Path) -> int | None:
    """The uid the child runs as: NOBODY when we are root and it can work there, else None."""
    if not linux() or os.geteuid() != 0 or not _nobody_runs_python():
        return None
    folders = [*tree.parents, *scratch.parents]
    if not all(_open_for_others(folder) for folder in folders):
        return None
    for path in (tree, scratch):
        _share(path)
    return NOBODY


_EARLY: dict[str, subprocess.Popen[bytes] | None] = {}  # the user check, started ahead


def start_user_check(environ: Mapping[str, str]) -> None:
    """Start now, in a process of its own, the check `child_user` makes of a root parent
    (whether the unprivileged user can run the child's Python: a whole interpreter start that
    imports pytest): it runs beside the gate's git work and configuration instead of before
    the child. Nothing when the child's user is configured (`PLANEGATE_CHILD_USER`) or the
    check's answer is known; `_nobody_runs_python` takes the process's answer."""
    if not linux() or os.geteuid() != 0 or environ.get(USER_VARIABLE, "").strip():
        return
    with _LOCK:
        if "nobody" in _EARLY or _nobody_runs_python.cache_info().currsize:
            return
        _EARLY["nobody"] = _nobody_check()


def user_check_done(environ: Mapping[str, str]) -> bool:
    """Whether `child_user` answers at once: no check is needed, or its answer is in (the
    check started ahead has ended)."""
    if not linux() or os.geteuid() != 0 or environ.get(USER_VARIABLE, "").strip():
        return True
    with _LOCK:
        if _nobody_runs_python.cache_info().currsize:
            return True
        early = _EARLY.get("nobody")
    return early is None or early.poll() is not None


def _nobody_check() -> subprocess.Popen[bytes] | None:
    try:
        return subprocess.Popen(
            [sys.executable, "-s", "-c", "import pytest, planegate.runner.child.main"],
            user=NOBODY,
            group=NOBODY,
            extra_groups=[],
            cwd="/",
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None


@functools.cache
def _nobody_runs_python() -> bool:
    with _LOCK:
        started = _EARLY.pop("nobody", None) if "nobody" in _EARLY else _nobody_check()
    if started is None:
        return False
    try:
        return started.wait(timeout=60) == 0
    except subprocess.TimeoutExpired:
        started.kill()
        started.wait()
        return False


def _open_for_others(folder: Path) -> bool:
    """Traversable by other users; a temporary folder of ours is made so (execute bit only)."""
    try:
        info = folder.stat()
    except OSError:
        return False
    if info.st_mode & stat.S_IXOTH:
        return True
    temp = Path(tempfile.gettempdir()).resolve()
    if info.st_uid == os.geteuid() and temp in folder.resolve().parents:
        folder.chmod(stat.S_IMODE(info.st_mode) | stat.S_IXOTH)
        return True
    return False


def _share(root: Path) -> None:
    """Readable and writable by the child's user: a throwaway tree or scratch folder. What an
    earlier child of another user created there is its own already (a non-root parent cannot
    change it, and need not)."""
    me = os.geteuid()
    for folder, _dirs, files in os.walk(root):
        if me == 0 or os.lstat(folder).st_uid == me:
            os.chmod(folder, 0o777)
        for name in files:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            if not stat.S_ISLNK(info.st_mode) and (me == 0 or info.st_uid == me):
                os.chmod(path, stat.S_IMODE(info.st_mode) | 0o666)


# the interpreter's folders -----------------------------------------------------------------


Snapshot = dict[str, tuple[int, int, int]]


def interpreter_snapshot(path_env: str, site: Iterable[str] = ()) -> Snapshot:
    """Files whose change would outlive the run (`interpreter_folders`). Bytecode caches are
    left out."""
    return snapshot_of(interpreter_folders(path_env, site))


def snapshot_of(folders: Iterable[tuple[str, bool]]) -> Snapshot:
    """The files of `folders` (each with whether to read below it), bytecode caches left out."""
    found: Snapshot = {}
    for folder, recursive in folders:
        _scan(folder, found, recursive)
    return found


def interpreter_folders(path_env: str, site: Iterable[str] = ()) -> list[tuple[str, bool]]:
    """The folders the snapshot reads, each with whether it reads below it: site-packages' top
    level (`.pth`, modules, new packages) and the project's site folders', the harness
    packages' sources, the standard library's top level, and the programs on PATH and in the
    interpreter's bin folder."""
    folders = [(folder, False) for folder in site]
    for folder in _site_folders():
        folders.append((folder, False))
        folders += [(os.path.join(folder, package), True) for package in HARNESS_PACKAGES]
    folders.append((sysconfig.get_paths()["stdlib"], False))
    for folder in sorted({os.path.join(sys.prefix, "bin"), *path_env.split(os.pathsep)}):
        if folder and os.path.realpath(folder) not in SYSTEM_BIN:
            folders.append((folder, False))
    return folders


def changed(before: Snapshot, after: Snapshot) -> list[str]:
    return sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))


def protected_folders(path_env: str) -> list[str]:
    """Where production code may not write, in the child's audit hook: the interpreter and
    the folders on PATH (not one that holds the temporary folder, `/` say)."""
    folders = {sys.prefix, sys.base_prefix, sys.exec_prefix, *_site_folders()}
    folders |= {p for p in path_env.split(os.pathsep) if p.startswith("/")}
    temp = os.path.realpath(tempfile.gettempdir()) + "/"
    real = {os.path.realpath(p) for p in folders if p}
    return sorted(p for p in real if not temp.startswith(p.rstrip("/") + "/"))


def _site_folders() -> list[str]:
    folders = set(site.getsitepackages()) if hasattr(site, "getsitepackages") else set()
    paths = sysconfig.get_paths()
    folders |= {paths["purelib"], paths["platlib"]}
    user = site.getusersitepackages() if hasattr(site, "getusersitepackages") else ""
    if user:
        folders.add(user)
    return sorted(f for f in folders if os.path.isdir(f))


def _scan(folder: str, found: Snapshot, recursive: bool) -> None:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if entry.name == "__pycache__" or entry.name.endswith((".pyc", ".pyo")):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if entry.is_dir(follow_symlinks=False):
            found[entry.path] = (0, 0, info.st_ino)
            if recursive:
                _scan(entry.path, found, recursive=True)
        else:
            found[entry.path] = (info.st_mtime_ns, info.st_size, info.st_ino)
