"""Production source: the files of a commit that are the project itself, never fixture data.

A test that reads one of these files (a packaging test building the sdist, a test checking
the version in `pyproject.toml`) reads the project, not an expected value: `init` never
proposes them as `planes.fixture.data`, `lock` never warns about them, and the gate's
read-based evidence (PG308) never counts them (docs/planes.md, "Production source").

A file is production source when the commit tracks it and it is

- project metadata at the repository root: `pyproject.toml`, `setup.cfg`, `setup.py`,
  `MANIFEST.in`, `tox.ini`, `README*`, `LICENSE*` / `LICENCE*` / `COPYING*`, `CHANGELOG*`,
  `CHANGES*`, `HISTORY*`, `NEWS*`, `AUTHORS*`, `CONTRIBUTING*` (what an sdist ships);
- a module of the project: Python source (`.py`, `.pyi`, `.pyx`, `.pxd`, `py.typed`) inside
  a top-level package of a package root (a folder holding `__init__.py` directly under
  `src/`, under an in-tree `pythonpath` entry, or under the repository root), or a
  top-level module of a package root. A package's other files (a JSON table, a template)
  may be what a test compares against: they stay data candidates for a person to judge;

and no folder on its way is a test folder (`tests`, `test`, `testing`, `testdata`,
`test_data`, `fixtures`, ...): a golden file under a test data folder stays evidence even
inside a package. Test files, conftests and test helpers are never production source. The
packages are those of the base commit: a patch cannot turn a data folder into a package.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from planegate.pyimports import Layout, join, parent

METADATA = frozenset({"pyproject.toml", "setup.cfg", "setup.py", "MANIFEST.in", "tox.ini"})
METADATA_PREFIXES = (
    "readme",
    "license",
    "licence",
    "copying",
    "changelog",
    "changes",
    "history",
    "news",
    "authors",
    "contributing",
)
_TEST_FOLDER = re.compile(
    r"^(tests?|testing|testdata|test[_-].*|.*[_-]tests?|fixtures?|goldens?|snapshots?)$"
)
_TEST_MODULE = re.compile(r"^(test_.*|.*_test|conftest)\.py$")
SOURCE_SUFFIXES = (".py", ".pyi", ".pyx", ".pxd")


@dataclass(frozen=True)
class Production:
    """Which paths of a commit are production source (see the module's docstring)."""

    packages: frozenset[str] = frozenset()  # top-level package folders
    roots: frozenset[str] = frozenset()  # package roots ("" is the repository root)
    test_side: frozenset[str] = frozenset()  # plane tests, conftests, helpers: never production

    def covers(self, path: str) -> bool:
        if path in self.test_side:
            return False
        folder = parent(path)
        if not folder and (path in METADATA or path.lower().startswith(METADATA_PREFIXES)):
            return True
        if _test_folder(folder):
            return False
        name = path.rpartition("/")[2]
        if folder in self.roots and name.endswith(".py"):
            return not _TEST_MODULE.match(name)
        if not name.endswith(SOURCE_SUFFIXES) and name != "py.typed":
            return False
        while folder:
            if folder in self.packages:
                return True
            folder = parent(folder)
        return False


def _test_folder(folder: str) -> bool:
    return any(_TEST_FOLDER.match(part.lower()) for part in folder.split("/") if part)


def of(layout: Layout, test_side: Iterable[str], pythonpath: Iterable[str] = ()) -> Production:
    """The production source of a commit whose files make `layout`."""
    roots = [""]
    if "src" in layout.folders and "src/__init__.py" not in layout.files:
        roots.append("src")
    roots += [entry.strip("/") for entry in pythonpath if entry.strip("/") not in ("", ".")]
    kept = frozenset(root for root in roots if not _test_folder(root))
    packages = frozenset(
        folder
        for folder in layout.folders
        if parent(folder) in kept
        and join(folder, "__init__.py") in layout.files
        and not _test_folder(folder)
    )
    return Production(packages, kept, frozenset(test_side))
