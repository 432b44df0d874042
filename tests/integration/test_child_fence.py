"""The untrusted test child is fenced: what it imports of planegate lies in `child/` folders.

From the child's entry module (named by the bootstrap script the parent sends) and the plugin
modules the child imports by name (the default configuration's allowed plugins, and every
child plugin a capability may send: the probes' registry's, the sweep's), the static import
closure over planegate's modules (every depth, function-level imports and string-literal
`importlib.import_module`/`__import__` calls too) may reach only modules under a `child/`
folder and the `__init__`s of the packages above them, which import nothing; outside
planegate, only the standard library and the harness.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from planegate.config import defaults
from planegate.freeze import sweep_plugin
from planegate.probes import registry
from planegate.runner.child.main import SCRIPT
from planegate.runner.child.plugin_api import ENTRY
from planegate.runner.session import plugin_modules

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "planegate"
HARNESS = frozenset({"pytest", "_pytest", "pluggy", "hypothesis"})
# Child modules that import by a computed name: the harness, the spec's allowed plugins
# (`bootstrap.import_plugins`) and its child plugins (`plugin_api.load`), which the closure
# below starts from.
COMPUTED_IMPORTS = frozenset(
    {"planegate.runner.child.bootstrap", "planegate.runner.child.plugin_api"}
)


@dataclass
class Closure:
    modules: set[str] = field(default_factory=set)  # planegate modules reached
    outside: dict[str, set[str]] = field(default_factory=dict)  # top-level name: importers
    computed: set[str] = field(default_factory=set)  # modules importing by a computed name


def entry_module(script: str) -> str:
    """The module the bootstrap script imports `prepare` from."""
    found = re.search(r"__import__\('([\w.]+)', fromlist=\['prepare'\]\)", script)
    assert found is not None, script
    return found.group(1)


def sent_modules() -> list[str]:
    """Every child plugin module a capability may send in a run spec (`ChildPlugin`), as the
    capabilities name them: the probes' registry and the sweep."""
    return [*registry.child_modules(), *sweep_plugin.CHILD_MODULES]


def child_roots() -> list[str]:
    """What the child imports first: the bootstrap script's imports (its entry module among
    them), the plugin modules of the default configuration that are planegate's (the spec
    names them and `bootstrap.import_plugins` imports them; the others are the project's) and
    the child plugins a capability may send (`plugin_api.load` imports them)."""
    script = imports_of("__main__", SCRIPT.format(fd=0), False, ())
    plugins = plugin_modules(defaults.PYTEST_PLUGINS)
    ours = {name for name in plugins if name.split(".")[0] == "planegate"}
    return sorted(script | ours | set(sent_modules()))


def _with_parents(name: str) -> set[str]:
    parts = name.split(".")
    return {".".join(parts[:end]) for end in range(1, len(parts) + 1)}


def _import_call(node: ast.Call) -> str | None:
    """The module a call to `__import__` or `import_module` imports by a literal name ('' for
    a computed name); None for any other call."""
    func = node.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
    if name not in ("__import__", "import_module"):
        return None
    first = node.args[0] if node.args else None
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value
    return ""


def imports_of(name: str, source: str, is_package: bool, known: Iterable[str]) -> set[str]:
    """Every module `source` (the module `name`) imports, at any depth; `known` are the
    planegate modules, so `from pkg import mod` counts `pkg.mod`. A computed import adds ''."""
    modules = set(known)
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            found.add(base)
            found |= {f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in modules}
        elif isinstance(node, ast.Call):
            target = _import_call(node)
            if target is not None:
                found.add(target)
    return found


def closure(roots: Iterable[str], files: Mapping[str, str], read: Callable[[str], str]) -> Closure:
    """What importing `roots` can reach; `files` maps each planegate module to its file
    (relative to the package), `read` gives its source."""
    result = Closure()
    pending = [name for root in roots for name in sorted(_with_parents(root))]
    while pending:
        name = pending.pop()
        if name.split(".")[0] != "planegate":
            result.outside.setdefault(name.split(".")[0], set()).add("(root)")
            continue
        if name in result.modules or name not in files:
            continue
        result.modules.add(name)
        is_package = files[name].endswith("__init__.py")
        for target in imports_of(name, read(name), is_package, files):
            if target == "":
                result.computed.add(name)
            elif target.split(".")[0] == "planegate":
                pending += sorted(_with_parents(target))
            else:
                result.outside.setdefault(target.split(".")[0], set()).add(name)
    return result


