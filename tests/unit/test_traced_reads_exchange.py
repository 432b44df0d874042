"""Traced reads survive the exchange between the action's phases."""

from __future__ import annotations

from planegate.gate import exchange
from planegate.probes.fixture.wire import ProbeResult
from planegate.runner.session import RunResult
from planegate.runner.traced import Reads
from planegate.steps.run_facts import Commits, Execution


def test_traced_reads_survive_the_exchange_between_the_action_phases() -> None:
    run = RunResult(
        collected=("t.py::t",),
        selected=("t.py::t",),
        outcomes={},
        collect_errors=(),
        closed=True,
        exit_status=0,
        timed_out=False,
        output="",
        reads={"t.py::t": Reads(test=("data/a.txt",), prod=("pkg/b.json",))},
    )
    commits = Commits("a" * 40, "b" * 40, "c" * 40, "d" * 40)
    execution = Execution(commits, run, None, (), ProbeResult(), ())
    back = exchange.from_json(exchange.to_json(execution), "run.json")
    assert back.head_run.reads == run.reads
    assert back.commits == commits
