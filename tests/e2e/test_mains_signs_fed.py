"""A harness change main shows too is main's (PG112) only when nothing that fed it changed:
the code that made it and every file that code read during the run. Main installs an import
finder that reads a table of module aliases; a patch that only adds a row to that table (a
property test module served from the patch's own passing copy) makes the same change, with
the same class from the same line, and must not pass as main's."""

from __future__ import annotations

import json
from typing import Any

import pytest

from helpers.repo_helper import TestRepo
from planegate.cli import main

ALIASES = (
    "import importlib.machinery\nimport importlib.util\nimport sys\nfrom pathlib import Path\n\n"
    "ROOT = Path(__file__).resolve().parent.parent\n\n\n"
    "class AliasFinder:\n"
    "    def find_spec(self, fullname, path=None, target=None):\n"
    "        table = (Path(__file__).parent / 'aliases.txt').read_text()\n"
    "        for row in table.splitlines():\n"
    "            name, _, files = row.partition('=')\n"
    "            if row.startswith('#') or name.strip() != fullname:\n"
    "                continue\n"
    "            shown, served = (ROOT / f.strip() for f in files.split(','))\n"
    "            loader = importlib.machinery.SourceFileLoader(fullname, str(served))\n"
    "            return importlib.util.spec_from_file_location(\n"
    "                fullname, str(shown), loader=loader\n"
    "            )\n"
    "        return None\n\n\n"
    "sys.meta_path.insert(0, AliasFinder())\n"
)
TABLE = "# module = file shown, file served\n"
COPY = (
    "_h = __import__('hypo' + 'thesis')\n"
    "_st = __import__('hypo' + 'thesis.strategies').strategies\n\n\n"
    "@_h.given(_st.integers(), _st.integers())\n"
    "def test_add_commutes(a, b):\n    assert a + b == b + a\n"
)
BUG = "def add(a, b):\n    return a - b\n\n\ndef label(n):\n    return f'n={n}'\n"


def gate(repo: TestRepo, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[dict[str, Any]]]:
    code = main(["-C", str(repo.root), "gate", "--base", "main", "--format", "json", "-q"])
    report = json.loads(capsys.readouterr().out)
    return code, [f for step in report["steps"] for f in step["findings"]]


@pytest.fixture
def aliased(project: TestRepo) -> TestRepo:
    project.commit(
        "module aliases",
        {
            "calc/__init__.py": "from calc import aliases  # noqa: F401\n",
            "calc/aliases.py": ALIASES,
            "calc/aliases.txt": TABLE,
        },
    )
    return project


def test_a_row_added_to_the_table_mains_finder_reads_is_not_mains(
    aliased: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    aliased.branch("alias")
    row = "test_add_props = tests/prop/test_add_props.py, calc/props_copy.py\n"
    aliased.commit(
        "alias",
        {"calc/core.py": BUG, "calc/props_copy.py": COPY, "calc/aliases.txt": TABLE + row},
    )

    code, found = gate(aliased, capsys)

    assert code != 0
    harness = [f for f in found if f["rule"] in ("PG107", "PG112") and "meta_path" in f["message"]]
    assert harness and all(f["rule"] == "PG107" for f in harness), found
    assert "calc/aliases.txt" in harness[0]["message"]


def test_mains_finder_fed_by_what_main_has_is_still_mains(
    aliased: TestRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    aliased.branch("honest")
    aliased.commit("a comment", {"calc/core.py": "# arithmetic\n" + BUG.replace("a - b", "a + b")})

    code, found = gate(aliased, capsys)

    harness = [f for f in found if f["rule"] in ("PG107", "PG112") and "meta_path" in f["message"]]
    assert harness and all(f["rule"] == "PG112" for f in harness), found
    assert code == 0, found


@pytest.mark.parametrize(
    ("edit", "rule"),
    [
        # six's case: every patch to its one module moves the lines of its import finder; the
        # finder is main's while neither its class nor what the class reads (`ROOT`) changes
        (lambda text: "# aliases\n" + text + "\n\ndef rows():\n    return TABLE_ROWS\n", "PG112"),
        (
            lambda text: text.replace(
                "        return None\n\n\n", "        return None  # no\n\n\n"
            ),
            "PG112",
        ),
        (
            lambda text: text.replace("return None\n\n\n", "return None\n\n    seen = ()\n\n\n"),
            "PG107",
        ),
        (lambda text: text.replace(".resolve().parent.parent", ".resolve().parents[1]"), "PG107"),
    ],
    ids=["elsewhere-in-the-file", "a-comment-in-the-class", "the-class", "what-the-class-reads"],
)
def test_mains_finder_is_mains_until_the_patch_changes_its_class(
    aliased: TestRepo, capsys: pytest.CaptureFixture[str], edit: Any, rule: str
) -> None:
    aliased.branch("finder-file")
    aliased.commit("the finder's file", {"calc/aliases.py": edit(ALIASES)})

    code, found = gate(aliased, capsys)

    harness = [f for f in found if f["rule"] in ("PG107", "PG112") and "meta_path" in f["message"]]
    assert harness and {f["rule"] for f in harness} == {rule}, found
    assert (code == 0) == (rule == "PG112"), found
