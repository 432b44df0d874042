"""A project whose production code records what it can observe of the process it runs in.

`FACTS` is the project's `shop/facts.py`: plain production code (no harness import, nothing a
scan would name), calling what any module can call. Its test prints the facts as one JSON
line and fails, so they come back in the run's output, from a plain `python -m pytest` run and
from the gate's child alike. Paths are written relative to what both runs share (the tree,
the interpreter, the temporary folder), so two runs of the same tree compare equal.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

FACTS = r"""
import faulthandler
import gc
import json
import locale
import os
import resource
import signal
import site
import socket
import stat
import sys
import tempfile
import threading
import time
import warnings

TREE = os.path.realpath(os.getcwd())


def _path(text):
    text = str(text)
    for name, root in (
        ("<tree>", TREE),
        ("<python>", os.path.realpath(sys.executable)),
        ("<python>", sys.executable),
        ("<prefix>", sys.prefix),
        ("<base>", sys.base_prefix),
        ("<tmp>", os.path.realpath(tempfile.gettempdir())),
    ):
        if text == root or text.startswith(root.rstrip("/") + "/"):
            return name + text[len(root.rstrip("/")):] if text != root else name
    return text


def _kind(fd):
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return None
    for name in ("FIFO", "REG", "CHR", "SOCK", "DIR", "BLK"):
        if getattr(stat, "S_IS" + name)(mode):
            return name.lower()
    return "other"


def _read(path):
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as error:
        return "refused: " + type(error).__name__


def _cmdline(pid):
    data = _read(f"/proc/{pid}/cmdline")
    if isinstance(data, str):
        return data
    return [_path(part) for part in data.decode("utf-8", "replace").split("\0") if part]


def _ppid(pid):
    data = _read(f"/proc/{pid}/stat")
    if isinstance(data, str):
        return 0
    return int(data.decode().rsplit(")", 1)[1].split()[1])


def _status():
    data = _read("/proc/self/status")
    if isinstance(data, str):
        return data
    wanted = ("Cap", "NoNewPrivs", "Seccomp", "Umask", "Speculation", "Cpus_allowed_list")
    found = {}
    for line in data.decode().splitlines():
        name, _, value = line.partition(":")
        if name.startswith(wanted):
            found[name] = value.strip()
    return found


def _listing(path):
    try:
        return len(os.listdir(path))
    except OSError as error:
        return "refused: " + type(error).__name__


def _signals():
    found = {}
    for sig in sorted(signal.valid_signals()):
        try:
            handler = signal.getsignal(sig)
        except (ValueError, OSError):
            continue
        if isinstance(handler, int):
            handler = {0: "default", 1: "ignore"}.get(handler, handler)
        elif handler is not None:
            handler = getattr(handler, "__qualname__", type(handler).__name__)
        found[str(sig)] = handler
    return found


def _type(obj):
    kind = obj if isinstance(obj, type) else type(obj)
    return kind.__module__ + "." + kind.__qualname__


def _limits():
    return {
        name: resource.getrlimit(getattr(resource, name))
        for name in sorted(dir(resource))
        if name.startswith("RLIMIT_")
    }


def _main():
    main = sys.modules["__main__"]
    spec = getattr(main, "__spec__", None)
    return {
        "names": sorted(vars(main)),
        "file": _path(getattr(main, "__file__", None)),
        "spec": getattr(spec, "name", None),
        "package": getattr(main, "__package__", None),
    }


def _filter(action, message, category, module, line):
    pattern = getattr(message, "pattern", message)
    return [action, str(pattern), category.__name__, str(getattr(module, "pattern", module)), line]


def _own(name):
    return name.split(".")[0] in ("shop", "tests", "conftest") or name.startswith("test_")


def _namespaces():
    found = {}
    for name in ("pid", "mnt", "net", "user", "uts", "ipc", "cgroup"):
        try:
            found[name] = os.readlink(f"/proc/self/ns/{name}")
        except OSError as error:
            found[name] = "refused: " + type(error).__name__
    return found


