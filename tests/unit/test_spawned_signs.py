"""Process starts and foreign-function loads as signs: where a start's line was on the base,
which starts are the patch's, main's or main's lines doing something new, and how they
travel (the child's stream, run.json, the digest)."""

from __future__ import annotations

import json

import pytest

from planegate.repo.digest_format import Digest, MainRun, RecordedSigns, from_json, to_json
from planegate.runner.stream import Fold
from planegate.runner.traced import Launch, Reads
from planegate.signs import spawned
from planegate.signs import wire as signs_wire
from planegate.signs.compare import MainsSigns
from planegate.signs.lines import MainsLines, base_lines

BASE = {"calc/tools.py": "import subprocess\n\n\ndef run(argv):\n    return subprocess.run(argv)\n"}
HEAD = {
    "calc/tools.py": "# tools\n" + BASE["calc/tools.py"],
    "calc/core.py": "from calc import tools\n\n\ndef label(n):\n    return tools.run(['cat'])\n",
}
LINES = MainsLines(BASE.get, HEAD.get)
GIT = Launch("subprocess.Popen", "git", "calc/tools.py", 6, "git --version")
MAINS_GIT = MainsSigns(launches=(Launch("subprocess.Popen", "git", "calc/tools.py", 5),))


def test_a_head_line_main_had_is_mapped_to_its_number_on_the_base() -> None:
    assert base_lines("a\nb\nc\n", "x\na\nb\ny\nc\n") == {2: 1, 3: 2, 5: 3}
    assert base_lines(None, "a\n") == {}
    assert LINES.base_line("calc/tools.py", 6) == 5
    assert LINES.base_line("calc/tools.py", 1) is None  # the patch's comment
    assert LINES.base_line("calc/core.py", 5) is None  # a file the base does not have


def test_a_start_is_mains_only_when_mains_run_shows_it_from_the_same_line() -> None:
    traced = MainsSigns(launches=MAINS_GIT.launches, traced=True)
    assert spawned.verdict(GIT, LINES, traced) == spawned.MAIN
    assert spawned.verdict(GIT, LINES, MAINS_GIT) == spawned.CHANGED  # main was not looked at
    cat = Launch("subprocess.Popen", "cat", "calc/tools.py", 6)
    assert spawned.verdict(cat, LINES, traced) == spawned.CHANGED  # main's line, new program
    assert spawned.verdict(Launch("os.fork", "", "calc/tools.py", 1), LINES, traced) == "patch"
    new_file = Launch("ctypes.dlsym", "open", "calc/core.py", 5)
    assert spawned.verdict(new_file, LINES, traced) == spawned.PATCH


def test_a_line_of_the_patch_calling_mains_helper_makes_the_start_the_patchs() -> None:
    traced = MainsSigns(launches=MAINS_GIT.launches, traced=True)
    chained = Launch("subprocess.Popen", "git", "calc/tools.py", 6, callers=("calc/core.py:5",))
    assert spawned.patch_caller(chained, LINES) == "calc/core.py:5"
    assert spawned.verdict(chained, LINES, traced) == spawned.PATCH
    mains_caller = Launch(
        "subprocess.Popen", "git", "calc/tools.py", 6, callers=("calc/tools.py:5",)
    )
    assert spawned.verdict(mains_caller, LINES, traced) == spawned.MAIN


def test_a_start_with_no_frame_of_the_tree_is_the_patchs_unless_main_shows_it() -> None:
    bare = Launch("subprocess.Popen", "cat", "", 0)
    assert spawned.verdict(bare, LINES, MainsSigns(traced=True)) == spawned.PATCH
    assert spawned.verdict(bare, LINES, MainsSigns(launches=(bare,), traced=True)) == "main"


def test_the_tests_to_look_at_on_the_base_are_those_of_starts_main_could_show() -> None:
    reads = {
        "t.py::a": Reads(launches=(GIT,)),
        "t.py::b": Reads(launches=(Launch("ctypes.dlopen", "libc.so.6", "calc/core.py", 5),)),
        "calc/tools.py": Reads(launches=(GIT,)),
    }
    assert spawned.to_compare(reads, LINES) == ("t.py::a",)
    assert spawned.to_compare({"t.py::b": reads["t.py::b"]}, LINES) is None
    found = spawned.started(reads)
    assert [(s.launch, s.keys, s.rule) for s in found] == [
        (GIT, ("calc/tools.py", "t.py::a"), "PG563"),
        (reads["t.py::b"].launches[0], ("t.py::b",), "PG564"),
    ]


def _record(nonce: str, procs: object) -> str:
    record = {"nonce": nonce, "kind": "reads", "nodeid": "t.py::a", "test": [], "prod": []}
    return json.dumps({**record, "procs": procs})


def test_the_stream_keeps_each_keys_starts_and_refuses_a_bad_shape() -> None:
    fold = Fold("n")
    fold.feed(_record("n", [["os.system", "sh", "calc/a.py", 3, "cat x", []]]))
    fold.feed(_record("n", [["ctypes.dlsym", "read", "calc/a.py", 4, "read", ["calc/b.py:9"]]]))
    assert fold.reads["t.py::a"][2] == (
        Launch("os.system", "sh", "calc/a.py", 3, "cat x"),
        Launch("ctypes.dlsym", "read", "calc/a.py", 4, "read", ("calc/b.py:9",)),
    )
    with pytest.raises(TypeError):
        fold._reads(json.loads(_record("n", [["os.system", "sh", "calc/a.py", 3]])))


def test_mains_starts_travel_in_the_digest_and_between_the_action_phases() -> None:
    signs = RecordedSigns(launches=(("subprocess.Popen", "git", "calc/tools.py", 5),))
    digest = Digest("c" * 40, {}, run=MainRun({}, {}, signs=signs))
    assert from_json(to_json(digest), "d.json").run == digest.run
    older = RecordedSigns()
    digest = Digest("c" * 40, {}, run=MainRun({}, {}, signs=older))
    assert "launches" not in to_json(digest)
    assert from_json(to_json(digest), "d.json").run == digest.run  # None: look on the base
    mains = MainsSigns(launches=(GIT,), traced=True)
    written = json.loads(json.dumps(signs_wire.to_dict(mains)))
    assert signs_wire.from_dict(written) == mains
    del written["launches"]
    assert signs_wire.from_dict(written) == MainsSigns(traced=True)  # an older run.json
