"""Main's signs as records: in the digest, across the action's phases, compared without
checkpoint or tree folder, and nothing run on the base when the head shows no sign."""

from __future__ import annotations

import json
from typing import cast

import pytest

from planegate.gate.context import Context
from planegate.probes.fixture.wire import ProbeResult
from planegate.runner.session import RunResult, Tamper
from planegate.runner.traced import Reads
from planegate.signs import compare
from planegate.signs import on_main as signs_on_main
from planegate.signs import wire as signs_wire
from planegate.signs.compare import MainsSigns


def test_harness_signs_are_compared_without_checkpoint_or_tree_folder() -> None:
    event = "harness changed: import finder F for /tmp/tmpab_cd123/tree/src (after collection)"
    sign = compare.harness_sign(Tamper(event, "/site/six.py", 3))
    assert sign == Tamper("harness changed: import finder F for <tree>/src", "/site/six.py", 3)
    assert compare.harness_sign(Tamper("sys._getframe called", "a.py", 1)) is None
    seen = Tamper("harness changed: sys.meta_path changed: F (when t.py::b reported its call)")
    assert compare.harness_anchors([seen], ("t.py::a", "t.py::b", "t.py::c")) == (
        "t.py::a",
        "t.py::b",
    )
    copy = Tamper("harness changed: x (when t.py::b[a@b]@2 reported its call)")
    assert compare.harness_anchors([copy], ("t.py::b[a@b]",)) == ("t.py::b[a@b]",)
    last = Tamper("harness changed: sys.meta_path changed: F (at the end of the session)")
    assert compare.harness_anchors([last], ("t.py::a", "t.py::b")) == ("t.py::b",)
    base = MainsSigns(harness=(Tamper("harness changed: sys.meta_path changed: F"),), traced=True)
    assert compare.mains_harness(seen, base)
    assert not compare.mains_harness(seen, MainsSigns(harness=base.harness))  # not traced
    elsewhere = Tamper(seen.event, "sixlike.py", 4)
    assert not compare.mains_harness(elsewhere, base)


def test_an_oracle_read_is_mains_only_under_every_key_the_head_shows() -> None:
    head = {
        "t.py::a": Reads(prod=("data/in.bin",)),
        "t.py::b": Reads(test=("data/in.bin",), prod=("data/in.bin",)),
        "t.py::c": Reads(test=("data/gold.txt",)),
    }
    assert compare.oracle_reads(head) == {
        "t.py::a": ("data/in.bin",),
        "t.py::b": ("data/in.bin",),
    }
    partly = MainsSigns(prod_reads={"t.py::a": ("data/in.bin",)}, traced=True)
    assert not compare.mains_read("data/in.bin", head, partly)
    both = MainsSigns(prod_reads=dict.fromkeys(("t.py::a", "t.py::b"), ("data/in.bin",)))
    assert not compare.mains_read("data/in.bin", head, both)  # the session did not close
    closed = MainsSigns(prod_reads=both.prod_reads, traced=True)
    assert compare.mains_read("data/in.bin", head, closed)


def test_the_base_signs_survive_the_exchange_between_the_action_phases() -> None:
    signs = MainsSigns(
        survivors=("a",),
        caught=("b",),
        prod_reads={"a": ("x.bin",)},
        harness=(Tamper("harness changed: e", "/s.py", 2),),
        traced=True,
        problems=("p",),
    )
    written = json.loads(json.dumps(signs_wire.to_dict(signs)))
    assert signs_wire.from_dict(written) == signs
    assert signs_wire.from_dict(None) == MainsSigns()  # an older run.json: no excuse
    with pytest.raises(TypeError):
        signs_wire.from_dict({**written, "traced": "yes"})


def test_nothing_runs_on_the_base_when_the_head_shows_no_sign() -> None:
    run = RunResult(
        collected=("t.py::a",),
        selected=("t.py::a",),
        outcomes={},
        collect_errors=(),
        closed=True,
        exit_status=0,
        timed_out=False,
        output="",
        tampering=(Tamper("sys._getframe called", "calc/core.py", 3),),
        reads={"t.py::a": Reads(test=("data/gold.txt",), prod=())},
    )
    no_context = cast(Context, object())  # touching it would raise: no tree is exported
    assert signs_on_main.observe(no_context, run, ProbeResult(("t.py::a",))) == MainsSigns()
