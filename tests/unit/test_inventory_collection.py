"""The inventory step on a head run pytest could not collect: each collection error is a
PG206 finding with pytest's last line, one line, for the plane map's owner."""

from __future__ import annotations

from planegate.findings import Severity, Step
from planegate.runner.session import RunResult
from planegate.steps import inventory
from planegate.steps.run_facts import Commits, RunFacts


def test_each_collection_error_is_pg206_with_pytests_last_line() -> None:
    errors = (
        ("tests/test_x.py", "tests/test_x.py:1: in <module>\nE   ImportError: no module 'x'\n"),
        ("", ""),
    )
    run = RunResult(
        collected=(),
        selected=(),
        outcomes={},
        collect_errors=errors,
        closed=True,
        exit_status=2,
        timed_out=False,
        output="",
    )
    found = inventory._collect_errors(
        RunFacts(commits=Commits("a", "b", "c"), head_run=run, base_inventory={}), "@org/map"
    )
    assert [(f.rule, f.step, f.severity, f.path, f.owner) for f in found] == [
        ("PG206", Step.INVENTORY, Severity.ERROR, "tests/test_x.py", "@org/map"),
        ("PG206", Step.INVENTORY, Severity.ERROR, None, "@org/map"),
    ]
    assert found[0].message == "tests/test_x.py: E   ImportError: no module 'x'"
    assert found[1].message == "session: collection error"
