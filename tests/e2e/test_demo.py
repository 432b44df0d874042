"""`planegate demo` gates the bundled sample: every verdict must be the expected one."""

from __future__ import annotations

from helpers.repo_helper import run_cli
from planegate.demo import PATCHES


def test_demo_gives_every_expected_verdict() -> None:
    done = run_cli("demo", "--runner", "pytest", "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {
        line.split("|")[0].strip(): [cell.strip() for cell in line.split("|")]
        for line in done.stdout.splitlines()
        if "|" in line
    }
    for patch in PATCHES:
        _, verdict, exit_code, expected, _rules, _owners = rows[patch.name]
        assert exit_code == expected == str(patch.expected_exit)
        assert verdict == ("pass" if patch.expected_exit == 0 else "fail")
    assert rows["unclassified-test"][4] == "PG207"  # a test file the patch adds
    assert "PG302" in rows["rewritten-golden"][4]
    assert "PG204" in rows["edited-config"][4]  # a plane changed between base and head
    assert len(PATCHES) >= 8
    assert f"all {len(PATCHES)} verdicts as expected" in done.stdout
