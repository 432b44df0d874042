"""The reach review through the real CLI: production code that tells tests from real use by
reaching the harness, however it spells the reach, stops at step 5 on the line that does it.

Each patch keeps the real bug (`a - b`) and returns the right sum only when it finds itself
under test; the property test would pass. Honest patches that name literal things pass.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from helpers.attack_helper import BUG, Shared, errors

MODULES_SCAN = (
    "import sys\n\n\ndef add(a, b):\n"
    "    if any(k.startswith('_py' + 'test') for k in sys.modules):\n"
    "        return a + b\n"
    "    return a - b\n\n\ndef label(n):\n    return f'n={n}'\n"
)
TRACEBACK_WALK = (
    "import sys\n\n\ndef _tested():\n    try:\n        raise LookupError\n    except LookupError:\n"
    "        frame = sys.exc_info()[2].tb_frame.f_back\n"
    "    while frame is not None:\n"
    "        if 'test' in frame.f_code.co_filename:\n            return True\n"
    "        frame = frame.f_back\n    return False\n\n\n"
    "def add(a, b):\n    return a + b if _tested() else a - b\n\n\n"
    "def label(n):\n    return f'n={n}'\n"
)
SIGNAL_FRAME = (
    "import os\nimport signal\n\n_seen = []\n\n\ndef _look(signum, frame):\n"
    "    _seen.append(frame)\n\n\n"
    "def _tested():\n"
    "    old = signal.signal(signal.SIGUSR1, _look)\n"
    "    os.kill(os.getpid(), signal.SIGUSR1)\n    signal.signal(signal.SIGUSR1, old)\n"
    "    return bool(_seen) and 'test' in str(_seen[-1])\n\n\n"
    "def add(a, b):\n    return a + b if _tested() else a - b\n\n\n"
    "def label(n):\n    return f'n={n}'\n"
)
BUILT_LOOKUP = (
    "def add(a, b):\n"
    "    loaded = getattr(__import__('s' + 'ys'), 'mod' + 'ules')\n"
    "    return a + b if any('hypo' in k for k in loaded) else a - b\n\n\n"
    "def label(n):\n    return f'n={n}'\n"
)
HONEST = (
    '"""Sums, with a name for the log and a codec chosen by a literal name."""\n\n'
    "import dataclasses\nimport importlib\nimport logging\n\n"
    "log = logging.getLogger(__name__)\ncodec = importlib.import_module('json')\n\n\n"
    "@dataclasses.dataclass(frozen=True)\nclass Sum:\n    total: int\n\n\n"
    "def add(a, b):\n    result = Sum(a + b)\n"
    "    log.debug('add %s', getattr(result, 'total'))\n    return result.total\n\n\n"
    "def label(n):\n    return f'n={n}'\n"
)
DEPRECATION = (
    "import sys\nimport warnings\n\n\ndef _deprecated(what):\n"
    "    caller = sys._getframe(2).f_code.co_name\n"
    "    warnings.warn(f'{what} is deprecated (called from {caller})', DeprecationWarning)\n\n\n"
    "def add(a, b):\n    return a + b\n\n\ndef plus(a, b):\n    _deprecated('plus')\n"
    "    return add(a, b)\n\n\ndef label(n):\n    return f'n={n}'\n"
)


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shared]:
    yield Shared(tmp_path_factory.mktemp("reach-review"))


def line_of(source: str, text: str) -> int:
    return next(n for n, line in enumerate(source.splitlines(), 1) if text in line)


def reviewed(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        f
        for s in report["steps"]
        if s["step"] == "hunks"
        for f in s["findings"]
        if f["rule"].startswith("PG59") and f["severity"] == "error"
    ]


def test_the_bug_alone_fails_the_planes_step(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    shared.patch("control", {"calc/core.py": BUG})
    code, report = shared.gate(capsys)
    assert code == 1
    assert reviewed(report) == []


@pytest.mark.parametrize(
    ("name", "cheat", "rule", "at"),
    [
        ("modules-scan", MODULES_SCAN, "PG591", "for k in sys.modules"),
        ("traceback-walk", TRACEBACK_WALK, "PG590", "tb_frame.f_back"),
        ("signal-frame", SIGNAL_FRAME, "PG590", "signal.signal(signal.SIGUSR1, _look)"),
        ("built-lookup", BUILT_LOOKUP, "PG591", "getattr(__import__"),
    ],
)
def test_code_that_finds_the_harness_stops_for_a_person_on_its_line(
    shared: Shared,
    capsys: pytest.CaptureFixture[str],
    name: str,
    cheat: str,
    rule: str,
    at: str,
) -> None:
    shared.patch(name, {"calc/core.py": cheat})
    code, report = shared.gate(capsys)
    assert code == 5
    found = [f for f in reviewed(report) if f["rule"] == rule]
    assert found, f"no {rule}: {errors(report)}"
    lines = {(f["path"], f["line"]): f for f in found}
    finding = lines[("calc/core.py", line_of(cheat, at))]
    assert "a person reviews this line" in finding["message"]
    assert finding["owner"] == "@org/props"  # the plane's owner reviews, not the author


def test_an_honest_patch_of_literal_names_passes(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    shared.patch("honest", {"calc/core.py": HONEST})
    code, report = shared.gate(capsys)
    assert code == 0, errors(report)
    assert not [f for s in report["steps"] for f in s["findings"] if f["rule"].startswith("PG59")]


def test_a_deprecation_helper_naming_its_caller_stops_for_review(
    shared: Shared, capsys: pytest.CaptureFixture[str]
) -> None:
    shared.patch("deprecation", {"calc/core.py": DEPRECATION})
    code, report = shared.gate(capsys)
    assert code == 5  # documented: a frame read is reviewed, whatever it is for
    assert errors(report, "hunks") == {"PG553"}
