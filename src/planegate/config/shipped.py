"""The shipped package is the tested package: where the base's packaging metadata puts each
package, and whether the head makes the test run import another copy of it (PG211).

The roots a package is shipped from are read from the base's `pyproject.toml` and `setup.cfg`
(setuptools `package-dir` and `packages.find where`, hatch's wheel `packages`, poetry's and
flit's `packages`/module, setup.cfg `[options] package_dir` and `[options.packages.find]
where`); without them, the base's own layout says (a regular package under `src/`, a
`pythonpath` entry, or the root). The test child imports the project from `src/` (when it is
a folder and not itself a package), then the `pythonpath` entries, then the tree
(`runner/roots.py`), so a patch that adds `src/shop/` beside a shipped `shop/` makes the run
test its own copy while the bug stays in what ships. Nothing here runs project code.
"""

from __future__ import annotations

import configparser
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from planegate.loading import Problem, toml_value
from planegate.pyimports import Layout, join, parent


@dataclass(frozen=True)
class Shadow:
    """A shipped package the head's run would import from somewhere else."""

    name: str
    shipped: str  # the folder it ships from ("" is the repository root)
    tested: str  # the root the head's run would import it from
    path: str  # a file of the copy that would be tested


def declared(
    pyproject: str | None, setup_cfg: str | None
) -> tuple[tuple[str, ...], frozenset[str]]:
    """(the package roots the metadata declares, the top-level names it ships), each empty
    when the metadata does not say."""
    roots: list[str] = []
    names: set[str] = set()
    if pyproject:
        try:
            data = toml_value(pyproject)
        except Problem:
            data = {}
        _from_pyproject(data.get("tool", {}), roots, names)
    if setup_cfg:
        _from_setup_cfg(setup_cfg, roots)
    return tuple(dict.fromkeys(_clean(root) for root in roots)), frozenset(names)


def _from_pyproject(tool: Any, roots: list[str], names: set[str]) -> None:
    if not isinstance(tool, dict):
        return
    setuptools = _table(tool.get("setuptools"))
    package_dir = _table(setuptools.get("package-dir"))
    if isinstance(package_dir.get(""), str):
        roots.append(package_dir[""])
    find = _table(_table(setuptools.get("packages")).get("find"))
    roots += [w for w in _list(find.get("where")) if isinstance(w, str)]
    listed = setuptools.get("packages")
    names.update(p.split(".")[0] for p in _list(listed) if isinstance(p, str))
    wheel = _table(
        _table(_table(_table(tool.get("hatch")).get("build")).get("targets")).get("wheel")
    )
    for path in (p for p in _list(wheel.get("packages")) if isinstance(p, str)):
        roots.append(parent(_clean(path)))
        names.add(_clean(path).rpartition("/")[2])
    for entry in _list(_table(tool.get("poetry")).get("packages")):
        entry = _table(entry)
        if isinstance(entry.get("include"), str):
            roots.append(entry.get("from", "") if isinstance(entry.get("from"), str) else "")
            names.add(entry["include"].split("/")[0])
    module = _table(_table(tool.get("flit")).get("module"))
    if isinstance(module.get("name"), str):
        names.add(module["name"].split(".")[0])


def _from_setup_cfg(text: str, roots: list[str]) -> None:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return
    package_dir = parser.get("options", "package_dir", fallback="")
    for line in package_dir.replace(",", "\n").splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "" and value.strip():
            roots.append(value.strip())
    where = parser.get("options.packages.find", "where", fallback="").strip()
    if where:
        roots.append(where)


def _table(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _clean(path: str) -> str:
    cleaned = path.strip().strip("/").removeprefix("./")
    return "" if cleaned == "." else cleaned


def run_roots(layout: Layout, pythonpath: Iterable[str]) -> tuple[str, ...]:
    """The roots the test child imports the project from, in its order (`runner/roots.py`)."""
    roots = []
    if "src" in layout.folders and "src/__init__.py" not in layout.files:
        roots.append("src")
    roots += [_clean(entry) for entry in pythonpath]
    roots.append("")
    return tuple(dict.fromkeys(roots))


def location(name: str, layout: Layout, roots: Sequence[str]) -> tuple[str, str] | None:
    """(root, a file) the import of top-level `name` finds first: a regular package or a
    module in the first root that has one, else a namespace folder of Python files."""
    for root in roots:
        package = join(join(root, name), "__init__.py")
        module = join(root, f"{name}.py")
        if package in layout.files:
            return root, package
        if module in layout.files:
            return root, module
    for root in roots:
        folder = join(root, name)
        if folder in layout.folders:
            inside = next((f for f in layout.files if f.startswith(folder + "/")), None)
            if inside is not None and inside.endswith(".py"):
                return root, inside
    return None


def shipped_names(layout: Layout, roots: Iterable[str]) -> set[str]:
    """Top-level regular packages under `roots` (test folders aside)."""
    found = set()
    for root in roots:
        for folder in layout.folders:
            if parent(folder) == root and join(folder, "__init__.py") in layout.files:
                name = folder.rpartition("/")[2]
                if name.isidentifier() and not name.startswith("test"):
                    found.add(name)
    return found


def shadows(
    base: Layout,
    head: Layout,
    pythonpath: Iterable[str],
    metadata: tuple[tuple[str, ...], frozenset[str]] = ((), frozenset()),
) -> list[Shadow]:
    """Shipped packages whose tested copy the head moves away from the shipped one."""
    entries = tuple(pythonpath)
    base_roots, head_roots = run_roots(base, entries), run_roots(head, entries)
    declared_roots, declared_names = metadata
    ship_roots = declared_roots or base_roots
    names = set(declared_names) | shipped_names(base, ship_roots)
    found = []
    for name in sorted(names):
        shipped = location(name, base, ship_roots)
        before, after = location(name, base, base_roots), location(name, head, head_roots)
        if shipped is None or after is None:
            continue
        if (before is None or after[0] != before[0]) and after[0] != shipped[0]:
            found.append(Shadow(name, shipped[0], after[0], after[1]))
    return found