def _home():
    import pwd

    home = os.environ.get("HOME")
    return home == pwd.getpwuid(os.getuid()).pw_dir


def collect():
    ppid = os.getppid()
    return {
        "argv": [_path(arg) for arg in sys.argv],
        "orig_argv": [_path(arg) for arg in getattr(sys, "orig_argv", [])],
        "cmdline": _cmdline("self"),
        "flags": {name: getattr(sys.flags, name) for name in dir(sys.flags)
                  if not name.startswith("_") and not callable(getattr(sys.flags, name))},
        "pycache_prefix": sys.pycache_prefix,
        "dont_write_bytecode": sys.dont_write_bytecode,
        "sys_path": [_path(entry) for entry in sys.path],
        "env_names": sorted(os.environ),
        "env_pwd_is_cwd": os.environ.get("PWD") == os.getcwd(),
        "env_underscore": _path(os.environ.get("_", "")),
        "home_is_users": _home(),
        "user_site": [site.ENABLE_USER_SITE, _path(site.USER_SITE or "")],
        "parent_cmdline": _cmdline(ppid),
        "grandparent_cmdline": _cmdline(_ppid(ppid)),
        "parent_names_gate": "planegate" in str(_cmdline(ppid)).lower(),
        "cwd": _path(os.getcwd()),
        "tree_listing": sorted(os.listdir(TREE)),
        "pycache_in_tree": os.path.isdir(os.path.join(TREE, "shop", "__pycache__")),
        "fd_kinds": sorted(str(_kind(fd)) for fd in range(256) if _kind(fd) is not None),
        "fd_listing": _listing("/proc/self/fd"),
        "environ_file": type(_read("/proc/self/environ")).__name__,
        "stdio_kinds": [_kind(0), _kind(1), _kind(2)],
        "stdio_types": [_type(sys.stdin), _type(sys.stdout), _type(sys.stderr)],
        "isatty": [os.isatty(0), os.isatty(1), os.isatty(2)],
        "rlimits": _limits(),
        "signals": _signals(),
        "modules": sorted(name for name in sys.modules if not _own(name)),
        "meta_path": [_type(finder) for finder in sys.meta_path],
        "path_hooks": [getattr(hook, "__qualname__", _type(hook)) for hook in sys.path_hooks],
        "umask": os.umask(os.umask(0o22)),
        "hostname": socket.gethostname() == os.uname().nodename,
        "ids": [os.getuid(), os.geteuid(), os.getgid(), os.getegid(), sorted(os.getgroups())],
        "status": _status(),
        "proc_owner_is_me": os.stat("/proc/self/status").st_uid == os.getuid(),
        "nice": os.nice(0),
        "recursion_limit": sys.getrecursionlimit(),
        "trace_profile": [sys.gettrace() is None, sys.getprofile() is None],
        "threads": sorted(thread.name for thread in threading.enumerate()),
        "gc": [gc.isenabled(), gc.get_threshold()],
        "faulthandler": faulthandler.is_enabled(),
        "warnings": [_filter(*item) for item in warnings.filters],
        "main": _main(),
        "excepthook": [sys.excepthook is sys.__excepthook__, _type(sys.excepthook)],
        "locale": [locale.setlocale(locale.LC_ALL, None), locale.getpreferredencoding(False),
                   sys.getfilesystemencoding()],
        "timezone": [time.tzname, time.timezone],
        "session": [os.getsid(0) == os.getpid(), os.getpgrp() == os.getpid()],
        "affinity": len(os.sched_getaffinity(0)),
        "namespaces": _namespaces(),
        "mounts": len(_read("/proc/self/mountinfo")),
        "executable": _path(sys.executable),
        "switch_interval": sys.getswitchinterval(),
        "encoding": [sys.getdefaultencoding(), sys.stdout.encoding if sys.stdout else None],
        "loaded_gate": "planegate" in sys.modules,
    }


