"""The head's child started ahead of its run (runner/parked.py), with real processes: it waits
for a run in its own tree only, a run that would start it otherwise kills it, and one never
taken is killed and its folders removed; a spare for the next run in a tree, and what the
runs in one tree read of its `tox.ini`."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from helpers.processes import alive
from helpers.repo_helper import TestRepo
from planegate.config.load import parse
from planegate.runner import collector, launch, parked, session
from planegate.runner.spec import Sessions

TOX = "[testenv]\nsetenv =\n    CALC_MODE = main\n"


def _waiting() -> launch.Started:
    slot = parked._SLOT[0]
    slot.ready.wait()
    assert slot.started is not None, "the child did not start"
    return slot.started


def _repo(tmp_path: Path) -> TestRepo:
    repo = TestRepo(tmp_path / "repo")
    repo.commit("main", {"tox.ini": TOX, "README": "x\n"})
    return repo


def test_a_child_never_taken_is_killed_and_its_folders_removed(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    with parked.ahead(repo.root, os.environ, "main"):
        started = _waiting()
        tree = parked.reserved()
        assert tree is not None and tree.is_dir() and not any(tree.iterdir())
        assert alive(started.proc.pid)
        assert started.plan.env["CALC_MODE"] == "main"  # main's tox.ini, read from git
    assert not alive(started.proc.pid)
    assert not tree.parent.exists() and not started.plan.scratch.exists()
    assert parked.reserved() is None


def test_a_run_in_another_tree_leaves_the_child_waiting(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    with parked.ahead(repo.root, os.environ, "main"):
        started = _waiting()
        elsewhere = replace(started.plan, tree=tmp_path / "elsewhere")
        assert parked.take(elsewhere) is None
        assert alive(started.proc.pid) and parked.reserved() == started.plan.tree
        assert parked.take(started.plan) is started  # its own tree, the same plan
        assert parked.reserved() is None
        started.discard()
    assert not alive(started.proc.pid)


def test_a_run_that_would_start_its_child_otherwise_kills_the_waiting_one(
    tmp_path: Path,
) -> None:
    repo = _repo(tmp_path)
    with parked.ahead(repo.root, os.environ, "main"):
        started = _waiting()
        other = replace(started.plan, env={**started.plan.env, "CALC_MODE": "patch"})
        assert parked.take(other) is None
        assert not alive(started.proc.pid)
        assert parked.reserved() is None


# A child's steps before and after it reads its spec: a distribution with a `hypothesis`
# entry point (code Hypothesis's import runs) records when it ran, and so does the spec read.
ORDER = """
import json, os, sys
sys.path[:] = [p for p in sys.path if p not in ('', '.')] + [{site!r}]
main = __import__('planegate.runner.child.main', fromlist=['prepare'])
log = {log!r}
read = main._read_spec

def reading(fd):
    with open(log, 'a') as handle:
        handle.write('spec read, pytest %s, hypothesis %s\\n' % (
            'pytest' in sys.modules, 'hypothesis' in sys.modules))
    return read(fd)

