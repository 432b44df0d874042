"""Which files of a commit are production source (config/production.py)."""

from __future__ import annotations

import pytest

from planegate.config import production
from planegate.pyimports import Layout

FILES = [
    "pyproject.toml",
    "setup.cfg",
    "README.rst",
    "LICENSE.txt",
    "MANIFEST.in",
    "tox.ini",
    "CHANGELOG.md",
    "noxfile.py",
    "conftest.py",
    "docs/README.md",
    "docs/conf.py",
    "calc/__init__.py",
    "calc/core.py",
    "calc/data/table.json",
    "calc/py.typed",
    "calc/core.pyi",
    "calc/tests/__init__.py",
    "calc/tests/test_core.py",
    "calc/tests/data/golden.txt",
    "calc/testdata/golden.txt",
    "calc/fixtures/case.json",
    "src/lib/__init__.py",
    "src/lib/parse.py",
    "src/single.py",
    "tests/__init__.py",
    "tests/helpers.py",
    "tests/data/label.txt",
    "tests/test_core.py",
    "golden/cases.txt",
    "test_top.py",
]


@pytest.fixture(scope="module")
def found() -> production.Production:
    return production.of(Layout.of(FILES), ["calc/tests/test_core.py", "tests/helpers.py"])


@pytest.mark.parametrize(
    "path",
    [
        "pyproject.toml",
        "setup.cfg",
        "README.rst",
        "LICENSE.txt",
        "MANIFEST.in",
        "tox.ini",
        "CHANGELOG.md",
        "noxfile.py",
        "calc/__init__.py",
        "calc/core.py",
        "calc/py.typed",
        "calc/core.pyi",
        "calc/new_module.py",  # added by a patch inside a package of the base
        "src/lib/parse.py",
        "src/single.py",
    ],
)
def test_production_source(found: production.Production, path: str) -> None:
    assert found.covers(path)


@pytest.mark.parametrize(
    "path",
    [
        "conftest.py",
        "test_top.py",
        "docs/README.md",
        "docs/CHANGELOG.md",
        "docs/conf.py",
        "calc/tests/test_core.py",
        "calc/tests/data/golden.txt",
        "calc/testdata/golden.txt",
        "calc/fixtures/case.json",
        "tests/helpers.py",
        "tests/data/label.txt",
        "tests/test_core.py",
        "golden/cases.txt",
        "calc/data/table.json",  # package data: may be what a test compares against
        "newpkg/__init__.py",  # a package the base does not have
    ],
)
def test_not_production_source(found: production.Production, path: str) -> None:
    assert not found.covers(path)


def test_a_pythonpath_entry_is_a_package_root_unless_a_test_folder() -> None:
    layout = Layout.of(["lib/mod/__init__.py", "lib/mod/x.py", "tests/pkg/__init__.py"])
    found = production.of(layout, [], pythonpath=["lib", "tests"])
    assert found.covers("lib/mod/x.py") and found.covers("lib/top.py")
    assert not found.covers("tests/pkg/__init__.py") and not found.covers("tests/top.py")
