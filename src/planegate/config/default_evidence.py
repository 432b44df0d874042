"""What is evidence by default, whatever the plane patterns name (docs/planes.md, "Evidence").

Beside the configured patterns, a commit's evidence holds:

- the file of every nodeid the configuration lists (`planes.*.nodeids`) and of every frozen
  nodeid: the test itself is main's, even when no pattern names its file;
- every `__init__.py` on the way from a plane test file up to its *test root*: the nearest
  folder above it named `tests`, `test` or `testing` (a test file with no such folder above
  it has no test root);
- every *test helper*: a repository module that a plane test file, a conftest or another test
  helper imports (statically: `import`, `from ... import`, `pytest_plugins` strings) and
  that lies under a test root (`tests/helpers.py`, `tests/utils/compare.py`, a shared
  fixture module). Modules outside every test root are production code, never helpers;
- every *shipped assertion helper*: a module outside the test roots that a plane test file
  or a test helper imports directly and that is named like one (`testing`, `_testing`,
  `testutils`, `test_utils`, as the module or a folder on its way: `pkg/testing.py`,
  `pkg/_testing/compare.py`) or imports pytest or unittest (like `numpy.testing`): the tests
  compare through it, so loosening it loosens them.

`evidence.exclude` patterns (read from the base like every other key) take helpers and
`__init__.py` files out of the default evidence; the test files of listed nodeids stay.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property

import pathspec

from planegate.config import production as production_mod
from planegate.config.load import Config
from planegate.config.pathmatch import PathPatterns
from planegate.pyimports import (
    Layout,
    first_names,
    import_base,
    imports_of,
    join,
    may_import,
    parent,
    resolve_precise,
)
from planegate.vocabulary import SCORING_PLANES

NO_PRODUCTION = production_mod.Production()
TEST_FOLDER_NAMES = frozenset({"tests", "test", "testing"})
Reader = Callable[[str], "bytes | None"]
BatchReader = Callable[[list[str]], dict[str, bytes]]


def test_root(path: str) -> str | None:
    """The nearest folder above `path` named tests/test/testing, None when there is none."""
    folder = parent(path)
    while folder:  # `parent` gives clean paths: the name is the text after the last slash
        if folder.rpartition("/")[2].lower() in TEST_FOLDER_NAMES:
            return folder
        folder = parent(folder)
    return None


def listed_files(cfg: Config, files: Iterable[str]) -> list[str]:
    """Files of the commit that hold a nodeid the configuration lists in a scoring plane."""
    present = set(files)
    named = {nodeid.split("::", 1)[0] for p in SCORING_PLANES for nodeid in cfg.planes[p].nodeids}
    return sorted(named & present)


def plane_test_files(cfg: Config, files: Iterable[str], frozen_files: Iterable[str]) -> list[str]:
    """Python files of the scoring planes' patterns, of listed and frozen nodeids, conftests."""
    names = list(files)
    patterns = [
        line for p in SCORING_PLANES for line in (*cfg.planes[p].paths, *cfg.planes[p].admit)
    ]
    spec = PathPatterns(patterns)
    found = {path for path in names if path.endswith(".py") and spec.match_file(path)}
    found |= {path for path in names if path.rpartition("/")[2] == "conftest.py"}
    found |= set(listed_files(cfg, names)) | (set(frozen_files) & set(names))
    return sorted(found)


@dataclass(frozen=True)
class Parsed:
    """What the evidence by default reads from a commit's Python source (the rest it takes
    from file names): the modules under the test roots its tests import, transitively
    (`__init__.py` files on the way too), and its shipped assertion helpers, before
    `evidence.exclude`. Main's digest carries them (gate/source_facts.py)."""

    imported: tuple[str, ...] = ()
    shipped: tuple[str, ...] = ()


@dataclass(frozen=True)
class DefaultEvidence:
    """A commit's evidence beyond the configured patterns, by why each file is evidence."""

    listed: tuple[str, ...] = ()
    helpers: tuple[str, ...] = ()
    shipped: tuple[str, ...] = ()  # assertion helpers shipped in the package (`pkg/testing.py`)
    inits: tuple[str, ...] = ()
    tests: tuple[str, ...] = ()  # every plane test file: the test side, with the helpers
    roots: tuple[str, ...] = ()  # test roots
    production: production_mod.Production = NO_PRODUCTION  # config/production.py
    parsed: Parsed = Parsed()  # what of it was read from the source

    @cached_property
    def why(self) -> dict[str, str]:
        """path -> why it is evidence: "listed", else "helper", else "init"."""
        found = dict.fromkeys(self.inits, "init")
        found.update(dict.fromkeys(self.shipped, "shipped helper"))
        found.update(dict.fromkeys(self.helpers, "helper"))
        found.update(dict.fromkeys(self.listed, "listed"))
        return found

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(sorted({*self.listed, *self.helpers, *self.shipped, *self.inits}))

    @property
    def test_side(self) -> tuple[str, ...]:
        """Files whose code is the test side of a run: plane tests, conftests, helpers."""
        return tuple(sorted({*self.tests, *self.helpers, *self.shipped, *self.inits}))


