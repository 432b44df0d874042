"""The sampled canaries' `settled` record reaches the gate while the run goes on: once no break
is left to run, the child names the breaks, and the session hands that record to the caller's
thread (`RunSpec.heard`) before the run ends, so main's confirmation of a break that passed
can start beside the rest of the run (probes/canaries/early.py's `Early`). The record says what
the closing record says of those breaks; a run that confirms on the base sends none."""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from helpers.project import CONFIG
from helpers.repo_helper import TestRepo
from planegate.config.from_git import load_config
from planegate.probes.canaries.child.sampled import KIND, SETTLED
from planegate.probes.canaries.wire import SampleSpec, child_plugins, sampled_of
from planegate.repo.git import GitRepo
from planegate.repo.snapshot import snapshot
from planegate.runner import pytest_ini
from planegate.runner.spec import Sessions

SAMPLED = "tests/fix/test_a.py::test_swallows"
HEARD = "heard.txt"  # written into the tree by the caller's thread when the record comes
# the suite's last test passes only if the caller heard the record while the run went on
LAST = (
    "import pathlib\nimport time\n\n\n"
    "def test_z_last():\n"
    "    deadline = time.monotonic() + 30\n"
    f"    while not pathlib.Path({HEARD!r}).exists() and time.monotonic() < deadline:\n"
    "        time.sleep(0.05)\n"
    f"    assert pathlib.Path({HEARD!r}).exists()\n"
)
PROJECT = {
    "planegate.yml": CONFIG,
    "pytest.ini": "[pytest]\ntestpaths = tests\n",
    "calc/__init__.py": "",
    "calc/core.py": "def add(a, b):\n    return a + b\n",
    # main's weak test: it passes whatever add() does
    "tests/fix/test_a.py": (
        "from calc.core import add\n\n\ndef test_swallows():\n"
        "    try:\n        add(1, 2)\n    except Exception:\n        pass\n"
    ),
    "tests/fix/test_b.py": "".join(f"def test_{n}():\n    assert True\n\n\n" for n in range(40)),
    "tests/fix/test_z.py": LAST,
}


def _sessions(tmp_path: Path) -> tuple[GitRepo, str]:
    repo = TestRepo(tmp_path / "repo")
    commit = repo.commit("main", PROJECT)
    return GitRepo(repo.root), commit


def _spec(seed: int, force: Mapping[str, tuple[str, str]] | None = None) -> SampleSpec:
    return SampleSpec((SAMPLED,), 1, seed, "", ("tests/fix/",), force=force or {})


def test_the_settled_record_reaches_the_caller_before_the_run_ends(tmp_path: Path) -> None:
    git, commit = _sessions(tmp_path)
    cfg = load_config(git, commit, None, set(git.files(commit)))
    ini = pytest_ini.base_options(snapshot(git, commit).read)
    heard: list[tuple[float, Mapping[str, Any]]] = []
    with git.worktree(commit) as tree:

        def on_settled(record: Mapping[str, Any]) -> None:
            heard.append((time.monotonic(), record))
            (tree / HEARD).write_text("heard\n")

        sessions = Sessions(tree, cfg, ini)
        # a seed that places the broken run before a later test: here right after its own
        # (a run placed after the last test is the session's end, and so is its record)
        result = sessions.run(child_plugins=child_plugins(_spec(4)), heard={SETTLED: on_settled})
        ended = time.monotonic()
    assert result.closed, result.output[-2000:]
    assert result.outcome_of("tests/fix/test_z.py::test_z_last").passed, result.output[-2000:]
    assert len(heard) == 1 and heard[0][0] < ended
    settled = sampled_of({SETTLED: heard[0][1]}, SETTLED)
    final = sampled_of(result.extra, KIND)
    assert settled is not None and final is not None
    # the break the closing record names, named the same in the settled one
    assert settled == {SAMPLED: final[SAMPLED]}
    entry = settled[SAMPLED]
    assert (entry.path, entry.qualname, entry.failed) == ("calc/core.py", "add", False)


def test_a_run_that_confirms_on_the_base_sends_no_settled_record(tmp_path: Path) -> None:
    git, commit = _sessions(tmp_path)
    cfg = load_config(git, commit, None, set(git.files(commit)))
    ini = pytest_ini.base_options(snapshot(git, commit).read)
    heard: list[Mapping[str, Any]] = []
    spec = _spec(4, {SAMPLED: ("calc/core.py", "add")})
    with git.worktree(commit) as tree:
        (tree / HEARD).write_text("the last test does not wait here\n")
        sessions = Sessions(tree, cfg, ini)
        result = sessions.run(child_plugins=child_plugins(spec), heard={SETTLED: heard.append})
    assert result.closed, result.output[-2000:]
    assert heard == [] and SETTLED not in result.extra
    final = sampled_of(result.extra, KIND)
    assert final is not None and final[SAMPLED].qualname == "add"
    assert not final[SAMPLED].failed  # main's weak test passes with add() broken


# a test that leaves a process of its own session behind, holding every descriptor of the
# child's (the result stream's among them: made inheritable, as code bent on it can) for two
# minutes
LEAVES = (
    "import contextlib\nimport os\nimport subprocess\nimport sys\n\n\n"
    "def test_leaves_a_sleeper():\n"
    "    for fd in range(3, 256):\n"
    "        with contextlib.suppress(OSError):\n"
    "            os.set_inheritable(fd, True)\n"
    "    subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'],"
    " close_fds=False, start_new_session=True)\n"
)


def test_a_process_left_behind_does_not_keep_the_callers_thread_waiting(tmp_path: Path) -> None:
    """The caller's thread waits for a heard record until the stream ends: a process the run
    leaves behind, with every descriptor below 256 made inheritable and passed on, must not
    hold the stream open past the child's exit."""
    repo = TestRepo(tmp_path / "repo")
    commit = repo.commit("main", {**PROJECT, "tests/fix/test_z.py": LEAVES})
    git = GitRepo(repo.root)
    cfg = load_config(git, commit, None, set(git.files(commit)))
    ini = pytest_ini.base_options(snapshot(git, commit).read)
    heard: list[Mapping[str, Any]] = []
    started = time.monotonic()
    with git.worktree(commit) as tree:
        # no break settles before the end: the caller's thread waits for the record all run
        spec = _spec(1)
        result = Sessions(tree, cfg, ini).run(
            child_plugins=child_plugins(spec), heard={SETTLED: heard.append}
        )
    assert result.closed, result.output[-2000:]
    assert time.monotonic() - started < 60  # not the sleeper's two minutes
    assert result.outcome_of("tests/fix/test_z.py::test_leaves_a_sleeper").passed