def fenced(path: str) -> bool:
    """A file under a `child/` folder."""
    return "child" in path.split("/")[:-1]


def violations(found: Closure, files: Mapping[str, str], read: Callable[[str], str]) -> list[str]:
    child_folders = {path.rsplit("/", 1)[0] for path in files.values() if fenced(path)}
    wrong = []
    for name in sorted(found.modules):
        path = files[name]
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        above = path.endswith("__init__.py") and any(
            child == folder or child.startswith(f"{folder}/") or not folder
            for child in child_folders
        )
        if not fenced(path) and not above:
            wrong.append(f"{name} ({path}) is outside every child folder")
        elif above and not fenced(path) and _imports_anything(read(name)):
            wrong.append(f"{name} ({path}) is above a child folder and imports something")
    allowed = HARNESS | set(sys.stdlib_module_names)
    for top, importers in sorted(found.outside.items()):
        if top not in allowed:
            wrong.append(f"{top} is imported in the child (by {', '.join(sorted(importers))})")
    for name in sorted(found.computed - COMPUTED_IMPORTS):
        wrong.append(f"{name} imports a module by a computed name in the child")
    return wrong


def _imports_anything(source: str) -> bool:
    return any(
        isinstance(node, (ast.Import, ast.ImportFrom))
        or (isinstance(node, ast.Call) and _import_call(node) is not None)
        for node in ast.walk(ast.parse(source))
    )


def _files() -> dict[str, str]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        relative = path.relative_to(PACKAGE)
        parts = ["planegate", *relative.with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = relative.as_posix()
    return found


def _reader(files: Mapping[str, str]) -> Callable[[str], str]:
    return lambda name: (PACKAGE / files[name]).read_text("utf-8")


def test_the_childs_import_closure_stays_inside_child_folders() -> None:
    files = _files()
    found = closure(child_roots(), files, _reader(files))
    assert entry_module(SCRIPT) in found.modules
    assert {"pytest", "sys"} <= set(found.outside)  # the bootstrap script's own imports
    assert "planegate.runner.child.plugin_api" in found.modules  # a function-level import
    assert "planegate.freeze.child.sweep_probes" in found.modules  # child plugins by name
    assert "planegate.probes.answers.child.probe_strict" in found.modules
    assert "planegate.probes.canaries.child.sampled" in found.modules
    assert violations(found, files, _reader(files)) == []


def test_every_child_plugin_a_capability_sends_is_a_child_module_with_the_entry() -> None:
    files = _files()
    sent = sent_modules()
    assert len(sent) == len(set(sent)) >= 6
    for name in sent:
        assert name in files and fenced(files[name]), name
        tree = ast.parse(_reader(files)(name))
        entries = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == ENTRY]
        assert entries, f"{name} defines no `{ENTRY}`"


def test_the_closure_starts_from_every_child_plugin_a_capability_sends() -> None:
    assert set(sent_modules()) <= set(child_roots())


def test_the_checker_finds_a_sent_plugin_that_imports_parent_code() -> None:
    files = {
        "planegate.probes.x.child.plug": "probes/x/child/plug.py",
        "planegate.probes.x.plan": "probes/x/plan.py",
    }
    sources = {
        "planegate.probes.x.child.plug": "def plugin(options, context):\n"
        "    from planegate.probes.x import plan\n",
        "planegate.probes.x.plan": "",
    }
    found = closure(["planegate.probes.x.child.plug"], files, sources.__getitem__)
    assert violations(found, files, sources.__getitem__) == [
        "planegate.probes.x.plan (probes/x/plan.py) is outside every child folder"
    ]


SYNTHETIC = {
    "planegate": ("__init__.py", '"""The package."""\n'),
    "planegate.runner": ("runner/__init__.py", ""),
    "planegate.runner.child": ("runner/child/__init__.py", ""),
    "planegate.runner.child.main": (
        "runner/child/main.py",
        "import json\n\ndef prepare():\n    from planegate.runner.child import helper\n",
    ),
    "planegate.runner.child.helper": (
        "runner/child/helper.py",
        "import importlib\nimportlib.import_module('planegate.config.load')\n",
    ),
    "planegate.config": ("config/__init__.py", "import yaml\n"),
    "planegate.config.load": ("config/load.py", "import yaml\nfrom planegate import errors\n"),
    "planegate.errors": ("errors.py", ""),
}


