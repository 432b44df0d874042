"""Only files git tracks are data: a tool's cache (`.hypothesis/`, git-ignored), an untracked
file and a path a test only probes are never proposed by `init`, locked or warned about by
`lock`, and the first honest patch after the quick start passes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from helpers.repo_helper import TestRepo
from helpers.seed_project import CORE, FILES, cli, findings, gate_json
from planegate.config import load as config_mod

CACHE_TEST = (
    "from pathlib import Path\n\n"
    "ROOT = Path(__file__).parent.parent\n\n\n"
    "def test_reads_its_caches_and_probes():\n"
    "    names = ['.hypothesis/examples/ab/cd', 'scratch.txt', '.pdbrc', 'tests/data/absent.txt']\n"
    "    for name in names:\n"
    "        try:\n"
    "            (ROOT / name).read_text()\n"
    "        except FileNotFoundError:\n"
    "            pass\n"
)


def _project(tmp_path: Path) -> TestRepo:
    repo = TestRepo(tmp_path / "suite")
    repo.commit(
        "project",
        {**FILES, ".gitignore": ".hypothesis/\n", "tests/test_cache.py": CACHE_TEST},
    )
    repo.write({".hypothesis/examples/ab/cd": "x", "scratch.txt": "x"})  # ignored; untracked
    return repo


def test_init_and_lock_see_only_tracked_files(tmp_path: Path) -> None:
    repo = _project(tmp_path)
    done = cli(repo.root, "init", "--write")
    assert done.returncode == 0, done.stderr
    text = (repo.root / "planegate.yml").read_text()
    data = config_mod.parse(text, "planegate.yml").planes["fixture"].data
    assert data == ("tests/data/",)
    for absent in (".hypothesis", "scratch.txt", ".pdbrc", "absent.txt"):
        assert absent not in text and absent not in done.stderr
    locked = cli(repo.root, "lock")
    assert locked.returncode == 0, locked.stderr
    assert "locked 2 fixture data files" in locked.stdout
    assert locked.stderr == ""
    manifest = (repo.root / "tests/fixtures.lock.json").read_text()
    assert ".hypothesis" not in manifest and "scratch" not in manifest


def test_lock_never_locks_an_ignored_file_its_patterns_match(tmp_path: Path) -> None:
    repo = _project(tmp_path)
    assert cli(repo.root, "init", "--write").returncode == 0
    config = (repo.root / "planegate.yml").read_text()
    config = config.replace("- tests/data/", "- /.hypothesis/\n    - tests/data/")
    (repo.root / "planegate.yml").write_text(config)
    assert config_mod.parse(config, "planegate.yml").planes["fixture"].data[0] == "/.hypothesis/"
    locked = cli(repo.root, "lock")
    assert locked.returncode == 0, locked.stderr
    assert ".hypothesis" not in (repo.root / "tests/fixtures.lock.json").read_text()


def test_the_first_honest_patch_after_the_quick_start_passes(tmp_path: Path) -> None:
    repo = _project(tmp_path)
    assert cli(repo.root, "init", "--write").returncode == 0
    assert cli(repo.root, "lock").returncode == 0
    repo.commit("planegate")
    repo.branch("honest")
    repo.commit("a new function", {"calc/core.py": CORE + "\n\ndef sub(a, b):\n    return a - b\n"})
    code, report = gate_json(repo.root)
    assert code == 0, findings(report)


def test_the_quick_start_with_a_hypothesis_test_and_no_gitignore(tmp_path: Path) -> None:
    """A fresh repository as the quick start leaves it: no `.gitignore`, the suite run once
    with plain pytest (Hypothesis writes its example database), then the quick start's
    commands; `.hypothesis/` is untracked, so it is neither configured nor locked."""
    repo = TestRepo(tmp_path / "fresh")
    repo.commit("project", FILES)
    plain = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=repo.root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert plain.returncode == 0, plain.stdout
    assert (repo.root / ".hypothesis").is_dir()  # what the gate must not take for data
    done = cli(repo.root, "init", "--split", "--write")
    assert done.returncode == 0, done.stderr
    assert cli(repo.root, "lock").returncode == 0
    config = (repo.root / "planegate.yml").read_text()
    manifest = (repo.root / "tests/fixtures.lock.json").read_text()
    assert ".hypothesis" not in config and ".hypothesis" not in manifest
    repo.git("add", "planegate.yml", "tests/")
    repo.git("commit", "-q", "-m", "planegate: planes and locks")
    repo.branch("honest")
    repo.commit("a new function", {"calc/core.py": CORE + "\n\ndef sub(a, b):\n    return a - b\n"})
    code, report = gate_json(repo.root)
    assert code == 0, findings(report)
