"""`planegate init` on real repositories: pytest's collection, per-nodeid plans, --split, and
the proposal passing its own gate (init, lock, digest, gate on an honest patch: exit 0)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from helpers.repo_helper import TestRepo
from planegate.cli import main
from planegate.config import load as config

PYPROJECT = '[project]\nname = "shop"\nversion = "0"\n\n[tool.pytest.ini_options]\n'

PRICE = """\
def total(items):
    return sum(items)


def discount(price, percent):
    return price * (100 - percent) // 100
"""

GENERATED = """\
import pytest

from shop.price import total

CASES = [([], 0), ([1], 1), ([1, 2], 3), ([5, 5, 5], 15)]


@pytest.mark.parametrize(("items", "expected"), CASES)
def test_total(items, expected):
    assert total(items) == expected
"""

PROPS = """\
from hypothesis import given, strategies as st

from shop.price import total


@given(st.lists(st.integers()))
def test_total_is_sum(xs):
    assert total(xs) == sum(xs)
"""

MIXED = '''\
# SPDX-License-Identifier: MIT
"""Prices: examples and properties side by side."""

import pytest
from hypothesis import given, strategies as st

from shop.price import discount, total

PERCENTS = st.integers(min_value=0, max_value=100)


@pytest.fixture(scope="module", name="ceiling")
def _ceiling():
    return 100


@pytest.fixture
def base():
    return 200


def test_discount_example(base):
    assert discount(base, 10) == 180


@given(PERCENTS)
def test_discount_never_raises_price(ceiling, percent):
    assert discount(ceiling, percent) <= ceiling


class TestTotal:
    def test_empty(self):
        assert total([]) == 0

    @given(st.lists(st.integers(min_value=0)))
    def test_monotone(self, xs):
        assert total([*xs, 1]) > total(xs)

    @pytest.mark.parametrize("n", [1, 2, 3])
    def test_single(self, n):
        assert total([n]) == n
'''

MIXED_PROPERTY = (
    "tests/test_mixed.py::TestTotal::test_monotone",
    "tests/test_mixed.py::test_discount_never_raises_price",
)
MIXED_FIXTURE = (
    "tests/test_mixed.py::TestTotal::test_empty",
    "tests/test_mixed.py::TestTotal::test_single",
    "tests/test_mixed.py::test_discount_example",
)


@pytest.fixture
def suite(tmp_path: Path) -> TestRepo:
    """A project with testpaths, generated tests, a property file and a mixed file; a test
    outside testpaths that would fail if it were collected."""
    repo = TestRepo(tmp_path / "suite")
    repo.commit(
        "suite",
        {
            "pyproject.toml": PYPROJECT + 'testpaths = ["tests"]\n',
            "shop/__init__.py": "",
            "shop/price.py": PRICE,
            "tests/test_gen.py": GENERATED,
            "tests/test_props.py": PROPS,
            "tests/test_mixed.py": MIXED,
            "other/test_outside.py": "def test_outside():\n    assert False\n",
        },
    )
    return repo


def init(repo: TestRepo, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    code = main(["-C", str(repo.root), "init", *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def gate_honest_patch(
    repo: TestRepo, capsys: pytest.CaptureFixture[str]
) -> tuple[int, dict[str, Any]]:
    """lock, commit, digest, then a comment in production code, gated against main."""
    root = str(repo.root)
    assert main(["-C", root, "lock", "-q"]) == 0
    repo.commit("planegate: planes and locks")
    digest = repo.root.parent / "digest.json"
    assert main(["-C", root, "digest", "--out", str(digest), "-q"]) == 0
    repo.branch("honest")
    repo.commit("comment", {"shop/price.py": "# prices in cents\n" + PRICE})
    capsys.readouterr()
    code = main(["-C", root, "gate", "--base", "main", "--digest", str(digest)] + ["-q"] * 1)
    text = capsys.readouterr().out
    assert main(["-C", root, "gate", "--base", "main", "--format", "json", "-q"]) == code
    return code, json.loads(capsys.readouterr().out) | {"text": text}


def findings(report: dict[str, Any], rule: str) -> list[dict[str, Any]]:
    return [f for step in report["steps"] for f in step["findings"] if f["rule"] == rule]


def test_init_follows_collection_and_lists_a_mixed_file_per_nodeid(
    suite: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = init(suite, capsys)
    assert code == 0
    proposed = config.parse(out, "planegate.yml")
    assert proposed.planes["property"].paths == ("tests/test_props.py",)
    assert proposed.planes["fixture"].paths == ("tests/test_gen.py",)
    assert proposed.planes["property"].nodeids == MIXED_PROPERTY
    assert proposed.planes["fixture"].nodeids == MIXED_FIXTURE
    assert proposed.protected == ()  # the file of listed nodeids is evidence by default
    assert proposed.pytest_plugins == ("hypothesis",)
    assert "#  tests/test_mixed.py: MIXED: 2 property and 5 fixture tests" in out
    assert "planegate: tests/test_mixed.py: MIXED: 2 property and 5 fixture tests" in err
    assert "12 tests in 3 files: 3 property, 9 fixture; 1 files listed nodeid by nodeid" in err
    assert "other/" not in out  # outside testpaths: not collected, not proposed
    assert "planegate: init: collecting pytest's testpaths" in err


def test_per_nodeid_proposal_passes_its_own_gate_with_the_mix_as_a_notice(
    suite: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    assert init(suite, capsys, "--write", "-q")[0] == 0
    code, report = gate_honest_patch(suite, capsys)
    assert code == 0, report["text"]
    (mixed,) = findings(report, "PG203")
    assert (mixed["severity"], mixed["path"]) == ("notice", "tests/test_mixed.py")
    assert "listed by nodeid" in mixed["message"]
    assert "12 nodeids: 3 property, 9 fixture" in report["steps"][0]["notes"][0]


def test_a_mixed_file_in_a_path_pattern_still_fails_the_inventory(
    suite: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    suite.commit(
        "config",
        {
            "planegate.yml": (
                "version: 1\nplanes:\n  property:\n    paths: [tests/test_props.py]\n"
                f"    nodeids: {list(MIXED_PROPERTY)}\n"
                "  fixture:\n    paths: [tests/test_gen.py, tests/test_mixed.py]\n"
            )
        },
    )
    code, report = gate_honest_patch(suite, capsys)
    assert code == 2
    (mixed,) = findings(report, "PG203")
    assert (mixed["severity"], mixed["path"]) == ("error", "tests/test_mixed.py")


def test_split_moves_property_tests_to_a_props_file_that_imports_and_passes(
    suite: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = init(suite, capsys, "--split", "--write")
    assert code == 0
    assert "tests/test_mixed.py: split: 2 property tests moved to tests/test_mixed_props.py" in err
    assert [line.strip() for line in suite.git("status", "--porcelain").splitlines()] == [
        "M tests/test_mixed.py",
        "?? planegate.yml",
        "?? tests/test_mixed_props.py",
    ]
    remaining = (suite.root / "tests/test_mixed.py").read_text()
    moved = (suite.root / "tests/test_mixed_props.py").read_text()
    assert "given" not in remaining and "def base" in remaining
    assert "from hypothesis import strategies as st\n" in remaining  # PERCENTS stays too
    assert "def _ceiling" in moved and "PERCENTS = " in moved and "def base" not in moved
    assert "def test_empty" not in moved and "class TestTotal" in moved
    assert moved.startswith('# SPDX-License-Identifier: MIT\n\n"""Property tests of tests/test_')
    proposed = config.parse((suite.root / "planegate.yml").read_text(), "planegate.yml")
    assert proposed.planes["property"].paths == ("tests/test_mixed_props.py", "tests/test_props.py")
    assert proposed.planes["fixture"].paths == ("tests/test_gen.py", "tests/test_mixed.py")
    assert proposed.planes["property"].nodeids == proposed.planes["fixture"].nodeids == ()
    assert proposed.protected == ()
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=suite.root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stdout
    assert "12 passed" in run.stdout
    suite.commit("split")
    gate_code, report = gate_honest_patch(suite, capsys)
    assert gate_code == 0, report["text"]
    assert findings(report, "PG203") == []


