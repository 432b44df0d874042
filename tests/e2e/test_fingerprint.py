"""The gate's child looks like a plain `python -m pytest` run of the same tree.

Production code of a generated project records what it can observe of its process (facts
named in tests/helpers/fingerprint_project.py); one run by plain `python -m pytest`, one by
the gate's runner (`runner.session.run`, in a process of its own, as the CLI runs it), from
the same parent environment. Their facts are equal but for the exceptions docs/runner.md
lists, with why each stays (read from the doc, so the two cannot drift). Then the attacks
that told the two apart: each now sees its bug.
"""

from __future__ import annotations

import importlib.util
import json
import py_compile
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from helpers import fingerprint_project as fp
from helpers.attack_helper import COMMUTES, Shared, errors, reviewed
from planegate.config.load import parse
from planegate.runner import env as child_env
from planegate.runner import spec as run_spec

DOC = Path(__file__).resolve().parents[2] / "docs" / "runner.md"
SECTIONS = ("How the run differs from plain pytest", "What the sandbox changes")
CONFIG = """\
version: 1
owner: "@org/map"
planes:
  property:
    owner: "@org/props"
    paths: ["tests/"]
  fixture:
    owner: "@org/goldens"
    paths: ["goldens/"]
pytest:
  plugins: ["hypothesis"]
"""


def documented_exceptions() -> dict[str, str]:
    """Fact name -> why, from the tables of the doc's sections on what differs."""
    found: dict[str, str] = {}
    text = DOC.read_text("utf-8")
    for title in SECTIONS:
        match = re.search(rf"^#+ {re.escape(title)}\n(.*?)(?=^#+ |\Z)", text, re.M | re.S)
        if match is None:
            continue
        for line in match.group(1).splitlines():
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if len(cells) < 2 or not cells[0].startswith("`"):
                continue
            for name in re.findall(r"`([a-z_]+)`", cells[0]):
                found[name] = cells[1]
    return found


def _driven(driver: str, tree: Path) -> str:
    """The output of a driver script (tests/helpers/fingerprint_project.py) run on `tree` in
    a process of its own, from the parent environment a shell in the tree would have."""
    done = subprocess.run(
        [sys.executable, "-c", driver, str(tree), CONFIG],
        cwd=tree.parent,
        env=fp.parent_env(tree),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def gate_run(tree: Path) -> dict[str, Any]:
    return fp.facts_of(_driven(fp.GATE_DRIVER, tree))


def parked_run(project: Path) -> tuple[float, dict[str, Any]]:
    """The facts of the same run by a child started ahead of it (runner/parked.py), and the
    seconds that child waited for its run."""
    ahead, _, output = _driven(fp.PARKED_DRIVER, project).partition("\n")
    return float(ahead), fp.facts_of(output)


@pytest.fixture(scope="module")
def facts(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, Any]]:
    root = tmp_path_factory.mktemp("fingerprint")
    plain = fp.plain_run(fp.write(root / "plain"), root / "plain.log")
    return plain, gate_run(fp.write(root / "gate"))


