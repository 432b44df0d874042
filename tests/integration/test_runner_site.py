"""The project's site folders reach the test child only, after the harness (real processes).

A site folder holds what a hostile install leaves: a `.pth` that imports a module recording
every process it runs in, a `sitecustomize.py` doing the same, a `.pth` that tries to put a
path and an import finder in front of the harness. planegate's own process starts with
`python -I`: none of it runs there, even with PYTHONPATH and PYTHONUSERBASE pointing at it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

from planegate.runner import session
from planegate.runner.child.disguise import padding

PLANTED = """import os, sys
HARNESS_FIRST = "pytest" in sys.modules and "pluggy" in sys.modules
with open({mark!r}, "a") as _handle:
    _handle.write(f"{{__name__}} {{os.getpid()}} {{sys.orig_argv!r}}\\n")


class Finder:
    def find_spec(self, name, path=None, target=None):
        return None
"""
FRONT = "import sys, _planted; sys.path.insert(0, '/planted-front'); "
FRONT += "sys.meta_path.insert(0, _planted.Finder())\n"

TESTS = """import importlib.machinery
import os
import sys

import _pytest
import pluggy
import pytest

SITE = {site!r}


def _entry(module):
    return os.path.dirname(os.path.dirname(module.__file__))


def test_the_pth_ran_in_this_process_after_the_harness():
    assert sys.modules["_planted"].HARNESS_FIRST
    site = sys.path.index(SITE)
    for module in (pytest, pluggy, _pytest):
        assert sys.path.index(_entry(module)) < site


def test_what_the_pth_put_in_front_is_behind_the_harness():
    assert sys.path.index("/planted-front") > sys.path.index(_entry(pytest))
    kinds = [getattr(f, "__name__", type(f).__name__) for f in sys.meta_path]
    assert kinds.index("Finder") > kinds.index("PathFinder")


def test_sitecustomize_is_visible_but_was_not_run():
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", [SITE])
    assert spec is not None and spec.origin == os.path.join(SITE, "sitecustomize.py")
"""

DRIVER = """import json, sys
from pathlib import Path
from planegate.runner import session
from planegate.runner.child.disguise import padding

spec = session.RunSpec(tree=Path(sys.argv[1]), ini_options={}, plugins=(), timeout=300)
environ = {"PATH": "/usr/local/bin:/usr/bin:/bin", "PLANEGATE_PROJECT_SITE": sys.argv[2]}
environ["PLANEGATE_SANDBOX_WRITABLE"] = sys.argv[3]  # the mark the child's .pth writes
result = session.run(spec, parent_env=environ)
print(json.dumps({
    "outcomes": {k: v.outcome for k, v in result.outcomes.items()},
    "closed": result.closed,
    "canary": result.canary_problem,
    "tampering": [t.event for t in result.tampering],
    "planted": sorted(m for m in sys.modules if m in ("_planted", "sitecustomize")),
    "output": result.output[-3000:],
}))
"""


def _site(root: Path, mark: Path) -> Path:
    """A prefix's site folder, as pip --prefix lays it out, holding the planted files."""
    base = {"base": str(root), "platbase": str(root)}
    site = Path(sysconfig.get_path("purelib", vars=base))
    site.mkdir(parents=True)
    (site / "_planted.py").write_text(PLANTED.format(mark=str(mark)))
    (site / "sitecustomize.py").write_text(PLANTED.format(mark=str(mark)))
    (site / "usercustomize.py").write_text(PLANTED.format(mark=str(mark)))
    (site / "aa_planted.pth").write_text("import _planted\n")
    (site / "zz_front.pth").write_text(FRONT)
    return site


def _tree(root: Path, site: Path) -> Path:
    tree = root / "tree"
    (tree / "tests").mkdir(parents=True)
    (tree / "tests" / "test_site.py").write_text(TESTS.format(site=str(site)))
    return tree