def test_the_checker_finds_a_parent_module_reached_through_a_string_import() -> None:
    files = {name: path for name, (path, _) in SYNTHETIC.items()}

    def read(name: str) -> str:
        return SYNTHETIC[name][1]

    found = closure(["planegate.runner.child.main"], files, read)
    assert found.modules == set(SYNTHETIC)
    assert violations(found, files, read) == [
        "planegate.config (config/__init__.py) is outside every child folder",
        "planegate.config.load (config/load.py) is outside every child folder",
        "planegate.errors (errors.py) is outside every child folder",
        "yaml is imported in the child (by planegate.config, planegate.config.load)",
    ]


def test_the_checker_finds_a_package_init_above_a_child_folder_that_imports() -> None:
    files = {"planegate": "__init__.py", "planegate.runner.child": "runner/child/__init__.py"}
    sources = {"planegate": "from planegate import errors\n", "planegate.runner.child": ""}
    files["planegate.errors"] = "errors.py"
    sources["planegate.errors"] = ""
    found = closure(["planegate.runner.child"], files, sources.__getitem__)
    assert violations(found, files, sources.__getitem__) == [
        "planegate (__init__.py) is above a child folder and imports something",
        "planegate.errors (errors.py) is outside every child folder",
    ]


def test_the_checker_finds_a_computed_import() -> None:
    files = {"planegate.runner.child.x": "runner/child/x.py"}
    source = "import importlib\nNAME = 'os'\nimportlib.import_module(NAME)\n"
    found = closure(["planegate.runner.child.x"], files, lambda _: source)
    assert violations(found, files, lambda _: source) == [
        "planegate.runner.child.x imports a module by a computed name in the child"
    ]


# The child forgets planegate's modules before any code of the tree runs (`_forget_planegate`),
# so no test of a gated tree can see them; this runs the child's real `prepare` with every
# companion and child plugin the spec can ask for and lists planegate's modules just before
# they are forgotten.
OBSERVE = """
import json, os, sys
sys.path[:] = [p for p in sys.path if p not in ('', '.')]
main = __import__({entry!r}, fromlist=['prepare'])
forget, out = main._forget_planegate, os.dup(1)

def listing():
    names = sorted(n for n in sys.modules if n == 'planegate' or n.startswith('planegate.'))
    os.write(out, json.dumps(names).encode())
    forget()

main._forget_planegate = listing
tree = {tree!r}
spec = {{
    "nonce": "n", "deselect": [], "rootdir": tree, "args": [], "trusted": [], "protect": [],
    "fd": os.open(os.devnull, os.O_WRONLY), "modules": {modules!r}, "site": [], "roots": [tree],
    "repeat": 2, "kinds": True, "reads": {{"test_files": [], "test_roots": []}},
    "child_plugins": {child_plugins!r},
}}
read, write = os.pipe()
os.write(write, json.dumps(spec).encode())
os.close(write)
main.prepare(read)
"""


def test_the_child_holds_only_child_modules_of_planegate_at_run_time(tmp_path: Path) -> None:
    script = OBSERVE.format(
        entry=entry_module(SCRIPT),
        modules=plugin_modules(defaults.PYTEST_PLUGINS),
        tree=str(tmp_path),
        child_plugins=[{"module": name, "options": {}} for name in sent_modules()],
    )
    done = subprocess.run(
        [sys.executable, "-s", "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stdout))
    files = _files()
    assert "planegate.runner.child.channel" in loaded
    assert "planegate.freeze.child.sweep_probes" in loaded
    outside = sorted(
        name
        for name in loaded
        if not fenced(files[name]) and not files[name].endswith("__init__.py")
    )
    assert outside == []
    inits = sorted(n for n in loaded if files[n].endswith("__init__.py") and not fenced(files[n]))
    assert inits == [
        "planegate",
        "planegate.freeze",
        "planegate.probes",
        "planegate.probes.answers",
        "planegate.probes.canaries",
        "planegate.probes.honest",
        "planegate.runner",
    ]
