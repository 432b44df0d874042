"""`planegate demo --runner junit`: the C++ normalize_path library, built with CMake and run
by ctest in temporary git repositories, gated patch by patch and swept: every verdict must be
the expected one (cmake and a C++ compiler are on the test machine; `make test` needs them)."""

from __future__ import annotations

from helpers.repo_helper import run_cli
from planegate.demo.ctest_demo import PATCHES, SWEEPS, available


def test_the_ctest_demo_gives_every_expected_verdict() -> None:
    assert available(), "cmake and a C++ compiler are needed (apt-get install cmake g++)"
    done = run_cli("demo", "--runner", "junit", "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {
        line.split("|")[0].strip(): [cell.strip() for cell in line.split("|")]
        for line in done.stdout.splitlines()
        if "|" in line
    }
    for patch in PATCHES:
        exit_code, expected = rows[patch.name][2:4]
        assert exit_code == expected == str(patch.expected_exit), rows[patch.name]
    assert rows["honest-fix"][1:5] == ["pass", "0", "0", "-"]
    assert rows["disabled-test"][4] == "PG527"
    assert rows["frozen-skip"][4] == "PG527"
    assert "PG302" in rows["rewritten-golden"][4]
    assert rows["unclassified-test"][4] == "PG201"
    assert "propose freeze timing_budget::timing_budget (timing" in rows["sweep-intermittent"][3]
    assert rows["sweep-broken"][1:3] == ["exit 6", "expected 6"]
    assert "base broken: edge_cases::edge_cases failed every run" in rows["sweep-broken"][3]
    assert f"all {len(PATCHES) + len(SWEEPS)} verdicts as expected" in done.stdout
    assert done.stdout.index("does not instrument") < done.stdout.index("honest-fix")
