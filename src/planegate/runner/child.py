"""Entry point of the child process: harness first, tree last (docs/runner.md).

The parent runs `python -s -` and writes `SCRIPT` to its stdin; the script calls `prepare()`
and hands what it returns straight to `pytest.main`, so the bottom of the stack holds no frame
of planegate's and `__main__` keeps no reference to it. `prepare()`:

1. reads the run's spec from its own pipe and closes it;
2. drops privileges that could read another process (`bootstrap.lock_down`);
3. opens the result channel and installs the audit hook (with read tracing when the run asks
   for it), before anything else is imported;
4. imports pytest, pluggy, hypothesis and the allowed plugins while the tree is not on
   sys.path, and checks none of them was found in the tree;
5. puts the tree's package roots (`runner/roots.py`: `src/`, the base's `pythonpath`, the
   tree) on sys.path after the standard library and before site-packages;
6. builds the channel plugin and its companions (`runner/extras.py`: the import record, the
   repeat plugin, init's item kinds) and forgets planegate's own modules.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

SCRIPT = (
    "import sys\n"
    "sys.path[:] = [p for p in sys.path if p not in ('', '.')]\n"
    "raise SystemExit(__import__('pytest').main("
    "*__import__('planegate.runner.child', fromlist=['prepare']).prepare({fd})))\n"
)


def prepare(spec_fd: int) -> tuple[list[str], list[object]]:
    from planegate.runner import audit, bootstrap, channel, extras, frames, integrity, reads
    from planegate.runner import roots as tree_roots

    spec = _read_spec(spec_fd)
    bootstrap.lock_down(bool(spec.get("drop_caps")))
    emit, close = channel.make_writer(int(spec["fd"]), str(spec["nonce"]))
    emit("start", {"pid": os.getpid()})
    tree = str(spec["rootdir"])
    state = audit.install(emit, tree, spec.get("trusted", ()), spec.get("protect", ()))
    reads.install(state, spec.get("reads"))
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=close)
    harness, allowed = bootstrap.import_harness(list(spec.get("modules", [])))
    state.pluggy_dir = os.path.dirname(sys.modules["pluggy"].__file__ or "") + "/"
    state.bottom = sys.modules["_pytest.main"].pytest_runtestloop.__code__
    for problem in bootstrap.harness_in_tree(tree):
        frames.record(state, problem, None)
    bootstrap.neutralise(str(spec.get("pycache", "")))
    os.chdir(tree)
    package_roots = [str(root) for root in spec.get("roots") or [tree]]
    sys.path[:] = tree_roots.placed(sys.path, package_roots, tree_roots.stdlib_paths())
    checks = integrity.make(emit, state, harness)
    plugins: list[object] = [channel.make_plugin(emit, state, checks, frozenset(spec["deselect"]))]
    repeat, kinds = int(spec.get("repeat") or 1), bool(spec.get("kinds"))
    plugins += extras.make_plugins(emit, state, tree, package_roots, repeat, kinds)
    plugins += allowed
    if spec.get("probes") is not None:
        from planegate.runner.sweep_probes import ProbesPlugin

        plugins.append(ProbesPlugin(spec["probes"]))
    args = list(spec["args"]) + bootstrap.autoload_off()
    del spec
    _forget_planegate()
    return args, plugins


def _read_spec(fd: int) -> dict[str, Any]:
    chunks = []
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
    spec: dict[str, Any] = json.loads(b"".join(chunks))
    return spec


def _forget_planegate() -> None:
    """Drop the gate's own modules once its plugins exist.

    The plugin keeps what it needs; the project under test then imports its own `planegate`
    (when the gated project is planegate itself) from its tree, not the gate's, and no code
    of the tree finds the harness's modules by name.
    """
    for name in [n for n in sys.modules if n == "planegate" or n.startswith("planegate.")]:
        del sys.modules[name]
