"""Main's confirmation of a sampled canary begun during the head's run (`Early`): started from
the child's settled record for exactly the breaks that passed, taken after the run only when
the closing record asks for the same confirmation, closed otherwise. What the settled record
says never reaches a verdict: a child whose closing record differs gets the confirmation the
closing record asks for."""

from __future__ import annotations

from typing import Any

from planegate.errors import ServiceUnavailable
from planegate.probes.answers.wire import AnswerProbes
from planegate.probes.canaries.early import Early
from planegate.probes.canaries.run import Confirming
from planegate.probes.canaries.wire import SampleSpec

A, B, C = "tests/test_a.py::test_a", "tests/test_b.py::test_b", "tests/test_c.py::test_c"
SPEC = SampleSpec((A, B, C), 3, 11, "", ("tests/",), only={"calc/core.py": ("add",)})


class _Confirming(Confirming):
    """A confirmation that started nothing, and says when it is closed."""

    def __init__(self, log: list[str], name: str) -> None:
        super().__init__(AnswerProbes())
        self.log, self.name = log, name

    def close(self) -> None:
        self.log.append(f"closed {self.name}")


class _Starts:
    """What `Early` asked to start, in order."""

    def __init__(self, fails: bool = False) -> None:
        self.asked: list[SampleSpec] = []
        self.log: list[str] = []
        self.fails = fails

    def __call__(self, confirm: SampleSpec) -> Confirming:
        self.asked.append(confirm)
        if self.fails:
            raise ServiceUnavailable("git: exporting the base's tree failed")
        return _Confirming(self.log, f"early {len(self.asked)}")


def _entry(path: str = "calc/core.py", name: str = "add", failed: bool = False) -> Any:
    return {"calls": [[path, name]], "function": [path, name, 1], "failed": failed}


def _record(**entries: Any) -> dict[str, Any]:
    return {"tests": entries}


def test_the_breaks_that_passed_are_confirmed_each_with_its_own_function() -> None:
    starts = _Starts()
    early = Early(SPEC, starts)
    record = {"tests": {A: _entry(), B: _entry(name="sub", failed=True), C: {"why": "x"}}}
    early.heard(record)
    early.heard(record)  # one record per run: a second changes nothing
    assert len(starts.asked) == 1
    confirm = starts.asked[0]
    assert (confirm.tests, confirm.breaks) == ((A,), 1)
    assert dict(confirm.force) == {A: ("calc/core.py", "add")}
    assert dict(confirm.only) == {} and confirm.seed == SPEC.seed


def test_nothing_starts_when_every_break_failed() -> None:
    starts = _Starts()
    early = Early(SPEC, starts)
    early.heard({"tests": {A: _entry(failed=True)}})
    early.heard({"tests": {}})
    assert starts.asked == []
    assert early.take({A: ("calc/core.py", "add")}) is None


def test_the_closing_records_confirmation_takes_the_early_one() -> None:
    starts = _Starts()
    early = Early(SPEC, starts)
    early.heard({"tests": {A: _entry(), B: _entry(name="sub")}})
    taken = early.take({B: ("calc/core.py", "sub"), A: ("calc/core.py", "add")})
    assert isinstance(taken, _Confirming) and taken.name == "early 1"
    early.close()  # taken: its caller closes it, not `Early`
    assert starts.log == []


def test_a_closing_record_that_asks_otherwise_gets_its_own_confirmation() -> None:
    starts = _Starts()
    early = Early(SPEC, starts)
    # the settled record names add(); the closing one names another function for the test
    early.heard({"tests": {A: _entry()}})
    assert early.take({A: ("calc/core.py", "sub")}) is None
    assert starts.log == ["closed early 1"]
    # one more test in the closing record: not the same confirmation either
    early = Early(SPEC, starts)
    early.heard({"tests": {A: _entry()}})
    asked = {A: ("calc/core.py", "add"), B: ("calc/core.py", "add")}
    assert early.take(asked) is None
    assert starts.log == ["closed early 1", "closed early 2"]


def test_an_early_confirmation_never_taken_is_closed_with_the_probe() -> None:
    starts = _Starts()
    early = Early(SPEC, starts)
    early.heard({"tests": {A: _entry()}})
    early.close()
    early.close()
    assert starts.log == ["closed early 1"]


def test_an_early_start_that_fails_leaves_the_confirmation_to_the_runs_end() -> None:
    starts = _Starts(fails=True)
    early = Early(SPEC, starts)
    early.heard({"tests": {A: _entry()}})
    assert len(starts.asked) == 1
    assert early.take({A: ("calc/core.py", "add")}) is None  # `check` starts its own