main._read_spec = reading
tree = {tree!r}
spec = {{
    "nonce": "n", "deselect": [], "rootdir": tree, "args": [], "trusted": [], "protect": [],
    "fd": os.open(os.devnull, os.O_WRONLY), "modules": [], "site": [], "roots": [tree],
}}
r, w = os.pipe()
os.write(w, json.dumps(spec).encode())
os.close(w)
main.prepare(r)
"""
HOOK = (
    "import os\nimport _hypothesis_globals\n\n\n"
    "def hook():\n    with open({log!r}, 'a') as handle:\n"
    "        handle.write('entry point, initialising %s, held back by the environment %s\\n' % (\n"
    "            _hypothesis_globals.in_initialization,"
    " 'HYPOTHESIS_NO_PLUGINS' in os.environ))\n"
)


def test_the_code_hypothesis_runs_at_import_comes_after_the_spec_and_the_audit_hook(
    tmp_path: Path,
) -> None:
    site, log, tree = tmp_path / "site", tmp_path / "order.log", tmp_path / "tree"
    (site / "probe-1.0.dist-info").mkdir(parents=True)
    tree.mkdir()
    (site / "probe-1.0.dist-info" / "METADATA").write_text("Name: probe\nVersion: 1.0\n")
    entry = "[hypothesis]\nprobe = probe_hook:hook\n"
    (site / "probe-1.0.dist-info" / "entry_points.txt").write_text(entry)
    (site / "probe_hook.py").write_text(HOOK.format(log=str(log)))
    script = ORDER.format(site=str(site), log=str(log), tree=str(tree))
    done = subprocess.run(
        [sys.executable, "-s", "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    # Hypothesis's own modules before the spec; its entry points after, run as its import
    # runs them (while it counts itself initialising), the variable holding them back gone
    assert log.read_text().splitlines() == [
        "spec read, pytest True, hypothesis True",
        "entry point, initialising 1, held back by the environment False",
    ]


def _tree(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    (tree / "tests").mkdir(parents=True)
    (tree / "tox.ini").write_text(TOX)
    (tree / "tests" / "test_mode.py").write_text(
        "import os\n\n\ndef test_mode():\n    assert os.environ['CALC_MODE'] == 'main'\n"
    )
    return tree


def test_a_run_that_asks_for_a_spare_leaves_a_child_the_next_run_in_its_tree_takes(
    tmp_path: Path,
) -> None:
    repo, tree = _repo(tmp_path), _tree(tmp_path)
    spec = session.RunSpec(tree=tree, ini_options={}, plugins=(), timeout=300)
    with parked.ahead(repo.root, os.environ, "main"):
        parked.discard()  # the head's child waits for another tree
        first = session.run(replace(spec, spare=True))
        spare = _waiting()
        assert spare.plan.tree == tree and alive(spare.proc.pid)
        second = session.run(spec)
        assert not parked._SLOT  # taken: no spare of the spare
    assert [r.outcome_of("tests/test_mode.py::test_mode").passed for r in (first, second)] == [
        True,
        True,
    ]
    assert first.ahead == 0.0 and second.ahead > 0.0  # the second ran in the child waiting
    assert not alive(spare.proc.pid) and not spare.plan.scratch.exists()


def test_the_first_spec_a_test_child_is_sent_turns_the_collector_back_on(tmp_path: Path) -> None:
    spec = session.RunSpec(tree=_tree(tmp_path), ini_options={}, plugins=(), timeout=300)
    try:
        with collector.off_until_first_spec():  # as `planegate`'s own process starts
            assert not gc.isenabled()
            result = session.run(spec)
            assert gc.isenabled()  # the run's records were read with the collector on
    finally:
        gc.unfreeze()  # this test process's objects go back to being collected
        gc.enable()
    assert result.outcome_of("tests/test_mode.py::test_mode").passed


def test_a_spare_nobody_takes_is_killed_and_none_starts_outside_a_gate(tmp_path: Path) -> None:
    repo, tree = _repo(tmp_path), _tree(tmp_path)
    spec = session.RunSpec(tree=tree, ini_options={}, plugins=(), timeout=300, spare=True)
    session.run(spec)
    assert not parked._SLOT  # no gate's `ahead` block: nothing would discard it
    with parked.ahead(repo.root, os.environ, "main"):
        parked.discard()
        session.run(spec)
        spare = _waiting()
    assert not alive(spare.proc.pid) and not spare.plan.scratch.exists()
    assert not parked._SLOT


CONFIG = (
    'version: 1\nowner: "@org/map"\nplanes:\n  property:\n    paths: ["props/"]\n'
    '  fixture:\n    paths: ["tests/"]\n'
)
REWRITES_TOX = """\
import os, pathlib


def test_mode_then_rewrite_tox():
    seen = os.environ['CALC_MODE']
    tox = pathlib.Path(__file__).parent.parent / "tox.ini"
    tox.write_text("[testenv]\\nsetenv =\\n    CALC_MODE = patch\\n")  # as a patch's code could
    assert seen == 'main'
"""


def test_a_later_session_in_a_tree_gets_the_tox_settings_its_first_one_read(
    tmp_path: Path,
) -> None:
    tree = _tree(tmp_path)
    (tree / "tests" / "test_mode.py").write_text(REWRITES_TOX)
    sessions = Sessions(tree, parse(CONFIG, "planegate.yml"), {})
    nodeid = "tests/test_mode.py::test_mode_then_rewrite_tox"
    first, second = sessions.run(), sessions.run()
    assert "CALC_MODE = patch" in (tree / "tox.ini").read_text()  # the first run rewrote it
    assert [r.outcome_of(nodeid).passed for r in (first, second)] == [True, True]
