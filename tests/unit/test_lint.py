"""Property-plane lint: wall clock, network and process-wide RNG flagged; seeded use is fine."""

from __future__ import annotations

import pytest

from planegate.analysis.lint import added_findings, base_findings, scan
from planegate.findings import Severity


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import time\nnow = time.time()\n", ["PG580"]),
        ("from datetime import datetime\nstamp = datetime.now()\n", ["PG580"]),
        ("import datetime\nday = datetime.date.today()\n", ["PG580"]),
        ("import socket\n", ["PG581"]),
        ("import requests\n", ["PG581"]),
        ("from urllib.request import urlopen\n", ["PG581"]),
        ("from urllib import request\n", ["PG581"]),
        ("import httpx as h\n", ["PG581"]),
        ("import random\nx = random.random()\n", ["PG582"]),
        ("from random import randint\nx = randint(1, 6)\n", ["PG582"]),
        ("import numpy as np\nx = np.random.rand(3)\n", ["PG582"]),
        ("import numpy as np\nnp.random.seed(0)\n", ["PG582"]),
        ("import random\nrng = random.Random()\n", ["PG583"]),
        ("import numpy as np\nrng = np.random.default_rng()\n", ["PG583"]),
    ],
)
def test_each_violation_is_found(source: str, expected: list[str]) -> None:
    assert [v.rule for v in scan(source)] == expected


def test_seeded_generators_and_harmless_modules_are_fine() -> None:
    source = (
        "import random\nimport time\nfrom urllib.parse import quote\nimport numpy as np\n\n"
        "rng = random.Random(1234)\nvalue = rng.random()\ngen = np.random.default_rng(seed=7)\n"
        "sample = gen.integers(0, 9)\nstart = time.perf_counter()\ntime.monotonic()\n"
        "other = random.Random(x=3)\n"
    )
    assert scan(source) == []


def test_added_violations_are_errors_and_base_ones_warnings() -> None:
    base = "import random\n\n\ndef test_a():\n    assert random.random() < 1\n"
    head = base + "\n\ndef test_b():\n    import socket\n"
    (added,) = added_findings("tests/prop/test_x.py", base, head, "@author")
    assert (added.rule, added.severity, added.line) == ("PG581", Severity.ERROR, 9)
    (kept,) = base_findings("tests/prop/test_x.py", base, "@org/props")
    assert (kept.rule, kept.severity, kept.owner) == ("PG582", Severity.WARNING, "@org/props")