def test_the_gates_child_shows_what_a_plain_run_shows(
    facts: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    plain, gate = facts
    exceptions = documented_exceptions()
    assert len(plain) >= 30 and set(plain) == set(gate)
    assert set(exceptions) <= set(plain), (
        f"the doc names no such fact: {set(exceptions) - set(plain)}"
    )
    differ = {name: (plain[name], gate[name]) for name in plain if plain[name] != gate[name]}
    unexplained = {name: values for name, values in differ.items() if name not in exceptions}
    assert not unexplained, f"differs from a plain run, not in docs/runner.md: {unexplained}"
    assert len(plain) - len(exceptions) >= 30  # at least 30 facts must read the same


def _one_run_of_many(facts: dict[str, Any]) -> str:
    """The facts with what differs between any two runs of the gate's child taken out: the
    names of temporary folders, namespace numbers, the descriptor bwrap reads its options
    from, how many mounts the machine has."""
    kept = {k: v for k, v in facts.items() if k != "mounts"}
    kept["namespaces"] = sorted(facts["namespaces"])
    text = json.dumps(kept, sort_keys=True)
    text = re.sub(r"tmp[A-Za-z0-9_]{8}", "tmp", text)
    return re.sub(r'"--args", "\d+"', '"--args", "N"', text)


def test_a_child_started_ahead_of_its_run_shows_what_a_child_started_for_it_shows(
    facts: tuple[dict[str, Any], dict[str, Any]], tmp_path: Path
) -> None:
    """`planegate gate` starts the head's child before its run is known (runner/parked.py):
    production code cannot tell that child from one started for the run."""
    ahead, parked = parked_run(fp.write(tmp_path / "parked"))
    assert ahead > 0.5  # the run was the waiting child's: it waited through the sleep
    assert _one_run_of_many(parked) == _one_run_of_many(facts[1])


def test_what_gave_the_child_away_now_reads_as_in_a_plain_run(
    facts: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    plain, gate = facts
    for name in ("argv", "orig_argv", "cmdline", "main", "flags", "pycache_prefix"):
        assert gate[name] == plain[name], name
    assert gate["cmdline"] == ["<python>", "-m", "pytest"]
    assert len(gate["argv"]) == 1 and gate["argv"][0].endswith("/pytest/__main__.py")
    assert gate["flags"]["no_user_site"] == 0 and gate["flags"]["hash_randomization"] == 1
    assert gate["pycache_prefix"] is None and not gate["dont_write_bytecode"]
    assert gate["pycache_in_tree"] and gate["tree_listing"] == plain["tree_listing"]
    assert gate["stdio_kinds"] == plain["stdio_kinds"] and gate["loaded_gate"] is False


def test_only_names_the_gate_never_passes_are_missing_from_the_environment(
    facts: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    plain, gate = facts
    assert not set(gate["env_names"]) - set(plain["env_names"])
    missing = set(plain["env_names"]) - set(gate["env_names"])
    assert missing == {"GITHUB_TOKEN", "GITHUB_ACTIONS", "PYTEST_CURRENT_TEST", "PYTEST_VERSION"}
    assert all(child_env.is_forbidden(name) for name in missing)


# --- bytecode: a run writes __pycache__ in the tree, a later run never reads it --------------

GOOD = "def add(a, b):\n    return a + b\n\n\ndef label(n):\n    return f'n={n}'\n"
# Production code that leaves the right answer as unchecked bytecode beside itself: a later
# run that read it would run the fix while the source shows the bug.
FORGER = """import os
import sys

_cache = os.path.join(os.path.dirname(__file__), "__pycache__")
os.makedirs(_cache, exist_ok=True)
with open({forged!r}, "rb") as _src:
    _data = _src.read()
with open(os.path.join(_cache, "core." + sys.implementation.cache_tag + ".pyc"), "wb") as _dst:
    _dst.write(_data)


def add(a, b):
    return a - b
"""


def test_bytecode_an_earlier_run_left_in_the_tree_is_not_loaded(tmp_path: Path) -> None:
    # in the tree: the sandbox shows the child nothing of the test's own temporary folder
    source, forged = (
        tmp_path / "tree" / "forged" / "good.py",
        tmp_path / "tree" / "forged" / "good.bin",
    )
    source.parent.mkdir(parents=True)
    source.write_text(GOOD, "utf-8")
    unchecked = py_compile.PycInvalidationMode.UNCHECKED_HASH
    py_compile.compile(str(source), cfile=str(forged), invalidation_mode=unchecked)
    assert forged.read_bytes()[:4] == importlib.util.MAGIC_NUMBER
    tree = fp.write(
        tmp_path / "tree",
        {
            "calc/__init__.py": "",
            "calc/core.py": FORGER.format(forged=str(forged)),
            "tests/test_add.py": "from calc.core import add\n\n\n"
            "def test_add():\n    assert add(2, 3) == 5\n",
        },
    )
    sessions = run_spec.Sessions(tree, parse(CONFIG, "planegate.yml"), {"testpaths": "tests"})
    for _ in range(2):  # a later session in the same tree: a probe, a rerun, triage
        result = sessions.run()
        assert result.outcome_of("tests/test_add.py::test_add").outcome == "failed"
        assert not [t for t in result.tampering if "compiled" in t.event], result.tampering
    assert not list(tree.rglob("__pycache__"))  # the run's caches leave with it


def test_an_uncached_dependency_production_code_imports_is_no_sign(tmp_path: Path) -> None:
    """Bytecode is written as in a plain run, but not into the interpreter's or the project's
    site: the import system's write is refused without a record, and the import goes on."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "depmod.py").write_text("OFFSET = 5\n", "utf-8")
    tree = fp.write(
        tmp_path / "tree",
        {
            "calc/__init__.py": "",
            "calc/core.py": "def add(a, b):\n    import depmod\n\n"
            "    return a + b + depmod.OFFSET - 5\n",
            "tests/test_add.py": "from calc.core import add\n\n\n"
            "def test_add():\n    assert add(2, 3) == 5\n",
        },
    )
    environ = {"PATH": "/usr/local/bin:/usr/bin:/bin", "PLANEGATE_PROJECT_SITE": str(site)}
    cfg = parse(CONFIG, "planegate.yml")
    result = run_spec.Sessions(tree, cfg, {"testpaths": "tests"}, environ).run()
    assert result.outcome_of("tests/test_add.py::test_add").passed, result.output[-2000:]
    assert not result.tampering
    assert not (site / "__pycache__").exists()


def test_the_child_runs_with_what_the_projects_tox_sets(tmp_path: Path) -> None:
    tree = fp.write(
        tmp_path / "tree",
        {
            "tox.ini": "[testenv]\nsetenv =\n    TZ = Asia/Tokyo\n    PYTHONHASHSEED = 7\n",
            "tests/test_env.py": "import os\nimport sys\nimport time\n\n\n"
            "def test_env():\n    assert time.tzname[0] == 'JST'\n"
            "    assert os.environ['PYTHONHASHSEED'] == '7'\n"
            "    assert sys.flags.hash_randomization == 1\n",
        },
    )
    environ = {"PATH": "/usr/local/bin:/usr/bin:/bin", "TZ": "UTC"}
    cfg = parse(CONFIG, "planegate.yml")
    result = run_spec.Sessions(tree, cfg, {"testpaths": "tests"}, environ).run()
    assert result.outcome_of("tests/test_env.py::test_env").passed, result.output[-2000:]


# --- attacks: production code that switched its bug off inside the gate's child -----------


def _switch(condition: str, imports: str = "import sys") -> str:
    return (
        f"{imports}\n\n\ndef add(a, b):\n    if {condition}:\n        return a + b\n"
        "    return a - b\n\n\ndef label(n):\n    return f'n={n}'\n"
    )


ATTACKS = {
    "argv-dash": _switch('sys.argv[0] == "-"'),
    "pycache-prefix": _switch("sys.pycache_prefix is not None and sys.flags.no_user_site"),
    "no-bytecode-env": _switch('"PYTHONDONTWRITEBYTECODE" in os.environ', "import os"),
    "hash-seed-zero": _switch("not sys.flags.hash_randomization"),
    "cmdline": _switch(
        "open('/proc/self/cmdline', 'rb').read().split(b'\\0')[1:3] != [b'-m', b'pytest']"
    ),
}


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Shared:
    return Shared(tmp_path_factory.mktemp("fingerprint-attacks"))


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_a_bug_switched_off_by_what_only_the_child_showed_is_seen(
    shared: Shared, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    shared.patch(name, {"calc/core.py": ATTACKS[name]})
    code, report = shared.gate(capsys)
    # the bug is seen (PG101); a patch that names /proc also stops for a person (step 5)
    assert code == 1 or reviewed(code, report)
    failed = [f for s in report["steps"] for f in s["findings"] if f["rule"] == "PG101"]
    assert COMMUTES in {f.get("nodeid") for f in failed}, errors(report)


def test_honest_code_reading_its_process_still_passes(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    honest = (
        "import os\nimport sys\n\n_PROGRAM = os.path.basename(sys.argv[0])\n"
        "_DEBUG = bool(os.environ.get('CALC_DEBUG')) or sys.flags.dev_mode\n\n\n"
        "def add(a, b):\n    return b + a\n\n\ndef label(n):\n    return 'n=' + str(n)\n"
    )
    shared.patch("honest-reader", {"calc/core.py": honest})
    code, report = shared.gate(capsys)
    assert code == 0, errors(report)
