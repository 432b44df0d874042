"""The test child's sandbox: bubblewrap (`bwrap`), a well-kept tool, not code of our own.

Inside it the exported tree and the run's scratch folder are writable; the rest of the file
system is mounted read-only; the temporary folders, the gate's HOME and (without network)
`/run` are empty folders of the sandbox's own, with the interpreter, its site folders,
planegate's package and the folders on PATH mounted read-only again where they lie under
one of them; `/proc` is the child's own PID namespace's (no process of the gate or above it
is visible); there is no network but loopback unless `sandbox.network` says so.

The pure core is `arguments` (the bwrap options from a `Layout`); the shell finds the program
(`PLANEGATE_BWRAP`, else /usr/bin/bwrap: never from PATH, the project's bin is on it), probes
once per way of starting it whether it can make its namespaces here, and holds the one choice
`--no-sandbox` makes for the whole command (`chosen`, `switched_off`).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from planegate.errors import ServiceUnavailable

PROGRAM_VARIABLE = "PLANEGATE_BWRAP"
# Folders (absolute, separated like PATH) the child may also write: planegate's own tests
# read what the child saw there. Never for a real gate: it opens a way out of the tree.
WRITABLE_VARIABLE = "PLANEGATE_SANDBOX_WRITABLE"
PROGRAM = "/usr/bin/bwrap"
# Names that look like a credential: a word of the variable's name, or two words in a row.
SECRET_WORDS = frozenset({"TOKEN", "TOKENS", "SECRET", "SECRETS", "PASSWORD", "PASSWD", "PAT"})
SECRET_WORDS |= {"CREDENTIAL", "CREDENTIALS", "APIKEY"}
SECRET_PAIRS = frozenset({("API", "KEY"), ("ACCESS", "KEY"), ("PRIVATE", "KEY"), ("AUTH", "KEY")})
_OFF = [False]


@dataclass(frozen=True)
class Layout:
    """What the sandbox is made of. `masked`: folders that are empty inside (existing ones);
    `keep`: paths mounted read-only again where they lie under a masked folder; `root`: the
    child runs as uid 0 (a synthetic /dev then: device nodes stay writable by their owner on
    a read-only mount)."""

    tree: str
    scratch: str
    masked: tuple[str, ...]
    keep: tuple[str, ...] = ()
    network: bool = False
    root: bool = False
    writable: tuple[str, ...] = ()  # more folders the child may write (WRITABLE_VARIABLE)


def arguments(layout: Layout) -> list[str]:
    """bwrap's options (no program, no command), in the order bwrap applies them."""
    args = ["--ro-bind", "/", "/", *_devices(layout.root), "--proc", "/proc"]
    writable = (layout.tree, layout.scratch, *layout.writable)
    masked = sorted(
        {m for m in layout.masked if m != "/" and not any(_within(m, w) for w in writable)},
        key=_depth,
    )
    for folder in _outermost(masked, layout.keep):
        args += ["--tmpfs", folder]
    for path in sorted(set(_kept(layout.keep, masked, writable)), key=_depth):
        args += ["--ro-bind-try", path, path]
    for folder in writable:
        args += ["--bind", folder, folder]
    return [*args, *_namespaces(layout.network, layout.root), "--chdir", layout.tree]


def _outermost(masked: list[str], keep: Iterable[str]) -> list[str]:
    """The masked folders without those inside another one (an opened repository under /tmp:
    already gone), unless a kept path holds it (that path then stays out, `_kept`)."""
    keep = list(keep)
    return [
        m
        for m in masked
        if not any(_within(m, o) for o in masked if o != m) or any(_within(m, k) for k in keep)
    ]


def _devices(root: bool) -> list[str]:
    if root:
        return ["--dev", "/dev"]
    return ["--dev-bind", "/dev", "/dev", "--tmpfs", "/dev/shm"]


def _namespaces(network: bool, root: bool) -> list[str]:
    """Its own PID and IPC namespaces (and network, unless asked for); bwrap's first process
    dies with the gate; no capability inside. A non-root child is in a user namespace anyway
    (bwrap needs one); it may not make another (a kernel surface, and a way to capabilities
    over its own mounts)."""
    net = [] if network else ["--unshare-net"]
    user = [] if root else ["--unshare-user", "--disable-userns"]
    return [*user, "--unshare-pid", "--unshare-ipc", *net, "--die-with-parent", "--cap-drop", "ALL"]


def _kept(keep: Iterable[str], masked: Iterable[str], writable: Iterable[str]) -> Iterator[str]:
    """The paths under a masked folder that neither hold a masked or writable folder nor lie
    in a writable one."""
    masked, writable = list(masked), list(writable)
    for path in keep:
        if not path.startswith("/") or path == "/":
            continue
        if not any(_within(path, m) for m in masked):
            continue
        if any(_within(m, path) for m in [*masked, *writable]):
            continue
        if any(_within(path, w) for w in writable):
            continue
        yield path


def overlaps(folder: str, layout: Layout) -> bool:
    """`folder` (relative: as the child's folder would resolve it) lies in, or holds, a folder
    the child may write."""
    if not os.path.isabs(folder):
        return True
    real = os.path.realpath(folder)
    writable = (layout.tree, layout.scratch, *layout.writable)
    return any(
        _within(real, w) or _within(w, real)
        for w in {*writable, *(os.path.realpath(w) for w in writable)}
    )


def _within(path: str, folder: str) -> bool:
    """`path` is `folder` or lies below it."""
    folder = folder.rstrip("/")
    return path == folder or path.startswith(folder + "/")


