"""Containment on the parent's side of a run (Linux; elsewhere only the process group).

- The parent becomes a child subreaper while a run is in progress (PR_SET_CHILD_SUBREAPER;
  runs may overlap in threads, each run's end then spares the others' children): a descendant
  that leaves the child's session or process group is re-parented to us, not to init, and is
  killed with everything else when the run ends, whatever its session or process group.
- The parent is not dumpable during the run (PR_SET_DUMPABLE 0): a process of the same user
  cannot read its /proc/<pid>/environ (where a CLI may hold GITHUB_TOKEN) or memory.
- As root, the child runs as an unprivileged user (65534) when the interpreter, the tree and
  the scratch folder can be made reachable for it; otherwise it drops its capabilities
  itself (`bootstrap.lock_down`).
- The interpreter's folders are compared before and after the run: a `.pth`, a module or a
  program written there would run in later runs (or in the gate itself).
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
from pathlib import Path
from typing import Any

PR_SET_DUMPABLE, PR_GET_DUMPABLE = 4, 3
# Folders the system's package manager writes while it installs: not watched (a root child
# could write there too; running it as another user is what stops that, see child_user).
SYSTEM_BIN = frozenset({"/usr/bin", "/usr/sbin", "/bin", "/sbin"})
PR_SET_CHILD_SUBREAPER, PR_GET_CHILD_SUBREAPER = 36, 37
NOBODY = 65534
HARNESS_PACKAGES = ("pytest", "_pytest", "pluggy", "hypothesis")


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


# Runs may overlap in one process (the base's collection runs in a thread alongside the head's
# run): the process-wide settings hold while any run is in progress, and a run that ends
# leaves the children of the others alone.
_LOCK = threading.Lock()
_GUARDS: dict[str, Any] = {"depth": 0, "saved": (None, None)}
_ACTIVE: set[int] = set()  # the child of every run in progress


@contextlib.contextmanager
def guarded() -> Iterator[frozenset[int]]:
    """Subreaper and not dumpable while a run is in progress; yields the children we had
    before this one started."""
    with _LOCK:
        if _GUARDS["depth"] == 0:
            _GUARDS["saved"] = (_prctl_get(PR_GET_DUMPABLE), _prctl_get(PR_GET_CHILD_SUBREAPER))
            _prctl_set(PR_SET_DUMPABLE, 0)
            _prctl_set(PR_SET_CHILD_SUBREAPER, 1)
        _GUARDS["depth"] += 1
    try:
        yield frozenset(_children(os.getpid(), _parents()))
    finally:
        with _LOCK:
            _GUARDS["depth"] -= 1
            if _GUARDS["depth"] == 0:
                dumpable, reaper = _GUARDS["saved"]
                if reaper is not None:
                    _prctl_set(PR_SET_CHILD_SUBREAPER, reaper)
                if dumpable is not None:
                    _prctl_set(PR_SET_DUMPABLE, dumpable)


def start(spawn: Callable[[], subprocess.Popen[bytes]]) -> subprocess.Popen[bytes]:
    """Start a run's child and count it as in progress, in one step: no other run's end
    kills it, not even one ending as it starts."""
    with _LOCK:
        proc = spawn()
        _ACTIVE.add(proc.pid)
    return proc


def kill_descendants(root: int, before: frozenset[int]) -> int:
    """SIGKILL the child `root`, everything below it and every process re-parented to us during
    the run (the children of other runs in progress excepted), until none is left; reap those
    that became our children. Returns how many."""
    me, killed = os.getpid(), set()
    try:
        for _ in range(200):
            with _LOCK:
                table, others = _parents(), frozenset(_ACTIVE - {root})
            roots = {root} | {p for p in _children(me, table) if p not in before | others}
            targets = _below(roots, table) | (roots & set(table))
            if not targets - {root} and root not in table:
                break
            for pid in targets:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            killed |= targets - {root}
            for pid in targets:
                if pid != root and table.get(pid) == me:
                    with contextlib.suppress(ChildProcessError):
                        os.waitpid(pid, os.WNOHANG)
            time.sleep(0.01)
    finally:
        with _LOCK:
            _ACTIVE.discard(root)
    return len(killed)


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


@functools.cache
def _nobody_runs_python() -> bool:
    try:
        done = subprocess.run(
            [sys.executable, "-s", "-c", "import pytest, planegate.runner.child"],
            user=NOBODY,
            group=NOBODY,
            extra_groups=[],
            cwd="/",
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
            capture_output=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


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
    """Readable and writable by the child's user: a throwaway tree or scratch folder."""
    for folder, _dirs, files in os.walk(root):
        os.chmod(folder, 0o777)
        for name in files:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                os.chmod(path, stat.S_IMODE(os.lstat(path).st_mode) | 0o666)


# the interpreter's folders -----------------------------------------------------------------


Snapshot = dict[str, tuple[int, int, int]]


def interpreter_snapshot(path_env: str) -> Snapshot:
    """Files whose change would outlive the run: site-packages' top level (`.pth`, modules,
    new packages), the harness packages' sources, the standard library's top level, and the
    programs on PATH and in the interpreter's bin folder. Bytecode caches are left out."""
    found: Snapshot = {}
    for folder in _site_folders():
        _scan(folder, found, recursive=False)
        for package in HARNESS_PACKAGES:
            _scan(os.path.join(folder, package), found, recursive=True)
    stdlib = sysconfig.get_paths()["stdlib"]
    _scan(stdlib, found, recursive=False)
    for folder in {os.path.join(sys.prefix, "bin"), *path_env.split(os.pathsep)}:
        if folder and os.path.realpath(folder) not in SYSTEM_BIN:
            _scan(folder, found, recursive=False)
    return found


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
