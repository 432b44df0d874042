"""The test child is stopped once its closing record is in (runner/session.py): pytest's exit
code is the run's, as the record gives it, and nothing the project runs after the session
(a thread still sleeping, an `atexit` handler) gets to run: it could change no record, and
the next session in the same tree must not find what it wrote."""

from __future__ import annotations

from pathlib import Path

from planegate.runner import session

CONFTEST = """\
import atexit, pathlib

atexit.register(lambda: (pathlib.Path(__file__).parent / "atexit.txt").write_text("ran"))
"""
TESTS = """\
import pathlib, threading, time


def _late():
    time.sleep(0.3)
    (pathlib.Path(__file__).parent / "thread.txt").write_text("ended")


def test_starts_a_thread():
    threading.Thread(target=_late).start()


def test_fails_when_asked():
    assert not (pathlib.Path(__file__).parent / "fail").exists()
"""


def _tree(tmp_path: Path, failing: bool) -> Path:
    tree = tmp_path / "tree"
    (tree / "tests").mkdir(parents=True)
    (tree / "tests" / "conftest.py").write_text(CONFTEST)
    (tree / "tests" / "test_exit.py").write_text(TESTS)
    if failing:
        (tree / "tests" / "fail").write_text("")
    return tree


def _run(tree: Path) -> session.RunResult:
    spec = session.RunSpec(tree=tree, ini_options={}, plugins=(), timeout=300, canaries=False)
    return session.run(spec)


def test_a_passing_run_exits_0_and_its_late_thread_and_atexit_handler_never_run(
    tmp_path: Path,
) -> None:
    tree = _tree(tmp_path, failing=False)
    result = _run(tree)
    assert result.closed and result.exit_status == 0
    assert result.outcome_of("tests/test_exit.py::test_starts_a_thread").passed
    assert not (tree / "tests" / "thread.txt").exists()
    assert not (tree / "tests" / "atexit.txt").exists()


def test_a_failing_run_exits_with_pytest_s_code(tmp_path: Path) -> None:
    tree = _tree(tmp_path, failing=True)
    result = _run(tree)
    assert result.closed and result.exit_status == 1
    assert not result.outcome_of("tests/test_exit.py::test_fails_when_asked").passed
    assert not (tree / "tests" / "atexit.txt").exists()


def test_the_cpu_a_stopped_child_reports_is_counted_for_the_gate(tmp_path: Path) -> None:
    """Stopped at its closing record, the child is reaped by its sandbox, not by this process:
    its CPU is what it reported (the JSON report's timing of it, `bench/`'s CPU column)."""
    before = session.children_cpu()
    result = _run(_tree(tmp_path, failing=False))
    assert result.closed and session.children_cpu() > before
