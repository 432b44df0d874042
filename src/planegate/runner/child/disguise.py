"""What makes the child look like a plain `python -m pytest` run of the tree (child side).

The parent starts `python - <padding>` and writes the bootstrap script to its stdin; once the
harness is imported, `look_plain` makes every trace of that read as `python -m pytest` does:
`sys.argv`, `sys.orig_argv`, the process's command line (`/proc/self/cmdline`, rewritten in
place: the padding makes the two the same length), the `__main__` module (pytest's
`__main__.py`, run as `runpy` runs it), stdin (`/dev/null` instead of the script's pipe) and
the environment variables the gate set only for the interpreter's start. `hide_ini` is a
plugin that removes the gate-written ini once pytest has read it, before any conftest or
module of the tree is imported. docs/runner.md ("How the run differs from plain pytest")
lists what stays different, and why.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterable
from typing import Any

MODULE_ARGS = ("-m", "pytest")


def padding() -> str:
    """The argument after `-` that gives the command line the length of `-m pytest`."""
    return "_" * (sum(len(arg) + 1 for arg in MODULE_ARGS) - len("-") - 2)


def look_plain(hidden_env: Iterable[str]) -> None:
    import importlib.util

    spec = importlib.util.find_spec("pytest.__main__")
    if spec is None or spec.origin is None or spec.loader is None:
        return
    program = sys.orig_argv[0] if getattr(sys, "orig_argv", None) else sys.executable
    _rewrite_cmdline(list(sys.orig_argv) if hasattr(sys, "orig_argv") else [], program)
    if hasattr(sys, "orig_argv"):
        sys.orig_argv = [program, *MODULE_ARGS]
    sys.argv[:] = [spec.origin]
    _as_pytest_main(spec)
    _stdin_from_null()
    for name in hidden_env:
        os.environ.pop(name, None)


def _rewrite_cmdline(current: list[str], program: str) -> None:
    """/proc/self/cmdline reads the process's own argument memory: write `python -m pytest`
    over `python - <padding>`, the same number of bytes."""
    if not sys.platform.startswith("linux") or not current:
        return
    old = b"".join(os.fsencode(arg) + b"\0" for arg in current)
    new = b"".join(os.fsencode(arg) + b"\0" for arg in (program, *MODULE_ARGS))
    if len(old) != len(new):
        return
    try:
        with open("/proc/self/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        start, end = int(fields[45]), int(fields[46])  # arg_start, arg_end (proc(5): 48, 49)
    except (OSError, IndexError, ValueError):
        return
    import ctypes

    if end - start != len(old) or ctypes.string_at(start, len(old)) != old:
        return
    ctypes.memmove(start, new, len(new))


def _as_pytest_main(spec: Any) -> None:
    """`__main__` holds what `python -m pytest` gives it: runpy's names, then the names
    pytest's `__main__.py` defines (run under its own name, so it starts nothing)."""
    names = vars(sys.modules["__main__"])  # the bootstrap script binds no name of its own
    names.update(
        __name__="pytest.__main__",
        __file__=spec.origin,
        __cached__=spec.cached,
        __doc__=None,
        __loader__=spec.loader,
        __package__="pytest",
        __spec__=spec,
    )
    exec(spec.loader.get_code(spec.name), names)
    names["__name__"] = "__main__"


def _stdin_from_null() -> None:
    """The script came on stdin, which is at its end: what is left there is /dev/null, as a
    run started with nothing to read has it."""
    fd = os.open(os.devnull, os.O_RDONLY)
    if fd != 0:
        os.dup2(fd, 0)
        os.close(fd)


def hide_ini(path: str) -> dict[str, Callable[..., Any]]:
    """A plugin's hooks: the gate-written ini leaves the tree once pytest has read it, before
    the first conftest (and so the first module of the tree) is imported."""

    def pytest_load_initial_conftests(
        *, _path: str = path, _unlink: Any = os.unlink, _quiet: Any = contextlib.suppress
    ) -> None:
        with _quiet(OSError):
            _unlink(_path)

    return {"pytest_load_initial_conftests": pytest_load_initial_conftests}
