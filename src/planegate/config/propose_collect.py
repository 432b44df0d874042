"""Run pytest's collection of the project in a child process, as the gate will see it.

The child uses the project's own pytest configuration (its `testpaths`, `python_files`,
`addopts`...), with the gate's conditions: plugin autoload off and only the allowed plugins
loaded, no `PYTEST_ADDOPTS`, nodeids relative to the repository root.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from planegate.config.propose import CollectedItem, Collection
from planegate.errors import ConfigError

CHILD = (
    "import sys; sys.path[:] = [p for p in sys.path if p not in ('', '.')]; "
    "from planegate.config.collect_child import main; raise SystemExit(main())"
)
PYTEST_FAILED_TO_START = (3, 4)  # pytest's INTERNAL_ERROR and USAGE_ERROR


def plugin_modules(names: Iterable[str]) -> list[str]:
    """Allowed plugin names (entry-point or distribution names) as importable modules."""
    from importlib.metadata import entry_points

    points = list(entry_points(group="pytest11"))
    modules: list[str] = []
    for name in names:
        found = [
            point.value.split(":", 1)[0]
            for point in points
            if point.name == name
            or (point.dist is not None and point.dist.name.lower() == name.lower())
        ] or [name]
        modules += [module for module in found if module not in modules]
    return modules


def arguments(root: Path, targets: Iterable[str], plugins: Iterable[str]) -> list[str]:
    args = ["--collect-only", "-q", "--rootdir", str(root), "-p", "no:cacheprovider"]
    for module in plugin_modules(plugins):
        args += ["-p", module]
    return args + list(targets)


def collect(
    root: Path, targets: Iterable[str], plugins: Iterable[str], timeout: float = 600.0
) -> Collection:
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    env.update({"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1"})
    with tempfile.TemporaryDirectory(prefix="planegate-init-") as scratch:
        out = Path(scratch) / "collected.json"
        command = [sys.executable, "-c", CHILD, str(out), *arguments(root, targets, plugins)]
        proc = subprocess.Popen(
            command,
            cwd=root,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            output, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill(proc)
            raise ConfigError(f"pytest's collection in {root} took over {timeout:.0f} s") from None
        _kill(proc)
        data = json.loads(out.read_text("utf-8")) if out.is_file() else None
    return _collection(data, output.decode("utf-8", "replace"), root)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def _collection(data: Any, output: str, root: Path) -> Collection:
    if not isinstance(data, dict) or data.get("status") in PYTEST_FAILED_TO_START:
        lines = [line for line in output.splitlines() if line.strip()]
        last = lines[-1].strip() if lines else "no output"
        raise ConfigError(
            f"pytest could not collect the suite in {root}: {last}",
            "plugin autoload is off as in the gate: name the plugins the suite needs with "
            "--plugin NAME; `python -m pytest --collect-only` shows the whole error",
        )
    items = tuple(
        CollectedItem(str(i["nodeid"]), bool(i["hypothesis"]), bool(i["function"]))
        for i in data["items"]
    )
    errors = tuple((str(e["nodeid"]), str(e["message"])) for e in data["errors"])
    return Collection(items, errors)
