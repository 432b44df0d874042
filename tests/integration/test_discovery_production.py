"""Production source is never fixture data: a packaging test that reads `pyproject.toml` and
every module of the package makes none of them data (`init`), warns about none (`lock`), and
leaves honest production changes green (the gate's PG308 never counts them); a golden under a
test data folder stays evidence even though the same test reads it."""

from __future__ import annotations

from pathlib import Path

from helpers.repo_helper import TestRepo
from helpers.seed_project import CORE, FILES, cli, findings, gate_json
from planegate.config import load as config_mod

PACKAGING_TEST = (
    "from pathlib import Path\n\n"
    "ROOT = Path(__file__).parent.parent\n\n\n"
    "def test_sdist_holds_the_package():\n"
    "    names = ['pyproject.toml', 'README.md', 'LICENSE', 'tests/data/label.txt']\n"
    "    names += [p.relative_to(ROOT).as_posix() for p in sorted((ROOT / 'calc').glob('*.py'))]\n"
    "    for name in names:\n"
    "        assert (ROOT / name).read_text() is not None\n"
)

PROJECT: dict[str, str | bytes] = {
    **FILES,
    "pyproject.toml": "[project]\nname = 'calc'\nversion = '1.0'\n",
    "README.md": "# calc\n",
    "LICENSE": "MIT\n",
    "calc/extra.py": "def double(n):\n    return 2 * n\n",
    "tests/test_packaging.py": PACKAGING_TEST,
}


def _project(tmp_path: Path) -> TestRepo:
    repo = TestRepo(tmp_path / "suite")
    repo.commit("project", PROJECT)
    return repo


def test_init_proposes_no_production_file_and_names_the_packaging_test_once(
    tmp_path: Path,
) -> None:
    repo = _project(tmp_path)
    done = cli(repo.root, "init")
    assert done.returncode == 0, done.stderr
    data = config_mod.parse(done.stdout, "planegate.yml").planes["fixture"].data
    assert data == ("tests/data/",)
    package = [line for line in done.stderr.splitlines() if "reads the package" in line]
    assert package == [
        "planegate: reads the package: tests/test_packaging.py::test_sdist_holds_the_package "
        "(production source and project metadata are never fixture data)"
    ]
    assert "calc/" not in "".join(line for line in done.stderr.splitlines() if "data:" in line)


def test_honest_change_passes_and_a_golden_rewrite_still_fails(tmp_path: Path) -> None:
    repo = _project(tmp_path)
    assert cli(repo.root, "init", "--write").returncode == 0
    locked = cli(repo.root, "lock")
    assert locked.returncode == 0, locked.stderr
    assert "locked 2 fixture data files" in locked.stdout
    assert "warning" not in locked.stderr
    repo.commit("planegate")
    repo.branch("honest")
    repo.commit(
        "a new helper, a new module and a version bump",
        {
            "calc/core.py": CORE + "\n\ndef sub(a, b):\n    return a - b\n",
            "calc/more.py": "def triple(n):\n    return 3 * n\n",
            "pyproject.toml": "[project]\nname = 'calc'\nversion = '1.1'\n",
            "README.md": "# calc\n\nNow with sub.\n",
        },
    )
    code, report = gate_json(repo.root)
    assert code == 0, findings(report)
    assert findings(report, "PG308") == []
    repo.checkout("main")
    repo.branch("rewrite")
    repo.commit(
        "new label and its golden",
        {"calc/core.py": CORE.replace("f'n={n}'", "f'N={n}'"), "tests/data/label.txt": "N=3"},
    )
    code, report = gate_json(repo.root)
    assert code == 3
    assert [f["path"] for f in findings(report, "PG302")] == ["tests/data/label.txt"]


def test_unlocked_test_data_read_with_the_package_stays_evidence(tmp_path: Path) -> None:
    repo = _project(tmp_path)
    assert cli(repo.root, "init", "--write", "--no-trace").returncode == 0  # no data locked
    repo.commit("planegate")
    repo.branch("rewrite")
    repo.commit(
        "new label and its golden",
        {"calc/core.py": CORE.replace("f'n={n}'", "f'N={n}'"), "tests/data/label.txt": "N=3"},
    )
    code, report = gate_json(repo.root)
    assert code == 3
    assert [f["path"] for f in findings(report, "PG308")] == ["tests/data/label.txt"]