def dump():
    return json.dumps(collect(), sort_keys=True, default=str)
"""

TEST = """from shop import facts


def test_facts():
    print("FACTS " + facts.dump())
    assert False, "facts printed"
"""

FILES = {
    "pyproject.toml": '[project]\nname = "shop"\nversion = "0.1"\n\n'
    '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    "shop/__init__.py": "",
    "shop/facts.py": FACTS,
    "tests/__init__.py": "",
    "tests/test_facts.py": TEST,
}

# An ordinary shell's environment, the same for both runs: a secret and a CI's own names
# among ordinary ones.
PARENT_ENV = {
    "USER": "dev",
    "LOGNAME": "dev",
    "SHELL": "/bin/bash",
    "TERM": "xterm-256color",
    "LANG": "C.UTF-8",
    "SHLVL": "1",
    "GITHUB_TOKEN": "ghs_not_a_real_token",
    "GITHUB_ACTIONS": "true",
    "CI": "true",
}


def write(root: Path, files: dict[str, str] | None = None) -> Path:
    for name, text in (files or FILES).items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    return root


def parent_env(tree: Path) -> dict[str, str]:
    home = os.environ.get("HOME", "/root")
    path = os.environ.get("PATH", "/usr/bin:/bin")
    return {"PATH": path, "HOME": home, "PWD": str(tree), "_": sys.executable, **PARENT_ENV}


def facts_of(output: str) -> dict[str, Any]:
    lines = [line for line in output.splitlines() if line.startswith("FACTS ")]
    assert lines, f"no facts in the run's output:\n{output[-3000:]}"
    facts: dict[str, Any] = json.loads(lines[0][len("FACTS ") :])
    return facts


def plain_run(tree: Path, out: Path) -> dict[str, Any]:
    """`python -m pytest` in the tree, as a shell runs it: its own process group, output to a
    file (as the gate's child has it), stdin from /dev/null."""
    with out.open("wb") as log:
        subprocess.run(
            [sys.executable, "-m", "pytest"],
            cwd=tree,
            env=parent_env(tree),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=os.setpgrp,  # a shell starts a job in a group of its own
            check=False,
            timeout=300,
        )
    return facts_of(out.read_text("utf-8", "replace"))


GATE_DRIVER = """
import sys
from pathlib import Path

from planegate.config.load import parse
from planegate.runner import pytest_ini, spec
from planegate.runner.traced import TraceSpec

tree = Path(sys.argv[1])
cfg = parse(sys.argv[2], "planegate.yml")


def read(name):
    path = tree / name
    return path.read_bytes() if path.is_file() else None


ini = pytest_ini.base_options(read)
trace = TraceSpec(("tests/test_facts.py",), ("tests",))
print(spec.Sessions(tree, cfg, ini).run(trace=trace).output)
"""

# The same run by a child started ahead of it (runner/parked.py), as `planegate gate` starts
# the head's: parked for the repository the project is committed in, the project's files
# then put into the folder it waits for. Prints the seconds it waited, then the run's output.
PARKED_DRIVER = """
import os, shutil, sys, time
from pathlib import Path

from planegate.config.load import parse
from planegate.runner import parked, pytest_ini, spec
from planegate.runner.traced import TraceSpec

project = Path(sys.argv[1])
cfg = parse(sys.argv[2], "planegate.yml")
with parked.ahead(project, os.environ, "HEAD"):
    tree = parked.reserved()
    time.sleep(1.0)  # the gate's imports and git work
    shutil.copytree(project, tree, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".git"))

    def read(name):
        path = tree / name
        return path.read_bytes() if path.is_file() else None

    ini = pytest_ini.base_options(read)
    trace = TraceSpec(("tests/test_facts.py",), ("tests",))
    result = spec.Sessions(tree, cfg, ini).run(trace=trace)
print(result.ahead)
print(result.output)
"""
