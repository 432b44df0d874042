"""The child's set-up before pytest runs: privileges, harness imports, the project's site,
sys.path, names.

Runs inside the child (see `runner/child/main.py` for the order). Linux-specific parts (prctl,
capabilities) are skipped elsewhere; docs/runner.md says what each one buys.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from typing import Any

HARNESS = ("pytest", "_pytest", "pluggy", "hypothesis")
NO_PLUGINS = "HYPOTHESIS_NO_PLUGINS"  # Hypothesis's import then runs no entry point
PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
PR_SET_SECUREBITS = 28
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
SECBITS_LOCKED_NOROOT = 0x2F  # NOROOT, NO_SETUID_FIXUP and KEEP_CAPS off, each locked


def lock_down(drop_caps: bool) -> None:
    """Make this process unreadable by its own descendants (PR_SET_DUMPABLE 0: a subprocess of
    the tree cannot read its memory or descriptors through /proc), forbid gaining privileges
    through set-uid programs, and, when running as root, drop every capability for good: root
    without CAP_SYS_PTRACE cannot read another process's /proc/<pid>/environ or memory."""
    libc = _libc()
    if libc is None:
        return
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    if drop_caps:
        _drop_capabilities(libc)


def yield_cpu(niceness: int) -> None:
    """This process's niceness at least `niceness` (its parent sets it as the child starts,
    when it can: the value is the same either way)."""
    with contextlib.suppress(OSError):
        if os.getpriority(os.PRIO_PROCESS, 0) < niceness:
            os.setpriority(os.PRIO_PROCESS, 0, niceness)


