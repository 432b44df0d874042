"""The tree's package roots and the module names under them."""

from __future__ import annotations

from pathlib import Path

from planegate.runner.child.roots import project_names
from planegate.runner.roots import package_roots


def test_package_roots_and_names(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    for path in (
        "src/calc/__init__.py",
        "src/nspkg/mod.py",
        "src/single.py",
        "lib/other/__init__.py",
        "vendor/six/__init__.py",
        "tests/test_x.py",
        "setup.py",
        "docs/conf.py",
    ):
        (tree / path).parent.mkdir(parents=True, exist_ok=True)
        (tree / path).write_text("", "utf-8")
    found = package_roots(tree, {"pythonpath": "lib ../outside"})
    assert found == (str(tree / "src"), str(tree / "lib"), str(tree))
    assert project_names(found) == {"calc", "nspkg", "single", "other", "six", "setup"}
    (tree / "src" / "__init__.py").write_text("", "utf-8")  # src is a package: no root
    assert package_roots(tree, {}) == (str(tree),)
