"""`planegate gate` starts the head's test child before it knows the run (runner/parked.py).

The run takes that child only when it was started exactly as the run would start its own:
main's `tox.ini` stands in for what the configuration is not read for yet, never the patch's;
a configuration that wants another environment gets a child of its own. Either way the
verdict is the one a child started for the run gives.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers.attack_helper import BUG, COMMUTES, Shared, errors
from helpers.project import CONFIG, PROJECT

AHEAD = "head child started ahead"
TOX = "[tox]\nenvlist = py\n\n[testenv]\nsetenv =\n    CALC_MODE = {mode}\n"
# a bug production code switches off when the run's environment says what only the patch sets
SWITCHED = (
    "import os\n\n\ndef add(a, b):\n"
    "    return a + b if os.environ.get('CALC_MODE') == 'patch' else a - b\n\n\n"
    "def label(n):\n    return f'n={n}'\n"
)


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shared]:
    main_files = {"tox.ini": TOX.format(mode="main")}
    yield Shared(tmp_path_factory.mktemp("ahead"), main_files, name="ahead")


def test_an_honest_patchs_run_is_the_child_started_ahead(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    shared.patch("honest", {"calc/core.py": "# adds\n" + str(PROJECT["calc/core.py"])})
    capsys.readouterr()
    code, report = shared.gate(capsys)
    assert code == 0, errors(report)
    assert report["timings"][AHEAD] > 0


def test_the_patchs_tox_ini_never_reaches_the_child_started_ahead(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    shared.patch("tox", {"tox.ini": TOX.format(mode="patch"), "calc/core.py": SWITCHED})
    capsys.readouterr()
    code, report = shared.gate(capsys)
    assert code != 0 and errors(report, "planes")  # main's CALC_MODE: the bug is on
    assert COMMUTES in str(report["steps"])
    assert report["timings"][AHEAD] > 0  # main's tox.ini: the run took the waiting child


def test_a_configuration_wanting_more_environment_gets_a_child_of_its_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CALC_MODE", "patch")
    config = CONFIG + '  env: ["CALC_MODE"]\n'
    own = Shared(tmp_path, {"planegate.yml": config}, name="env-allowed")
    own.patch("bug", {"calc/core.py": BUG})
    capsys.readouterr()  # what building main's digest printed
    code, report = own.gate(capsys)
    assert code != 0  # the bug is seen whatever child ran it
    assert AHEAD not in report["timings"]  # the waiting child lacked CALC_MODE: not taken
    own.patch("honest", {"calc/core.py": "# adds\n" + str(PROJECT["calc/core.py"])})
    code, report = own.gate(capsys)
    assert code == 0, errors(report)
    assert AHEAD not in report["timings"]
