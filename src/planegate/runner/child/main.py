"""Entry point of the child process: harness first, tree last (docs/runner.md).

The parent runs `python - <padding>` and writes `SCRIPT` to its stdin; the script calls
`prepare()` and hands what it returns straight to `pytest.main`, so the bottom of the stack
holds no frame of planegate's and `__main__` keeps no reference to it (it binds no name).
Once pytest.main has returned, the script does what `raise SystemExit(code)` does before the
interpreter's teardown (the threads that are not daemons joined, the `atexit` handlers run,
the standard streams flushed) and exits with pytest's code: the teardown (every module and
object freed, 0.05 to 0.15 s) is what no test can see any more.
`prepare()`:

1. imports pytest, its default plugin modules, pluggy and Hypothesis while neither the
   project's site nor the tree is on sys.path, before it knows its run: a child started
   ahead of it (runner/parked.py) does this while it waits, in a tree still empty; importing
   them runs no code but theirs (Hypothesis's import holds back the `hypothesis` entry points
   of installed distributions: `HYPOTHESIS_NO_PLUGINS`, set for that import only);
2. reads the run's spec from its own pipe and closes it;
3. drops privileges that could read another process (`bootstrap.lock_down`);
4. opens the result channel and installs the audit hook (with read tracing when the run asks
   for it), then runs those entry points, as Hypothesis's import would have: no code of
   anyone else's runs before the hook;
5. adds the project's site folders, if the run has any, at the end of sys.path (their `.pth`
   files run; what they change in the harness is named);
6. imports the allowed plugins, and checks none of them was found in the tree;
7. puts the tree's package roots (`src/`, the base's `pythonpath`, the tree, as the parent's
   `runner/roots.py` found them) on sys.path after the standard library and before
   site-packages (`roots.placed`);
8. builds the channel plugin, its companions (`extras.py`: the import record, the repeat
   plugin, init's item kinds) and the child plugins the spec names (`plugin_api.py`: each
   module imported by name, its entry function called with its options), and forgets
   planegate's own modules, once the process looks like `python -m pytest` (`disguise.py`).

Everything this imports of planegate lies in `child/` folders
(tests/integration/test_child_fence.py).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

SCRIPT = (
    "__import__('sys').path[:] = [p for p in __import__('sys').path if p not in ('', '.')]\n"
    # what `raise SystemExit(code)` would do up to the interpreter's teardown, then the exit:
    # the lambda is called once pytest.main has returned, so no frame of it exists before
    "(lambda code: (__import__('threading')._shutdown(), __import__('atexit')._run_exitfuncs(),"
    " __import__('sys').stdout.flush(), __import__('sys').stderr.flush(),"
    " __import__('os')._exit(int(code))))(__import__('pytest').main("
    "*__import__('planegate.runner.child.main', fromlist=['prepare']).prepare({fd})))\n"
)


def prepare(spec_fd: int) -> tuple[list[str], list[object]]:
    from planegate.runner.child import (
        audit,
        bootstrap,
        channel,
        disguise,
        extras,
        frames,
        integrity,
        plugin_api,
        reads,
    )
    from planegate.runner.child import roots as tree_roots

    # pytest first: a child started ahead of its run (runner/parked.py) imports it while it
    # waits for its spec, in a tree still empty
    held_back = bootstrap.import_ahead()
    spec = _read_spec(spec_fd)
    if spec.get("nice"):  # a run beside the scoring run yields the CPU to it
        bootstrap.yield_cpu(int(spec["nice"]))
    bootstrap.lock_down(bool(spec.get("drop_caps")))
    emit, hold, close = channel.make_writer(int(spec["fd"]), str(spec["nonce"]))
    emit("start", {"pid": os.getpid()})
    tree = str(spec["rootdir"])
    state = audit.install(emit, tree, spec.get("trusted", ()), spec.get("protect", ()))
    reads.install(state, spec.get("reads"))
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=close)
    roots = bootstrap.import_harness(held_back)  # Hypothesis's entry points: after the hook
    state.pluggy_dir = os.path.dirname(sys.modules["pluggy"].__file__ or "") + "/"
    state.bottom = sys.modules["_pytest.main"].pytest_runtestloop.__code__
    bootstrap.neutralise()
    checks = integrity.make(emit, state, roots)
    state.versions = checks.versions  # a sampled canary's broken run settles what it undid
    site = [str(folder) for folder in spec.get("site", [])]
    if site:
        integrity.around(checks, "by the project's site", lambda: bootstrap.add_site(site))
    more, allowed = bootstrap.import_plugins(list(spec.get("modules", [])))
    checks.roots += more
    for problem in bootstrap.harness_in_tree(tree):
        frames.record(state, problem, None)
    os.chdir(tree)
    package_roots = [str(root) for root in spec.get("roots") or [tree]]
    sys.path[:] = tree_roots.placed(sys.path, package_roots, tree_roots.stdlib_paths())
    deselect = frozenset(spec["deselect"])
    context = plugin_api.PluginContext(emit, state, tree, package_roots)
    plugins: list[object] = [*channel.make_plugin(emit, hold, state, checks, deselect)]
    plugins += extras.make_plugins(context, spec)
    if spec.get("ini"):
        plugins.append(context.module("inifile", disguise.hide_ini(str(spec["ini"]))))
    before, after = plugin_api.load(list(spec.get("child_plugins", [])), context)
    plugins += [*before, *allowed, *after]
    args = list(spec["args"]) + bootstrap.autoload_off()
    disguise.look_plain([str(name) for name in spec.get("hidden_env", [])])
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