def test_a_file_that_cannot_be_split_stays_whole_and_listed(
    suite: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    tangled = (
        "from hypothesis import given, strategies as st\n\n\n"
        "def test_example():\n    assert 1 + 1 == 2\n\n\n"
        "@given(st.integers())\ndef test_prop(x):\n    test_example()\n    assert x == x\n"
    )
    suite.commit("tangled", {"tests/test_tangled.py": tangled})
    code, out, err = init(suite, capsys, "--split")
    assert code == 0
    assert (
        "tests/test_tangled.py: not split: the property tests need test_example, "
        "which holds tests that stay" in err
    )
    assert (suite.root / "tests/test_tangled.py").read_text() == tangled
    assert not (suite.root / "tests/test_tangled_props.py").exists()
    proposed = config.parse(out, "planegate.yml")
    assert "tests/test_tangled.py::test_prop" in proposed.planes["property"].nodeids
    assert "tests/test_tangled.py" in proposed.planes["fixture"].nodeids[0]
    assert "#  tests/test_tangled.py: MIXED: 1 property and 1 fixture tests" in out


def test_a_split_that_collection_does_not_confirm_is_undone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = TestRepo(tmp_path / "custom")
    ini = 'testpaths = ["tests"]\npython_files = ["*_check.py"]\n'
    repo.commit(
        "custom names",
        {
            "pyproject.toml": PYPROJECT + ini,
            "shop/__init__.py": "",
            "shop/price.py": PRICE,
            "tests/price_check.py": MIXED,
        },
    )
    code, out, err = init(repo, capsys, "--split")
    assert code == 0
    assert "tests/price_check.py: split undone: collecting again gave 0 + 5 tests" in err
    assert (repo.root / "tests/price_check.py").read_text() == MIXED
    assert repo.git("status", "--porcelain") == ""
    listed = config.parse(out, "planegate.yml").planes["property"].nodeids
    assert listed == (
        "tests/price_check.py::TestTotal::test_monotone",
        MIXED_PROPERTY[1].replace("test_mixed", "price_check"),
    )


def test_collection_that_cannot_start_is_a_one_line_error(
    suite: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    suite.write({"pyproject.toml": PYPROJECT + 'addopts = ["-n", "2"]\n'})
    code, out, err = init(suite, capsys, "-q")
    assert code == 78
    assert out == ""
    assert err.startswith(f"planegate: pytest could not collect the suite in {suite.root}: ")
    assert "--plugin NAME" in err and len(err.strip().splitlines()) == 1


def test_an_internal_error_after_collection_is_named_in_the_one_line_error(
    suite: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    # blinker's configuration names pytest-asyncio's option, under `filterwarnings = error`:
    # without the plugin, pytest ends with an internal error naming the option, printed just
    # before the session's end, where the gate stops the child
    options = 'asyncio_mode = "auto"\nfilterwarnings = ["error"]\n'
    suite.write({"pyproject.toml": PYPROJECT + options})
    code, out, err = init(suite, capsys, "-q")
    assert code == 78
    assert out == ""
    assert "INTERNALERROR: pytest.PytestConfigWarning: Unknown config option: asyncio_mode" in err
    assert len(err.strip().splitlines()) == 1


def test_a_module_that_does_not_import_is_noted_and_left_out(
    suite: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    suite.write(
        {"tests/test_broken.py": "import no_such_module_here\n\n\ndef test_x():\n    pass\n"}
    )
    code, out, err = init(suite, capsys, "--tests", "tests")
    assert code == 0
    assert (
        "tests/test_broken.py: could not be collected (E   ModuleNotFoundError: No module "
        "named 'no_such_module_here')" in err
    )
    assert "test_broken" not in out


def test_write_refuses_to_overwrite_before_touching_the_tree(
    suite: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    suite.commit("config", {"planegate.yml": "version: 1\n"})
    code, _, err = init(suite, capsys, "--split", "--write")
    assert code == 78
    assert "planegate.yml: exists already; not overwritten" in err
    assert suite.git("status", "--porcelain") == ""


def test_quiet_init_prints_no_progress(suite: TestRepo, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = init(suite, capsys, "-q")
    assert code == 0
    assert "collecting" not in err and "tests/test_mixed.py: MIXED" in err


GOLDEN_MIXED = """\
from pathlib import Path

from hypothesis import given, strategies as st

from shop.price import total

DATA = Path(__file__).parent / "data"


def test_total_golden():
    assert str(total([1, 2])) == (DATA / "total.txt").read_text()


@given(st.lists(st.integers()))
def test_total_of_one_more(xs):
    assert total([*xs, 1]) == total(xs) + 1
"""


def test_one_traced_run_gives_planes_data_and_helpers_and_split_nodeids(
    suite: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    suite.commit(
        "golden",
        {"tests/test_golden.py": GOLDEN_MIXED, "tests/data/total.txt": "3"},
    )
    code, _, err = init(suite, capsys, "--split", "--write", "--verbose")
    assert code == 0, err
    proposed = config.parse((suite.root / "planegate.yml").read_text(), "planegate.yml")
    assert proposed.planes["fixture"].data == ("tests/data/",)
    assert "tests/test_golden_props.py" in proposed.planes["property"].paths
    assert "tests/test_golden.py" in proposed.planes["fixture"].paths
    # the run happened before the split; its notes name the tests where they are now
    assert "reads no file: tests/test_golden_props.py::test_total_of_one_more" in err
    assert "tests/test_golden.py::test_total_of_one_more" not in err
    assert "collecting again to check 2 split files" in err
    untraced = init(suite, capsys, "--no-trace")
    assert config.parse(untraced[1], "planegate.yml").planes["fixture"].data == ()
    assert "(--collect-only)" in untraced[2] and "reads no file" not in untraced[2]


INHERITED = """\
from hypothesis import given, strategies as st


class Base:
    @given(st.integers())
    def test_inherited(self, x):
        assert x == x
"""


@pytest.mark.parametrize("trace", [True, False])
def test_collected_objects_classify_what_the_source_does_not_define(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], trace: bool
) -> None:
    repo = TestRepo(tmp_path / "kinds")
    repo.commit(
        "inherited tests and a doctest file",
        {
            "pyproject.toml": PYPROJECT
            + 'testpaths = ["tests"]\naddopts = ["--doctest-glob=*.txt"]\n',
            "tests/bases.py": INHERITED,
            "tests/test_child.py": "from bases import Base\n\n\nclass TestChild(Base):\n    pass\n",
            "tests/usage.txt": ">>> 1 + 1\n2\n",
        },
    )
    code, out, err = init(repo, capsys, *([] if trace else ["--no-trace"]))
    assert code == 0, err
    proposed = config.parse(out, "planegate.yml")
    assert proposed.planes["property"].paths == ("tests/test_child.py",)
    assert proposed.planes["fixture"].nodeids == ("tests/usage.txt::usage.txt",)
    assert "tests/usage.txt: 1 collected items that are not test functions" in err


def test_real_project_bench_names_the_missing_cache_and_how_to_fill_it(tmp_path: Path) -> None:
    bench = Path(__file__).resolve().parents[2] / "bench/real_projects.py"
    run = subprocess.run(
        [sys.executable, str(bench), "--cache", str(tmp_path), "--only", "attrs"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0
    assert run.stdout == (
        f"== attrs: SKIPPED: {tmp_path}/attrs-26.1.0.tar.gz is not in the cache; fill it with "
        "`python bench/real_projects.py --fetch` (needs the package index)\n"
    )


DOCTESTED = '''def total(items):
    """The sum of the prices.

    >>> total([1, 2])
    3
    """
    return sum(items)
'''


def test_a_modules_doctests_are_left_out_so_the_module_stays_the_patchs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # with --doctest-modules a production module's doctests are collected; their expected
    # values live in the file a patch changes, so init leaves the module out of the gate's
    # run instead of listing them (which would protect the module: PG301 on every patch)
    repo = TestRepo(tmp_path / "doctested")
    pyproject = PYPROJECT + 'testpaths = ["shop", "tests"]\naddopts = ["--doctest-modules"]\n'
    test = "from shop.price import total\n\n\ndef test_total():\n    assert total([2, 3]) == 5\n"
    repo.commit(
        "doctests",
        {
            "pyproject.toml": pyproject,
            "shop/__init__.py": "",
            "shop/price.py": DOCTESTED,
            "tests/test_price.py": test,
        },
    )
    code, _, err = init(repo, capsys, "--write")
    assert code == 0, err
    proposed = config.parse((repo.root / "planegate.yml").read_text(), "planegate.yml")
    assert proposed.pytest_args == ("--ignore=shop/price.py",)
    assert proposed.planes["fixture"].paths == ("tests/test_price.py",)
    assert proposed.planes["fixture"].nodeids == ()
    assert "shop/price.py: 1 collected items that are not test functions" in err
    assert main(["-C", str(repo.root), "lock", "-q"]) == 0
    repo.commit("planegate: planes and locks")
    repo.branch("honest")
    repo.commit("a comment", {"shop/price.py": "# prices in cents\n" + DOCTESTED})
    assert main(["-C", str(repo.root), "gate", "--base", "main", "-q"]) == 0