def _hostile_env(root: Path, site: Path) -> dict[str, str]:
    """What would bring the site into an interpreter that is not isolated."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(root),
        "PYTHONPATH": str(site),
        "PYTHONUSERBASE": str(root / "prefix"),
        "PYTHONSTARTUP": str(site / "_planted.py"),
    }


def _marks(mark: Path) -> list[str]:
    return mark.read_text().splitlines() if mark.exists() else []


def test_the_site_never_runs_in_an_isolated_planegate_but_reaches_the_child(
    tmp_path: Path,
) -> None:
    mark = tmp_path / "ran.txt"
    site = _site(tmp_path / "prefix", mark)
    tree = _tree(tmp_path, site)
    hostile = _hostile_env(tmp_path, site)
    control = [sys.executable, "-c", "import planegate"]
    subprocess.run(control, env=hostile, cwd=site, check=True)
    assert any(line.startswith("sitecustomize ") for line in _marks(mark)), "the plant is armed"
    mark.unlink()

    argv = [sys.executable, "-I", "-c", DRIVER, str(tree), str(site), str(tmp_path)]
    done = subprocess.run(argv, env=hostile, cwd=site, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["planted"] == [], "planted code was imported into planegate's process"
    assert result["closed"] and result["canary"] is None, result["output"]
    assert set(result["outcomes"].values()) == {"passed"}, result
    assert len(result["outcomes"]) == 3
    assert result["tampering"] == []
    lines = _marks(mark)
    assert lines, "the test child did not run the project's .pth"
    assert all(line.startswith("_planted ") for line in lines), lines  # never sitecustomize
    started = f"'-', '{padding()}'"  # the child as started, before it reads as `-m pytest`
    assert all(started in line and "'-I'" not in line for line in lines), lines


def test_the_cli_child_sees_the_interpreters_own_site_and_no_project_site(
    tmp_path: Path,
) -> None:
    tree = tmp_path / "tree"
    (tree / "tests").mkdir(parents=True)
    (tree / "tests" / "test_paths.py").write_text(
        "import site, sys\n\n\ndef test_paths():\n"
        "    assert any(p in sys.path for p in site.getsitepackages())\n"
        "    assert not any('planegate-project' in p for p in sys.path)\n"
    )
    spec = session.RunSpec(tree=tree, ini_options={}, plugins=(), timeout=300)
    result = session.run(spec, parent_env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    assert result.closed and result.outcome_of("tests/test_paths.py::test_paths").passed


def test_a_pth_that_patches_the_harness_is_named(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "zz_patch.pth").write_text(
        "import _pytest.runner as r; r.show_test_item = lambda item: None\n"
    )
    tree = tmp_path / "tree"
    (tree / "tests").mkdir(parents=True)
    (tree / "tests" / "test_ok.py").write_text("def test_ok():\n    assert True\n")
    spec = session.RunSpec(tree=tree, ini_options={}, plugins=(), timeout=300)
    environ = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PLANEGATE_PROJECT_SITE": str(site)}
    result = session.run(spec, parent_env=environ)
    events = [t.event for t in result.tampering]
    wanted = "harness changed: _pytest.runner.show_test_item replaced (by the project's site)"
    assert wanted in events, events


def test_an_allowed_plugin_the_project_installs_is_found_in_its_site(tmp_path: Path) -> None:
    site = tmp_path / "site"
    for dist, point in (("myplug", "myplug = my_plugin_mod"), ("other", "hypothesis = other")):
        (site / f"{dist}-1.0.dist-info").mkdir(parents=True)
        (site / f"{dist}-1.0.dist-info" / "METADATA").write_text(f"Name: {dist}\nVersion: 1\n")
        (site / f"{dist}-1.0.dist-info" / "entry_points.txt").write_text(f"[pytest11]\n{point}\n")
    (site / "my_plugin_mod.py").write_text(
        "import pytest\n\n\n@pytest.fixture\ndef planted_value():\n    return 42\n"
    )
    assert session.plugin_modules(["myplug", "hypothesis"], [str(site)]) == [
        "my_plugin_mod",
        "_hypothesis_pytestplugin",  # the interpreter's own distribution wins
    ]
    tree = tmp_path / "tree"
    (tree / "tests").mkdir(parents=True)
    (tree / "tests" / "test_fixture.py").write_text(
        "def test_uses_it(planted_value):\n    assert planted_value == 42\n"
    )
    spec = session.RunSpec(tree=tree, ini_options={}, plugins=("myplug",), timeout=300)
    environ = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PLANEGATE_PROJECT_SITE": str(site)}
    result = session.run(spec, parent_env=environ)
    assert result.outcome_of("tests/test_fixture.py::test_uses_it").passed, result.output


# The child really running as the project user, with no capability, needs root and an
# interpreter both users can run: `make image-smoke` checks it in the image.
