"""The cost of parsing files at the size limit, measured in a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import planegate

PROBE = textwrap.dedent(
    """
    import json, sys, time
    from planegate.analysis import prodscan
    from planegate.analysis.hunks.batch import FileChange, analyze_files
    source = "x = [" + "1," * (5 * 1024 * 1024 // 2) + "]\\n"
    under = "x = [" + "1," * (1024 * 1024 // 2 - 8) + "]\\n"  # dense, just under 1 MiB
    start = time.monotonic()
    found = prodscan.scan_change("calc/under.py", None, under, prodscan.DataPaths(), "a")
    found += prodscan.scan_change("calc/big.py", "x = 1\\n", source, prodscan.DataPaths(), "a")
    found += analyze_files(
        [FileChange("tests/test_big.py", "x = 1\\n", source, "fixture", "a", True)]
    )
    took = time.monotonic() - start
    # VmHWM: this process's own peak (ru_maxrss keeps the forking parent's across exec)
    status = open("/proc/self/status").read()
    peak = int(status.split("VmHWM:")[1].split()[0]) // 1024
    print(json.dumps({"rules": [f.rule for f in found], "seconds": took, "peak_mb": peak}))
    """
)


def test_a_dense_file_under_the_byte_limit_and_a_5_mib_one_cost_little_memory_and_time() -> None:
    source = str(Path(planegate.__file__).resolve().parents[1])
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        env={"PYTHONPATH": source, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    result = json.loads(done.stdout)
    assert result["rules"] == ["PG526", "PG526", "PG526"]
    assert result["peak_mb"] < 300
    assert result["seconds"] < 5
