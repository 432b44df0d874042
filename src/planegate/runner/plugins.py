"""Which modules the child imports for the plugins a configuration names, and which installed
distribution provides a fixture a run could not find.

A plugin may be named as pytest's entry point (`regressions`), its distribution
(`pytest-regressions`, any of `-`, `_` and `.` alike, any case) or its module
(`pytest_regressions`, the package its entry point lies in, or any importable module). The
interpreter's own distributions come first, then the project's site folders (read as metadata,
never imported here). A name that is none of these stops the run before it starts: a plugin
silently missing would make the suite fail in ways that read like the patch's fault.
"""

from __future__ import annotations

import importlib.machinery
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache, partial
from pathlib import Path
from typing import TYPE_CHECKING

from planegate.errors import UsageError

if TYPE_CHECKING:
    from importlib.metadata import Distribution

_SEPARATORS = re.compile(r"[-_.]+")
_MISSING_FIXTURE = re.compile(r"fixture '([A-Za-z_][A-Za-z0-9_]*)' not found")
_UNKNOWN_MARK = re.compile(r"Unknown pytest\.mark\.([A-Za-z_][A-Za-z0-9_]*)")
MAX_LISTED = 12


@dataclass(frozen=True)
class PluginPoint:
    """One `pytest11` entry point: its name, its distribution, the module it loads, and where
    the distribution's files lie (`located`: read from its metadata when first asked, which
    only the explanation of a missing fixture or mark does; none when the metadata does not
    say)."""

    name: str
    distribution: str
    module: str
    located: Callable[[], tuple[Path, ...]] = field(default=tuple, compare=False, repr=False)

    @property
    def files(self) -> tuple[Path, ...]:
        return self.located()


def normal(name: str) -> str:
    """A distribution name as the package index compares them (PEP 503)."""
    return _SEPARATORS.sub("-", name).lower()


def modules(names: Iterable[str], site: Iterable[str] = ()) -> list[str]:
    """The modules to import for `names`, in order, each once; UsageError for a name that is
    no installed plugin, distribution or module."""
    folders = list(site)
    own, theirs = points(None), points(tuple(folders)) if folders else ()
    found: list[str] = []
    for name in names:
        chosen = _matching(own, name) or _matching(theirs, name) or _importable(name, folders)
        if not chosen:
            raise UsageError(_unknown(name, [*own, *theirs]))
        found += [module for module in chosen if module not in found]
    return found


def points(site: tuple[str, ...] | None) -> tuple[PluginPoint, ...]:
    """Every `pytest11` entry point of the interpreter's distributions (site None) or of the
    distributions in the given folders."""
    return _points(site)


@cache
def _points(site: tuple[str, ...] | None) -> tuple[PluginPoint, ...]:
    from importlib.metadata import distributions

    found = []
    for dist in distributions() if site is None else distributions(path=list(site)):
        for ep in dist.entry_points:
            if ep.group == "pytest11":
                module = ep.value.split(":", 1)[0].strip()
                files = cache(partial(_files, dist))
                found.append(PluginPoint(ep.name, str(dist.name or ""), module, files))
    return tuple(found)


def _files(dist: Distribution) -> tuple[Path, ...]:
    return tuple(Path(str(dist.locate_file(f))) for f in dist.files or ())


def _matching(found: Iterable[PluginPoint], name: str) -> list[str]:
    wanted = normal(name)
    return [
        p.module
        for p in found
        if normal(p.name) == wanted
        or normal(p.distribution) == wanted
        or p.module == name
        or p.module.split(".", 1)[0] == name
    ]


def _importable(name: str, site: list[str]) -> list[str]:
    """[name] when its top-level module exists on the interpreter's path or in the project's
    site (found, not imported: nothing of it runs here)."""
    top = name.split(".", 1)[0]
    if top in sys.builtin_module_names:
        return [name]
    where = [p for p in sys.path if p] + site
    return [name] if importlib.machinery.PathFinder.find_spec(top, where) is not None else []


def _unknown(name: str, installed: list[PluginPoint]) -> str:
    known = sorted({p.distribution for p in installed if p.distribution})
    listed = ", ".join(known[:MAX_LISTED]) + (" …" if len(known) > MAX_LISTED else "")
    return (
        f"pytest plugin {name!r} is not installed: no pytest entry point, distribution or "
        f"module of that name (installed plugin distributions: {listed or 'none'})"
    )


def fixture_providers(fixture: str, site: Iterable[str] = ()) -> list[str]:
    """Installed plugin distributions whose Python files define a function named `fixture`
    (read as text, never imported)."""
    pattern = re.compile(rf"^\s*(?:async\s+)?def\s+{re.escape(fixture)}\s*\(", re.MULTILINE)
    return _providers(pattern, site)


def mark_providers(mark: str, site: Iterable[str] = ()) -> list[str]:
    """Installed plugin distributions whose Python files register the marker `mark` (its
    name opening a string, as `addinivalue_line("markers", "name: ...")` writes it)."""
    return _providers(re.compile(rf"[\"']{re.escape(mark)}\b"), site)


def _providers(pattern: re.Pattern[str], site: Iterable[str]) -> list[str]:
    found: list[str] = []
    folders = tuple(site)
    for point in (*points(None), *(points(folders) if folders else ())):
        if point.distribution in found:
            continue
        if any(pattern.search(text) for text in _sources(point)):
            found.append(point.distribution)
    return found


def _sources(point: PluginPoint) -> Iterator[str]:
    for path in point.files:
        if path.suffix == ".py":
            try:
                yield path.read_text("utf-8", errors="replace")
            except OSError:
                continue


def explain_missing_fixtures(message: str, site: Iterable[str] = ()) -> str:
    """pytest's "fixture 'X' not found" and "Unknown pytest.mark.X" with the installed
    distribution that provides X named, when one does: the plugin the configuration has not
    allowed yet; else, for a mark, that it comes from a plugin not installed or not allowed."""
    folders = tuple(site)

    def fixture(match: re.Match[str]) -> str:
        return _hinted(match.group(0), fixture_providers(match.group(1), folders))

    def mark(match: re.Match[str]) -> str:
        providers = mark_providers(match.group(1), folders)
        if providers:
            return _hinted(match.group(0), providers)
        return (
            f"{match.group(0)} (a mark a plugin registers: install the plugin and name it in "
            "pytest.plugins, or --plugin for init)"
        )

    return _UNKNOWN_MARK.sub(mark, _MISSING_FIXTURE.sub(fixture, message))


def _hinted(text: str, providers: list[str]) -> str:
    if not providers:
        return text
    which = " or ".join(repr(p) for p in providers)
    return (
        f"{text} (the installed distribution {which} provides it: add it to pytest.plugins in "
        "planegate.yml, or --plugin for init)"
    )
