"""The probes' registry: one entry per probe, in the order their runs depend on."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from planegate.probes import registry
from planegate.probes.answers.wire import AnswerProbes, ProbeFailure
from planegate.probes.fixture.wire import ProbeResult
from planegate.probes.protocol import Found, HeadRun, Planned
from planegate.report import ProbeRecord
from planegate.runner.session import ChildPlugin

PROBES_DIR = Path(registry.__file__).resolve().parent


def test_every_probe_has_its_own_name() -> None:
    names = [probe.name for probe in registry.PROBES]
    assert len(set(names)) == len(names)


def test_the_fixture_probe_runs_after_the_probes_whose_time_it_counts() -> None:
    kinds = [type(probe) for probe in registry.PROBES]
    fixture = kinds.index(registry.Fixture)
    assert kinds.index(registry.Answers) < fixture < kinds.index(registry.Canaries)


class _Work:
    def __init__(self, log: list[str], name: str) -> None:
        self.log, self.name = log, name

    def close(self) -> None:
        self.log.append(f"close {self.name}")


class _Probe:
    """A probe that logs its calls; `begins` whether it starts work, `fails` whether its run
    raises."""

    def __init__(self, log: list[str], name: str, begins: bool, fails: bool = False) -> None:
        self.log, self.name, self.begins, self.fails = log, name, begins, fails

    def begin(self, head: HeadRun) -> _Work | None:
        self.log.append(f"begin {self.name} on {head.checkout}")
        return _Work(self.log, self.name) if self.begins else None

    def run(self, head: HeadRun, found: Found) -> Found:
        begun = sorted(head.begun)
        self.log.append(f"run {self.name} with {begun}")
        if self.fails:
            raise RuntimeError(self.name)
        return found


def _head() -> HeadRun:
    return HeadRun(None, None, None, "tip", None)  # type: ignore[arg-type]  # no probe reads them


def test_what_a_probe_begins_starts_before_any_probe_runs_and_ends_after_the_last(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    log: list[str] = []
    probes = (_Probe(log, "a", False), _Probe(log, "b", True), _Probe(log, "c", False))
    monkeypatch.setattr(registry, "PROBES", probes)
    assert registry.run_all(_head()) == Found()
    assert log == [
        "begin a on tip",
        "begin b on tip",
        "begin c on tip",
        "run a with ['b']",
        "run b with ['b']",
        "run c with ['b']",
        "close b",
    ]


def test_what_a_probe_began_is_waited_for_when_a_later_probe_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    log: list[str] = []
    probes = (_Probe(log, "a", True), _Probe(log, "b", False, fails=True))
    monkeypatch.setattr(registry, "PROBES", probes)
    with pytest.raises(RuntimeError, match="b"):
        registry.run_all(_head())
    assert log[-2:] == ["run b with ['a']", "close a"]


def test_the_head_runs_options_are_every_probes() -> None:
    first, second = ChildPlugin("a.child.one"), ChildPlugin("b.child.two", {"x": 1})
    plans = {
        "a": Planned({"child_plugins": (first,)}),
        "b": Planned({"nice": 1}),
        "c": Planned({"repeat": 2, "child_plugins": (second,)}),
    }
    options = registry.head_run_options(plans)
    assert options == {"child_plugins": (first, second), "nice": 1, "repeat": 2}


def test_what_the_probes_found_crosses_run_json_unchanged() -> None:
    failure = ProbeFailure("sampled canary", "tests/t.py::test_a", "f (a.py:3): passed", "repro")
    answers = AnswerProbes(
        flipped=("tests/t.py::test_b",),
        failures=(failure,),
        records=(ProbeRecord("sampled canaries", "fail", 0.5, 1, ""),),
    )
    found = Found(answers, ProbeResult(("tests/f.py::test_c",), (("tests/f.py::test_c", ("d",)),)))
    wire = json.loads(json.dumps(registry.to_wire(found)))
    assert set(wire) == {"answers", "probed"}
    assert registry.from_wire(wire) == found


def test_package_inits_import_nothing_of_planegate() -> None:
    """The test child imports `child/` folders: their parents' `__init__` runs first."""
    inits = [PROBES_DIR / "__init__.py", *PROBES_DIR.glob("*/__init__.py")]
    inits += PROBES_DIR.glob("*/child/__init__.py")
    assert len(inits) >= 6
    for init in inits:
        tree = ast.parse(init.read_text("utf-8"))
        assert not [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))], init
