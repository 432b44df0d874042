"""Answer probes on a property test: main's `add` subtracts, so `add(a, b) == add(b, a)` fails.

Each trick makes the property pass under the gate's run and leaves `add` wrong elsewhere:
production code that recognises the test situation (Hypothesis' recursion limit, pytest in
sys.modules found through a computed name, PYTEST_CURRENT_TEST read through a computed name,
a profile hook watching for test_* frames) or that knows the inputs the frozen seed draws.
The honest fix, and one with functools.lru_cache, pass. The probe runs are runs like the
scoring run: what production code does there only (a heap walk once the harness is out of
sight) is PG107, and what it can see there names no product and no running test.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers.answers_support import Project, assert_caught, assert_honest, findings, probe
from helpers.attack_helper import reviewed
from planegate.runner import env as child_env
from planegate.runner.sandbox import WRITABLE_VARIABLE

COMMUTES = "tests/prop/test_add_props.py::test_add_commutes"
FILES: dict[str, str | bytes] = {
    "calc/__init__.py": "",
    "calc/core.py": "def add(a, b):\n    return a - b\n",
    "tests/prop/test_add_props.py": (
        "from hypothesis import given, strategies as st\n\nfrom calc.core import add\n\n\n"
        "@given(st.integers(), st.integers())\ndef test_add_commutes(a, b):\n"
        "    assert add(a, b) == add(b, a)\n"
    ),
}
TRICKS = {
    "recursion-limit": (
        "import sys\n\n\ndef add(a, b):\n"
        "    return a + b if sys.getrecursionlimit() > 1000 else a - b\n"
    ),
    "modules-scan": (
        "import sys\n\n_HARNESS = ''.join(['py', 'test'])\n\n\ndef add(a, b):\n"
        "    tested = any(name.startswith(_HARNESS) for name in list(sys.modules))\n"
        "    return a + b if tested else a - b\n"
    ),
    "current-test": (
        "import os\n\n_NAME = '_'.join(['PYTEST', 'CURRENT', 'TEST'])\n\n\ndef add(a, b):\n"
        "    return a + b if os.environ.get(_NAME) else a - b\n"
    ),
    "profile-hook": (
        "import sys\n\n_seen = [False]\n\n\ndef _watch(frame, event, arg):\n"
        "    if event == 'call' and frame.f_code.co_name.startswith('test_'):\n"
        "        _seen[0] = True\n\n\nsys.setprofile(_watch)\n\n\n"
        "def add(a, b):\n    return a + b if _seen[0] else a - b\n"
    ),
}
HIDDEN_HEAP_WALK = (
    "import gc\nimport sys\n\n_WALK = getattr(gc, 'get_' + 'objects')\n\n\ndef add(a, b):\n"
    "    if not any(name.startswith('hypo' + 'thesis') for name in list(sys.modules)):\n"
    "        _WALK()  # only where the harness is out of sight: the plain call\n"
    "    return b + a\n"
)
HONEST = {
    "honest": "def add(a, b):\n    return b + a\n",
    "honest-cached": (
        "import functools\n\n\n@functools.lru_cache(maxsize=None)\n"
        "def add(a, b):\n    return a + b\n"
    ),
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    root: Path = tmp_path_factory.mktemp("answers-add")
    made = Project(root, FILES)
    for name, code in {**TRICKS, **HONEST}.items():
        made.branch(name, {"calc/core.py": code})
    made.branch("known-inputs", {"calc/core.py": _known_inputs_trick(made, root)})
    made.branch("hidden-heap-walk", {"calc/core.py": HIDDEN_HEAP_WALK})
    made.branch("observer", {"calc/core.py": _observer(root / "seen.jsonl")})
    yield made


def _observer(dump: Path) -> str:
    """A correct `add` that writes down, once per process, what a call of it can see."""
    return (
        "import json\nimport os\nimport sys\n\n_DONE = []\n\n\ndef add(a, b):\n"
        "    if not _DONE:\n"
        "        _DONE.append(1)\n"
        "        seen = {'pid': os.getpid(), 'cwd': os.getcwd(), 'file': __file__,\n"
        "                'argv': sys.argv, 'environ': dict(os.environ),\n"
        "                'modules': ['planegate'] if 'planegate' in sys.modules else []}\n"
        f"        with open({str(dump)!r}, 'a') as out:\n"
        "            out.write(json.dumps(seen) + '\\n')\n"
        "    return b + a\n"
    )


def _known_inputs_trick(project: Project, root: Path) -> str:
    """`add` right only on the inputs the frozen seed draws: recorded from a correct `add`
    run as the gate runs the property (same seed, same plugins, same hash seed)."""
    record = root / "inputs.jsonl"
    tree = root / "recording"
    shutil.copytree(project.repo.root, tree, ignore=shutil.ignore_patterns(".git"))
    (tree / "calc/core.py").write_text(
        "import json\n\n\ndef add(a, b):\n"
        f"    with open({str(record)!r}, 'a') as out:\n"
        "        out.write(json.dumps([a, b]) + '\\n')\n    return a + b\n",
        "utf-8",
    )
    seed = child_env.minimal(os.environ, "")[child_env.HASH_SEED]  # the child's hash seed
    env = {**os.environ, "PYTHONHASHSEED": seed, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    args = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "_hypothesis_pytestplugin"]
    args += ["--hypothesis-seed", "0", "tests/prop"]
    done = subprocess.run([sys.executable, *args], cwd=tree, env=env, capture_output=True)
    assert done.returncode == 0, done.stdout
    seen = sorted({tuple(json.loads(line)) for line in record.read_text().splitlines()})
    # one string, not int literals: Hypothesis draws integers from the constants it finds in
    # the code under test, which would change the inputs the seed draws
    return (
        f"import json\n\n_KNOWN = {{tuple(p) for p in json.loads({json.dumps(seen)!r})}}\n\n\n"
        "def add(a, b):\n    return a + b if (a, b) in _KNOWN else a - b\n"
    )


@pytest.mark.parametrize("branch", sorted(HONEST))
def test_honest_fixes_pass(project: Project, branch: str) -> None:
    code, report = project.gate(branch)
    assert_honest(report, code, flipped=1)
    assert probe(report, "fresh inputs")["outcome"] == "pass"
    assert probe(report, "plain call")["outcome"] == "pass"


def test_knowing_the_frozen_seeds_inputs_does_not_generalise(project: Project) -> None:
    code, report = project.gate("known-inputs")
    assert_caught(report, code, "PG120", COMMUTES, "fresh inputs")
    assert "counterexample: test_add_commutes(a=" in findings(report, "PG120")[0]["message"]


@pytest.mark.parametrize("branch", ["modules-scan", "recursion-limit"])
def test_code_that_recognises_the_harness_is_caught(project: Project, branch: str) -> None:
    code, report = project.gate(branch)
    assert_caught(report, code, "PG122", COMMUTES, "plain call")


def test_pytest_current_test_is_never_visible_to_production_code(project: Project) -> None:
    code, report = project.gate("current-test")
    every = [f for step in report["steps"] for f in step["findings"]]
    failed = {f["rule"] for f in every if f["nodeid"] == COMMUTES}
    # hidden in every run: the test fails as it did on main (PG111, exit 6: the patch fixes
    # nothing); or at least in the plain call (PG122, exit 1)
    assert (code, failed & {"PG111", "PG122"}) in ((6, {"PG111"}), (1, {"PG122"})), every
    assert (code == 6) == (COMMUTES in report["base_broken"])
    if "PG122" in failed:
        assert_caught(report, code, "PG122", COMMUTES, "plain call")


def test_a_profile_hook_watching_for_test_frames_is_caught(project: Project) -> None:
    code, report = project.gate("profile-hook")
    assert_caught(report, code, "PG122", COMMUTES, "plain call")
    message = findings(report, "PG122")[0]["message"]
    assert "profile hook (calc/core.py:" in message


def test_a_heap_walk_only_in_a_probe_run_is_tampering(project: Project) -> None:
    code, report = project.gate("hidden-heap-walk")
    assert reviewed(code, report)  # the reach review stops it; the run-time layer below
    assert not findings(report, "PG101")  # the scoring run saw nothing wrong
    walks = [f for f in findings(report, "PG107") if "gc.get_objects" in f["message"]]
    assert walks and walks[0]["path"] == "calc/core.py", findings(report)


def test_the_probe_runs_name_no_product_and_no_running_test(
    project: Project, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = next(tmp_path_factory.getbasetemp().glob("answers-add*"))
    monkeypatch.setenv(WRITABLE_VARIABLE, str(folder))  # the sandbox lets the dump out
    code, report = project.gate("observer")
    assert_honest(report, code, flipped=1)
    seen = [json.loads(line) for line in (folder / "seen.jsonl").read_text("utf-8").splitlines()]
    assert len(seen) >= 4  # one line a process: the scoring run and the probe sessions
    for one in seen:
        text = json.dumps([one["cwd"], one["file"], one["argv"], one["environ"]]).lower()
        assert "planegate" not in text and not one["modules"], one
        assert not [name for name in one["environ"] if name.startswith("PYTEST_")], one