def _libc() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def _drop_capabilities(libc: Any) -> None:
    import ctypes

    prctl = libc.prctl
    prctl(PR_SET_SECUREBITS, SECBITS_LOCKED_NOROOT, 0, 0, 0)
    with open("/proc/sys/kernel/cap_last_cap") as handle:
        last = int(handle.read().strip() or 40)
    for cap in range(last + 1):
        prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)

    class Header(ctypes.Structure):
        _fields_ = (("version", ctypes.c_uint32), ("pid", ctypes.c_int))

    class Data(ctypes.Structure):
        _fields_ = (
            ("effective", ctypes.c_uint32),
            ("permitted", ctypes.c_uint32),
            ("inheritable", ctypes.c_uint32),
        )

    header = Header(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
    data = (Data * 2)()
    if libc.capset(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")


def import_ahead() -> bool:
    """pytest, every plugin module pytest loads by default, pluggy and Hypothesis: importing
    them runs no code but theirs (pytest reads plugins' entry points only once configured;
    Hypothesis's import, which runs the `hypothesis` entry points of installed distributions,
    holds them back here), so a child does it before it knows its run (runner/parked.py).
    True when Hypothesis's entry points were held back: `import_harness` runs them."""
    import _pytest.config
    import pluggy  # noqa: F401
    import pytest  # noqa: F401

    builtin = (*_pytest.config.essential_plugins, *_pytest.config.default_plugins)
    for name in [f"_pytest.{name}" for name in builtin]:
        importlib.import_module(name)
    if "hypothesis" in sys.modules or os.environ.get(NO_PLUGINS):
        return False  # imported already, or the project's own setting holds them back
    os.environ[NO_PLUGINS] = "1"  # for this import only: no test sees it
    try:
        import hypothesis  # noqa: F401
    except ImportError:
        return False
    finally:
        del os.environ[NO_PLUGINS]
    return True


def import_harness(held_back: bool) -> tuple[str, ...]:
    """Import and so pin the harness before the project's site and the tree are on sys.path:
    pytest and its default plugins, pluggy and Hypothesis (`import_ahead`, done already in
    a child). Hypothesis's import runs the `hypothesis` entry points of the installed
    distributions, third-party code, so they run here, after the privilege drop and the
    audit hook (`held_back`: `import_ahead` held them back), as Hypothesis's own import
    would have run them. A later `import pytest` (or of any submodule, found through the
    package's own __path__) gets these; nothing the project installs or commits can stand
    in for them. Returns the top-level names to watch."""
    for name in HARNESS:
        with contextlib.suppress(ImportError):  # hypothesis when it is not installed
            importlib.import_module(name)
    if held_back:
        _run_entry_points()
    return HARNESS


def _run_entry_points() -> None:
    """Hypothesis's `hypothesis` entry points, as the end of its import runs them: while
    Hypothesis counts itself initialising (its warnings about slow plugin code say so)."""
    from hypothesis import entry_points

    counter: Any = sys.modules.get("_hypothesis_globals")
    if counter is not None:
        counter.in_initialization += 1
    try:
        entry_points.run()
    finally:
        if counter is not None:
            counter.in_initialization -= 1


def add_site(folders: list[str]) -> None:
    """The project's site folders, after everything on sys.path (the harness's folders
    included), their `.pth` files run as at start-up (`site.addsitedir`); a `sitecustomize`
    there is importable, not run. What those files put in front (a path, a meta-path finder,
    a path hook) is moved behind what was there: the project adds, it never comes first.
    Cached path finders are dropped, so each folder's finder comes from the hooks as now."""
    import site

    path, meta, hooks = list(sys.path), list(sys.meta_path), list(sys.path_hooks)
    for folder in folders:
        site.addsitedir(folder)
    sys.path[:] = path + [entry for entry in sys.path if entry not in path]
    sys.meta_path[:] = _behind(meta, sys.meta_path)
    sys.path_hooks[:] = _behind(hooks, sys.path_hooks)
    sys.path_importer_cache.clear()


def _behind(before: list[Any], now: list[Any]) -> list[Any]:
    return [*before, *(item for item in now if not any(item is old for old in before))]


def import_plugins(modules: list[str]) -> tuple[tuple[str, ...], list[object]]:
    """The allowed plugins, after the project's site is added (a plugin the project installs
    is found there) and before the tree is on sys.path; handed to pytest.main() as objects
    (not `-p` names). One that is not installed fails the run with pytest's own error.
    Returns their top-level names (watched like the harness) and the modules."""
    roots: list[str] = []
    plugins: list[object] = []
    for name in modules:
        plugins.append(importlib.import_module(name))
        root = name.split(".", 1)[0]
        if root not in roots:
            roots.append(root)
    return tuple(roots), plugins


def harness_in_tree(tree: str) -> list[str]:
    """Modules imported so far whose file lies in the tree: something put it on the path."""
    real = os.path.realpath(tree) + "/"
    folders: dict[str, bool] = {}  # one realpath per folder, not per module
    problems = []
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if not isinstance(path, str) or not path.startswith("/"):
            continue
        folder = path.rpartition("/")[0]
        if folder not in folders:
            folders[folder] = (os.path.realpath(folder) + "/").startswith(real)
        if folders[folder] or (os.path.islink(path) and os.path.realpath(path).startswith(real)):
            problems.append(f"harness module {name} imported from the tree")
    return problems


def neutralise() -> None:
    """pytest never sets PYTEST_CURRENT_TEST: production code cannot tell a test is running by
    it. Bytecode is read and written as in any run: the parent removes every `__pycache__`
    of the tree before each run (`runner/treescan.py`), so what one run or commit left there
    is never read in place of the source beside it."""
    import operator

    import _pytest.runner

    # any C function of two arguments without effects would do; this one reaches no module
    _pytest.runner._update_current_test_var = operator.is_  # type: ignore[assignment]
    os.environ.pop("PYTEST_CURRENT_TEST", None)


def autoload_off() -> list[str]:
    """pytest >= 8.4 turns plugin autoload off by an option: no PYTEST_ variable is left in
    the environment the tests see. Older pytest reads the variable (removed again once the
    configuration is read)."""
    import pytest

    if tuple(pytest.version_tuple[:2]) >= (8, 4):
        return ["--disable-plugin-autoload"]
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    return []
