"""Evidence by default: the files of listed nodeids, test helpers and `__init__.py` files are
protected and restored from the base, whatever the plane patterns name."""

from __future__ import annotations

import ast

import pytest

from helpers.seed_project import (
    FILES,
    PLANES,
)
from planegate import pyimports as imports
from planegate.config import default_evidence, planemap
from planegate.config import load as config_mod

CONFIG = "version: 1\nplanes:\n  property: {}\n  fixture: {}\n"


def collect(
    files: dict[str, str], config: str = CONFIG, **kwargs: object
) -> default_evidence.DefaultEvidence:
    cfg = config_mod.parse(config, "planegate.yml")
    encoded = {path: text.encode() for path, text in files.items()}
    return default_evidence.collect(cfg, encoded, encoded.get, **kwargs)  # type: ignore[arg-type]


def listing(nodeids: list[str]) -> str:
    return CONFIG.replace("fixture: {}", f"fixture: {{nodeids: {nodeids}}}")


def test_listed_files_helpers_and_inits_of_the_seed_layout() -> None:
    files = {p: t for p, t in FILES.items() if isinstance(t, str)}
    found = collect(files, listing(PLANES["fixture"]))
    assert found.tests == ("tests/test_golden.py",)
    assert found.listed == ("tests/test_golden.py",)
    assert found.helpers == ("tests/helpers.py",)
    assert found.inits == ("tests/__init__.py",)
    assert "calc/core.py" not in found.paths  # production code is never a helper


def test_helpers_are_followed_through_packages_relative_imports_and_pytest_plugins() -> None:
    files = {
        "tests/unit/test_a.py": "from ..utils.compare import close\nimport tests.shared\n",
        "tests/unit/__init__.py": "",
        "tests/__init__.py": "",
        "tests/utils/__init__.py": "",
        "tests/utils/compare.py": "from . import tolerance\n\ndef close(a, b):\n    return 1\n",
        "tests/utils/tolerance.py": "EPS = 1e-9\n",
        "tests/shared.py": "",
        "tests/conftest.py": "pytest_plugins = ['tests.fixtures.db']\n",
        "tests/fixtures/db.py": "import calc.db\n",
        "calc/db.py": "",
        "calc/__init__.py": "",
        "tests/unused.py": "",
    }
    found = collect(files, listing(["tests/unit/test_a.py::test_x"]))
    assert set(found.helpers) == {
        "tests/utils/compare.py",
        "tests/utils/tolerance.py",
        "tests/shared.py",
        "tests/fixtures/db.py",
    }
    assert found.inits == ("tests/__init__.py", "tests/unit/__init__.py", "tests/utils/__init__.py")


def test_a_test_beside_production_code_protects_no_production_module() -> None:
    files = {
        "src/calc/__init__.py": "",
        "src/calc/core.py": "",
        "src/calc/test_core.py": "from calc.core import add\nfrom . import core\n",
    }
    found = collect(files, listing(["src/calc/test_core.py::test_add"]), pythonpath=["src"])
    assert found.paths == ("src/calc/test_core.py",)


def test_evidence_exclude_takes_a_helper_out() -> None:
    files = {
        "tests/test_a.py": "import helpers\nimport timing\n",
        "tests/helpers.py": "",
        "tests/timing.py": "",
    }
    config = listing(["tests/test_a.py::test_x"]) + "evidence:\n  exclude: ['tests/timing.py']\n"
    found = collect(files, config)
    assert found.helpers == ("tests/helpers.py",)


TRICKY_IMPORTS = [
    "import os, \\\n    helpers\n",
    "import os; import helpers as h\n",
    "if True: import helpers\n",
    "def f():\n    try:\n        pass\n    except ImportError:\n        import helpers\n",
    "from \\\n    helpers import close\n",
    "from . import helpers\n",
    "from.helpers import close\n",
    "from .. tests import helpers\n",
    "from x import (\n    a,\n)\nfrom helpers import (\n    close,\n)\n",
    "import ｈｅｌｐｅｒｓ\n",  # NFKC-normalised to `helpers`
    "match 1:\n    case 1:\n        import helpers\n",
    "class A:\n    def f(self):\n        with x:\n            import helpers\n",
    "pytest_plugins = 'tests.helpers'\n",
    "import os, \\\r\n    helpers\r\n",
    "reimport = 1; import helpers\n",
    "xfrom = 1; from . import helpers\n",
    "from \\\r\n    .helpers import close\r\n",
]