def _depth(path: str) -> tuple[int, str]:
    return path.count("/"), path


def secret_names(environ: Mapping[str, str]) -> list[str]:
    """The variables (set, not empty) whose name looks like a credential's."""
    found = []
    for name, value in environ.items():
        words = [w for w in name.upper().split("_") if w]
        pairs = set(itertools.pairwise(words))
        if value and (SECRET_WORDS.intersection(words) or SECRET_PAIRS & pairs):
            found.append(name)
    return sorted(found)


# the shell ---------------------------------------------------------------------------------


@contextlib.contextmanager
def chosen(off: bool, environ: Mapping[str, str]) -> Iterator[None]:
    """The sandbox switched off (`--no-sandbox`) for one command, or left on. Off, the command
    refuses to start while a variable that looks like a credential is set: nothing would
    keep the tests from reading it out of another process of this user."""
    if off:
        names = secret_names(environ)
        if names:
            raise ServiceUnavailable(
                f"--no-sandbox: {', '.join(names)} is set in this environment and the tests "
                "could read it from any process of this user without the sandbox",
                "unset it for this command, or run with the sandbox (bubblewrap)",
            )
    previous, _OFF[0] = _OFF[0], off
    try:
        yield
    finally:
        _OFF[0] = previous


def switched_off() -> bool:
    return _OFF[0]


def writable_folders(environ: Mapping[str, str]) -> tuple[str, ...]:
    """WRITABLE_VARIABLE's folders: absolute and existing only."""
    found = environ.get(WRITABLE_VARIABLE, "").split(os.pathsep)
    return tuple(f for f in found if os.path.isabs(f) and os.path.isdir(f))


def program(environ: Mapping[str, str]) -> str:
    return environ.get(PROGRAM_VARIABLE) or PROGRAM


def masked_folders(environ: Mapping[str, str], network: bool) -> tuple[str, ...]:
    """The temporary folders, the gate's HOME and, without network, /run (where the sockets
    of the system's daemons are), each as an existing real path."""
    found = ["/tmp", "/var/tmp", tempfile.gettempdir(), environ.get("HOME", "")]
    found += [] if network else ["/run"]
    real = (os.path.realpath(f) for f in found if f.startswith("/"))
    return tuple(dict.fromkeys(f for f in real if f != "/" and os.path.isdir(f)))


def kept(path_env: str, more: Iterable[str], other_user: bool = False) -> tuple[str, ...]:
    """What the child needs wherever it lies: the interpreter, its paths, planegate's
    package, the folders on PATH and `more` (the project's site folders, the tree's git
    folders: a test may run git); as given and as real paths.
    For a child of another user, only paths it could reach anyway (bwrap, in that user's
    namespace, cannot mount what it cannot reach)."""
    import planegate

    found = {sys.prefix, sys.base_prefix, sys.exec_prefix, *sysconfig.get_paths().values()}
    found |= {p for p in sys.path if p}
    found |= {str(Path(planegate.__file__).resolve().parent.parent), *more}
    found |= set(path_env.split(os.pathsep))
    found.add(os.path.dirname(os.path.realpath(sys.executable)))
    paths = {os.path.abspath(p) for p in found if p and os.path.isabs(p)}
    paths |= {os.path.realpath(p) for p in paths}
    return tuple(sorted(p for p in paths if not other_user or _open_to_others(p)))


def _open_to_others(path: str) -> bool:
    """Every folder above `path` is searchable by any user."""
    try:
        return all(os.stat(f).st_mode & 0o001 for f in Path(path).parents)
    except OSError:
        return False


def prefix(environ: Mapping[str, str], args_fd: int) -> list[str]:
    """The command before the interpreter: bwrap, reading its options from `args_fd` (the
    sandbox's first process then shows no path in its command line)."""
    return [program(environ), "--args", str(args_fd)]


def encoded(args: Iterable[str]) -> bytes:
    return b"".join(arg.encode() + b"\0" for arg in args)


def require(
    environ: Mapping[str, str], before: tuple[str, ...], user: int | None, layout: Layout
) -> None:
    """Raise ServiceUnavailable (exit 69) when the sandbox cannot start the way the child
    will be started (`before`: setpriv, say; `user`: the uid Popen switches to). Probed once
    per way of starting it, with the first run's layout: the interpreter must be reachable
    inside it too."""
    key = (program(environ), before, user)
    if key not in _PROBED:
        _PROBED[key] = _probe(*key, arguments(layout))
    if _PROBED[key]:
        raise ServiceUnavailable(
            f"the test sandbox cannot start: {_PROBED[key]}",
            "install bubblewrap (apt-get install bubblewrap) where user namespaces are allowed, "
            "or pass --no-sandbox (docs/security.md)",
        )


_PROBED: dict[tuple[str, tuple[str, ...], int | None], str] = {}


def _probe(program_path: str, before: tuple[str, ...], user: int | None, args: list[str]) -> str:
    """Why bwrap cannot make the sandbox here ("" when it can)."""
    if not sys.platform.startswith("linux"):
        return "it needs Linux"
    if not os.access(program_path, os.X_OK):
        return f"no bubblewrap at {program_path}"
    command = [*before, program_path, *args, "--", sys.executable, "-I", "-S", "-c", ""]
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            timeout=30,
            check=False,
            user=user,
            group=user,
            extra_groups=None if user is None else [],
            cwd="/",
        )
    except (OSError, subprocess.SubprocessError) as error:
        return f"{program_path}: {error}"
    if done.returncode == 0:
        return ""
    lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return f"{program_path} exited {done.returncode}" + (f": {lines[-1]}" if lines else "")
