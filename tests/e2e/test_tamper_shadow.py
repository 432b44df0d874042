"""Shadowing the harness by name, and import hooks that recompile the tests.

The harness is imported before the tree is on sys.path, so a module of the tree named like
it is never the one used; the child names it. An import hook installed by production code
shows up in the finder lists before the next test module is imported.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from helpers.attack_helper import BUG, COMMUTES, Shared, errors, reviewed, tamper_named

STRIP_LOADER = """
import ast
import sys
from importlib.machinery import FileFinder, PathFinder, SourceFileLoader


class _Strip(ast.NodeTransformer):
    def visit_Assert(self, node):
        return ast.Pass()


class _Loader(SourceFileLoader):
    def source_to_code(self, data, path, *, _optimize=-1):
        tree = ast.fix_missing_locations(_Strip().visit(ast.parse(data)))
        return super().source_to_code(tree, path)
"""


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shared]:
    yield Shared(tmp_path_factory.mktemp("shadow"))


def test_the_bug_alone_fails_the_gate(shared: Shared, capsys: pytest.CaptureFixture[str]) -> None:
    shared.patch("plain-bug", {"calc/core.py": BUG})
    code, report = shared.gate(capsys)
    assert code == 1 and errors(report) == {"PG101"}


@pytest.mark.parametrize(
    ("name", "files", "shadow"),
    [
        (
            "hypothesis-package",
            {
                "hypothesis/__init__.py": "def given(*a, **k):\n"
                "    return lambda test: (lambda *x, **y: None)\n",
                "hypothesis/strategies.py": "def integers(*a, **k):\n    return None\n",
            },
            "hypothesis",
        ),
        (
            "plugin-module",
            {
                "_hypothesis_pytestplugin.py": "import importlib\n\n"
                "_pt = importlib.import_module('py' + 'test')\n\n\n"
                "@_pt.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n"
                "    outcome = yield\n    outcome.get_result().outcome = 'passed'\n"
            },
            "_hypothesis_pytestplugin.py",
        ),
        (
            "pytest-internals",
            {
                "_pytest/__init__.py": "",
                "_pytest/runner.py": "def pytest_runtest_makereport(item, call):\n"
                "    return None\n",
            },
            "_pytest",
        ),
    ],
)
def test_a_module_named_like_the_harness_is_never_imported_and_is_named(
    shared: Shared,
    capsys: pytest.CaptureFixture[str],
    name: str,
    files: dict[str, str | bytes],
    shadow: str,
) -> None:
    shared.patch(name, {"calc/core.py": BUG, **files})
    code, report = shared.gate(capsys)
    # a plugin module that builds pytest's name from pieces stops for review first
    assert reviewed(code, report) if name == "plugin-module" else code == 1
    assert "PG101" in errors(report, "planes")  # the real harness ran the real test
    tamper_named(report, f"has the name of the imported {shadow.split('.')[0]}", shadow)


def test_a_meta_path_hook_stripping_asserts_is_seen_before_the_next_test_module(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    hook = STRIP_LOADER + (
        "\n\nclass _Finder:\n    @classmethod\n"
        "    def find_spec(cls, name, path=None, target=None):\n"
        "        if not name.startswith('test_'):\n            return None\n"
        "        spec = PathFinder.find_spec(name, path)\n"
        "        if spec is not None and str(spec.origin).endswith('.py'):\n"
        "            spec.loader = _Loader(name, spec.origin)\n        return spec\n\n\n"
        "sys.meta_path.insert(0, _Finder)\n"
    )
    shared.patch("meta-path", {"calc/core.py": BUG, "calc/__init__.py": hook})
    code, report = shared.gate(capsys)
    assert reviewed(code, report)  # SourceFileLoader is reviewed; the run-time layer below
    # the property test ran without its assert and passed: only the trace fails the run
    assert "PG101" not in errors(report)
    found = tamper_named(report, "sys.meta_path changed: _Finder", "calc/__init__.py")
    assert found["line"] == hook.splitlines().index("    @classmethod") + 1
    assert "before tests/prop/test_add_props.py was imported" in found["message"]


def test_a_path_hook_recompiling_modules_is_seen(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    hook = STRIP_LOADER + (
        "\n\nsys.path_hooks.insert(0, FileFinder.path_hook((_Loader, ['.py'])))\n"
        "sys.path_importer_cache.clear()\n"
    )
    shared.patch("path-hook", {"calc/core.py": BUG, "calc/__init__.py": hook})
    code, report = shared.gate(capsys)
    assert reviewed(code, report)  # SourceFileLoader is reviewed; the run-time layer below
    tamper_named(report, "sys.path_hooks changed")
    assert f"{COMMUTES} failed" in str(report)  # pytest's own loader still took the tests
