"""Where the base ships each package from, and a head that makes the run import another copy."""

from __future__ import annotations

import pytest

from planegate.config.shipped import declared, location, run_roots, shadows
from planegate.pyimports import Layout

FLAT = ["pyproject.toml", "shop/__init__.py", "shop/core.py", "tests/test_core.py"]
SRC = ["pyproject.toml", "src/shop/__init__.py", "src/shop/core.py", "tests/test_core.py"]


def found(
    base: list[str],
    head: list[str],
    metadata: tuple[str, ...] = (),
    names: frozenset[str] = frozenset(),
    pythonpath: tuple[str, ...] = (),
) -> list[tuple[str, str, str]]:
    return [
        (s.name, s.shipped, s.tested)
        for s in shadows(Layout.of(base), Layout.of(head), pythonpath, (metadata, names))
    ]


def test_a_src_copy_beside_a_shipped_flat_package_is_a_shadow() -> None:
    head = [*FLAT, "src/shop/__init__.py", "src/shop/core.py"]
    assert found(FLAT, head) == [("shop", "", "src")]
    assert found(FLAT, head, ("",), frozenset({"shop"})) == [("shop", "", "src")]


def test_a_module_named_like_the_package_in_an_earlier_root_is_a_shadow() -> None:
    assert found(FLAT, [*FLAT, "src/shop.py"]) == [("shop", "", "src")]
    assert found(FLAT, [*FLAT, "lib/shop/__init__.py"], pythonpath=("lib",)) == [
        ("shop", "", "lib")
    ]


def test_a_root_copy_beside_a_declared_src_package_is_not_imported() -> None:
    head = [*SRC, "shop/__init__.py", "shop/core.py"]
    assert found(SRC, head, ("src",)) == []  # src/ comes first: the shipped copy is tested


def test_honest_changes_of_either_layout_pass() -> None:
    assert found(SRC, [*SRC, "src/shop/extra.py"], ("src",)) == []
    assert found(FLAT, [*FLAT, "shop/extra.py", "docs/conf.py"]) == []
    assert found(FLAT, [*FLAT, "src/other/__init__.py"]) == []  # a new package of its own


def test_the_order_the_child_imports_from() -> None:
    assert run_roots(Layout.of(SRC), ["lib/"]) == ("src", "lib", "")
    assert run_roots(Layout.of(["src/__init__.py"]), []) == ("",)
    assert location("shop", Layout.of(SRC), ("src", "")) == ("src", "src/shop/__init__.py")


@pytest.mark.parametrize(
    ("pyproject", "setup_cfg", "roots", "names"),
    [
        ('[tool.setuptools]\npackage-dir = {"" = "src"}\n', None, ("src",), set()),
        ('[tool.setuptools.packages.find]\nwhere = ["lib"]\n', None, ("lib",), set()),
        ('[tool.setuptools]\npackages = ["shop", "shop.core"]\n', None, (), {"shop"}),
        ('[tool.hatch.build.targets.wheel]\npackages = ["src/shop"]\n', None, ("src",), {"shop"}),
        (
            '[tool.poetry]\npackages = [{include = "shop", from = "src"}]\n',
            None,
            ("src",),
            {"shop"},
        ),
        ('[tool.flit.module]\nname = "shop"\n', None, (), {"shop"}),
        (None, "[options]\npackage_dir =\n    =src\n", ("src",), set()),
        (None, "[options.packages.find]\nwhere = lib\n", ("lib",), set()),
        ("not toml [", "not ini", (), set()),
    ],
)
def test_roots_and_names_come_from_the_packaging_metadata(
    pyproject: str | None, setup_cfg: str | None, roots: tuple[str, ...], names: set[str]
) -> None:
    assert declared(pyproject, setup_cfg) == (roots, frozenset(names))