def collect(  # noqa: PLR0913 (keywords past the first three)
    cfg: Config,
    files: Iterable[str],
    read: Reader,
    *,
    frozen_files: Iterable[str] = (),
    pythonpath: Iterable[str] = (),
    read_many: BatchReader | None = None,
    parsed: Parsed | None = None,
) -> DefaultEvidence:
    """The default evidence of a commit whose files are `files` (bytes from `read`, or from
    `read_many`, many files at once, when given); `parsed`: what its source says, when known
    already (its Python files are then not read)."""
    layout = Layout.of(files)
    tests = plane_test_files(cfg, layout.files, frozen_files)
    roots = sorted({root for path in tests if (root := test_root(path)) is not None})
    excluded = exclusion(cfg)
    if parsed is None:
        batch = read_many or (lambda paths: {p: d for p in paths if (d := read(p)) is not None})
        imported, production = _helpers(tests, roots, layout, batch, tuple(pythonpath))
        parsed = Parsed(tuple(imported), tuple(_shipped_helpers(production, batch)))
    imported, shipped = list(parsed.imported), list(parsed.shipped)
    helpers = [path for path in imported if not path.endswith("/__init__.py")]
    inits = sorted({*_inits(tests, layout), *(set(imported) - set(helpers))})
    return DefaultEvidence(
        listed=tuple(listed_files(cfg, layout.files)),
        helpers=tuple(p for p in helpers if not excluded.match_file(p)),
        shipped=tuple(p for p in shipped if not excluded.match_file(p)),
        inits=tuple(p for p in inits if not excluded.match_file(p)),
        tests=tuple(tests),
        roots=tuple(roots),
        production=production_mod.of(layout, [*tests, *imported, *shipped], pythonpath),
        parsed=parsed,
    )


def exclusion(cfg: Config) -> pathspec.GitIgnoreSpec:
    return pathspec.GitIgnoreSpec.from_lines(list(cfg.evidence_exclude))


def _inits(tests: Iterable[str], layout: Layout) -> list[str]:
    found: set[str] = set()
    for path in tests:
        root = test_root(path)
        if root is None:
            continue
        folder = parent(path)
        while True:
            if join(folder, "__init__.py") in layout.files:
                found.add(join(folder, "__init__.py"))
            if folder == root:
                break
            folder = parent(folder)
    return sorted(found)


def _helpers(
    tests: list[str],
    roots: list[str],
    layout: Layout,
    read: BatchReader,
    pythonpath: tuple[str, ...],
) -> tuple[list[str], set[str]]:
    """Modules under a test root that the plane tests import, transitively: the files read a
    wave at a time, and a module parsed only when its text may import one of them; and the
    modules outside every test root that the tests and those helpers import directly (the
    candidates for shipped assertion helpers, `_shipped_helpers`)."""
    root_set = frozenset(roots)
    sources_py = [path for path in layout.files if path.endswith(".py")]
    names: dict[tuple[str, ...], frozenset[str]] = {}  # search roots -> first names of helpers
    seen, found = set(tests), []
    production: set[str] = set()
    wave = list(tests)
    while wave:
        sources, wave = read(wave), []
        for path, data in sources.items():
            search = tuple(_search_roots(path, layout, pythonpath))
            if search not in names:
                names[search] = frozenset().union(*(first_names(r, sources_py) for r in search))
            text = data.decode("utf-8", "replace")
            if not may_import(text, names[search]):
                continue  # none of its imports can reach a file of the commit
            for imported in imports_of(text):
                targets = list(dict.fromkeys(resolve_precise(imported, path, search, layout)))
                production.update(t for t in targets if not _under(t, root_set))
                new = [t for t in targets if t not in seen and _under(t, root_set)]
                seen.update(new)
                found += new
                wave += new
    return sorted(found), production


TESTING_NAMES = frozenset(
    {"testing", "_testing", "testutils", "_testutils", "test_utils", "testutil", "testing_utils"}
)
HARNESS_IMPORTS = frozenset({"pytest", "_pytest", "unittest"})


def _shipped_helpers(modules: Iterable[str], read: BatchReader) -> list[str]:
    """Modules outside the test roots that main's tests import and that are assertion helpers:
    named like one (`pkg/testing.py`, `pkg/_testing/compare.py`, `pkg/testutils.py`), or
    importing pytest or unittest. A patch that loosens one loosens the tests that compare
    through it, so they are evidence like the tests (docs/planes.md, "Evidence")."""
    wanted = sorted(path for path in modules if path.endswith(".py"))
    by_name = {path for path in wanted if TESTING_NAMES & set(_stems(path))}
    found = set(by_name)
    for path, data in read([p for p in wanted if p not in by_name]).items():
        text = data.decode("utf-8", "replace")
        if not any(word in text for word in HARNESS_IMPORTS):
            continue
        imported = {i.module.split(".")[0] for i in imports_of(text) if not i.level}
        if imported & HARNESS_IMPORTS:
            found.add(path)
    return sorted(found)


def _stems(path: str) -> list[str]:
    """The folder names and the module name of a path (`pkg/testing/__init__.py`: pkg,
    testing, __init__)."""
    parts = path.split("/")
    return [*parts[:-1], parts[-1].removesuffix(".py")]


def _under(path: str, roots: frozenset[str]) -> bool:
    """`path` lies below one of `roots` (folders)."""
    end = path.find("/")
    while end != -1:
        if path[:end] in roots:
            return True
        end = path.find("/", end + 1)
    return False


def _search_roots(path: str, layout: Layout, pythonpath: tuple[str, ...]) -> list[str]:
    roots = ["", import_base(path, layout)]
    roots += [entry.strip("/") for entry in pythonpath if entry.strip("/") not in ("", ".")]
    return list(dict.fromkeys(roots))