@pytest.mark.parametrize("source", TRICKY_IMPORTS)
def test_the_text_scan_before_parsing_lets_every_import_of_a_helper_through(source: str) -> None:
    files = {"tests/test_a.py": source, "tests/helpers.py": "", "shop/core.py": ""}
    found = collect(files, listing(["tests/test_a.py::test_x"]))
    assert found.helpers == ("tests/helpers.py",)


def test_a_module_whose_imports_reach_no_test_root_is_not_parsed() -> None:
    source = "import os\nfrom shop.core import x  # helpers\n'''import helpers'''\n"
    assert not imports.may_import("import os\nfrom shop.core import x\n", frozenset({"helpers"}))
    assert imports.may_import(source, frozenset({"helpers"}))  # errs towards a parse
    assert imports.first_names("tests", ["tests/helpers.py", "tests/a/b.py", "x/y.py"]) == {
        "helpers",
        "a",
    }


def test_the_statement_walk_yields_what_ast_walk_yields_in_its_order() -> None:
    source = (
        "import a\n"
        "def f():\n    import b\n    def g():\n        import c\n    return lambda: 1\n"
        "try:\n    import d\nexcept E:\n    import e\nelse:\n    import f\n"
        "finally:\n    import g\n"
        "class C:\n    import h\n    if x:\n        import i\n    else:\n        import j\n"
        "match y:\n    case 1:\n        import k\n"
        "async def h():\n    async with z:\n        import l\n    async for q in r:\n"
        "        import m\n    else:\n        import n\n"
        "while w:\n    import o\n"
    )
    tree = ast.parse(source)
    walked = [node for node in ast.walk(tree) if isinstance(node, ast.stmt)]
    assert [node for node in imports.statements(tree) if isinstance(node, ast.stmt)] == walked


GIVEN_CASES = [
    ("from hypothesis import given, strategies as st\n\ndef test_a():\n    assert 1\n", False),
    ("from hypothesis import (\n    given,\n)\n\ndef test_a():\n    pass\n", True),
    ("import hypothesis\n\n@hypothesis.given(x=1)\ndef test_a(x):\n    pass\n", True),
    ("from hypothesis import given\n\n@given(1)\ndef test_a(x):\n    pass\n", True),
    ('@foo("import").given\ndef test_a():\n    pass\n', True),
    ("from hypothesis import given\r\n@given(1)\r\ndef test_a(x):\r\n    pass\r\n", True),
    ("import x\n@ｇｉｖｅｎ(1)\ndef test_a(x):\n    pass\n", False),  # no `given` in the text
    ("import given\n@ｇｉｖｅｎ(1)\ndef test_a(x):\n    pass\n", True),
    ("def test_a():\n    forgiven = given_x = 1\n", False),
]


@pytest.mark.parametrize(("source", "may"), GIVEN_CASES)
def test_the_text_scan_before_the_mixed_file_parse_never_hides_a_given_test(
    source: str, may: bool
) -> None:
    assert planemap.may_use_given(source) is may
    if not may and "given" in source:  # parsing would have found no @given test either
        assert not any(given for _, _, given in planemap.test_kinds(source))


def test_assertion_helpers_the_package_ships_for_the_tests_are_evidence() -> None:
    files = {
        "tests/test_a.py": "from shop.testing import assert_money\nfrom shop import compare, core\n"
        "from shop._testing.tables import same\n",
        "shop/__init__.py": "",
        "shop/core.py": "import json\n",
        "shop/testing.py": "def assert_money(a, b):\n    assert a == b\n",
        "shop/compare.py": "import unittest\n\ncase = unittest.TestCase()\n",
        "shop/_testing/__init__.py": "",
        "shop/_testing/tables.py": "def same(a, b):\n    return a == b\n",
        "shop/unused_testing_helpers.py": "import pytest\n",  # no test imports it
    }
    found = collect(files, listing(["tests/test_a.py::test_x"]))
    assert found.shipped == (
        "shop/_testing/__init__.py",  # the helper package's own: it may re-export
        "shop/_testing/tables.py",
        "shop/compare.py",
        "shop/testing.py",
    )
    assert found.why["shop/testing.py"] == "shipped helper"
    assert "shop/core.py" not in found.paths
    assert set(found.shipped) <= set(found.paths) and set(found.shipped) <= set(found.test_side)
