"""Pure parts of the runner: the probe's byte change and choice of tests, Hypothesis budgets."""

from __future__ import annotations

from collections.abc import Callable

from helpers.runner_units_cases import (
    _no_generation,
    _seven,
)
from planegate.probes.fixture import plan as probe
from planegate.runner.child.channel import hypothesis_budget


def test_perturb_survives_strip_and_lower() -> None:
    for text in (b"n=3\n", b"  Hello World \n", b"{}\n", b"a", b"\n\n\n"):
        changed = probe.perturb(text)
        assert changed.strip().lower() != text.strip().lower() or not text.strip()
    assert probe.perturb(b"n=3") == b"nx3"
    assert probe.perturb(b"ab9") == b"ac9"


def test_candidates_are_passing_tests_whose_file_names_a_locked_file_however_slow() -> None:
    sources = {
        "tests/fix/test_a.py": "read('data/label.txt')",
        "tests/fix/test_b.py": "assert 1 == 1",
        "tests/fix/test_c.py": "open('tests/fix/data/big.bin')",
    }
    passed = {
        "tests/fix/test_a.py::test_one": 0.01,
        "tests/fix/test_b.py::test_two": 0.01,
        "tests/fix/test_c.py::test_slow": 5.0,
    }
    files = ["tests/fix/data/label.txt", "tests/fix/data/big.bin"]
    chosen = probe.candidates(passed, sources, files)
    assert chosen == [
        probe.Candidate("tests/fix/test_a.py::test_one", ("tests/fix/data/label.txt",)),
        probe.Candidate("tests/fix/test_c.py::test_slow", ("tests/fix/data/big.bin",)),
    ]


def test_hypothesis_budget_reads_the_wrapped_tests_settings() -> None:
    assert hypothesis_budget(_seven) == 7
    assert hypothesis_budget(_no_generation) == 0
    assert hypothesis_budget(test_perturb_survives_strip_and_lower) is None
    assert hypothesis_budget(None) is None


def test_the_probe_picks_tests_that_name_a_locked_file_not_a_longer_name() -> None:
    from planegate.probes.fixture.plan import mentioned

    # Not our own locked files' names: this file must not look like it reads them.
    locked = ["tests/golden/totals.json", "tests/fix/data/label.txt"]
    assert mentioned('GOLDEN / "totals.json"', locked) == ("tests/golden/totals.json",)
    assert mentioned("open('tests/fix/data/label.txt')", locked) == ("tests/fix/data/label.txt",)
    assert mentioned('out = tmp / "planegate-totals.json"', locked) == ()
    assert mentioned('"totals.json.bak", "label.txts"', locked) == ()


def _reader(files: dict[str, str]) -> Callable[[str], bytes | None]:
    def read(path: str) -> bytes | None:
        text = files.get(path)
        return None if text is None else text.encode()

    return read


def test_base_options_follow_pytest_9_precedence_and_native_toml() -> None:
    from planegate.runner.pytest_ini import base_options, render

    toml = '[pytest]\ntestpaths = ["tests", "more"]\nxfail_strict = true\n'
    ini = "[pytest]\ntestpaths = ini_only\n"
    assert base_options(_reader({"pytest.toml": toml, "pytest.ini": ini}))["testpaths"] == [
        "tests",
        "more",
    ]
    assert base_options(_reader({".pytest.toml": toml}))["xfail_strict"] is True
    native = '[tool.pytest]\nminversion = "9.0"\ntestpaths = ["suite"]\n'
    assert base_options(_reader({"pyproject.toml": native})) == {
        "minversion": "9.0",
        "testpaths": ["suite"],
    }
    assert base_options(_reader({"pytest.toml": "[pytest\n", "pytest.ini": ini})) == {}
    rendered = render(base_options(_reader({"pytest.toml": toml})))
    assert rendered == "[pytest]\ntestpaths =\n    tests\n    more\nxfail_strict = true\n"


PROBE_SOURCE = """\
from pathlib import Path

DATA = Path(__file__).parent / "data"


def _expected():
    return (DATA / "label.txt").read_text()


def test_through_a_helper():
    assert _expected() == "n=3"


def test_reads_nothing_locked():
    assert 1 + 1 == 2


def test_names_it_itself():
    assert (DATA / "totals.json").read_bytes()


class TestGolden:
    def _load(self):
        return _expected()

    def test_through_a_method(self):
        assert self._load()

    def test_plain(self):
        assert True


@pytest.fixture
def golden():
    return _expected()


def test_through_a_fixture(golden):
    assert golden
"""


def test_the_probe_takes_only_tests_that_reach_a_locked_file_name() -> None:
    files = ["tests/fix/data/label.txt", "tests/fix/data/totals.json"]
    names = [
        "test_through_a_helper",
        "test_reads_nothing_locked",
        "test_names_it_itself",
        "TestGolden::test_through_a_method",
        "TestGolden::test_plain",
        "test_through_a_fixture",
    ]
    passed = {f"tests/fix/test_g.py::{name}": 0.01 for name in names}
    chosen = probe.candidates(passed, {"tests/fix/test_g.py": PROBE_SOURCE}, files)
    label, totals = ("tests/fix/data/label.txt",), ("tests/fix/data/totals.json",)
    assert [(c.nodeid.split("::", 1)[1], c.files) for c in chosen] == [
        ("TestGolden::test_through_a_method", label),
        ("test_names_it_itself", totals),
        ("test_through_a_fixture", label),
        ("test_through_a_helper", label),
    ]


def test_a_module_level_mention_or_an_unparsable_file_counts_for_every_test() -> None:
    files = ["tests/fix/data/label.txt"]
    passed = {"tests/fix/test_m.py::test_a": 0.01, "tests/fix/test_m.py::test_b[1]": 0.01}
    module = "GOLDEN = 'tests/fix/data/label.txt'\n\ndef test_a():\n    pass\n\n"
    module += "def test_b(x):\n    pass\n"
    assert len(probe.candidates(passed, {"tests/fix/test_m.py": module}, files)) == 2
    broken = "def test_a(:\n    open('label.txt')\n"
    assert len(probe.candidates(passed, {"tests/fix/test_m.py": broken}, files)) == 2
