"""Suites that are not pytest: any command that builds and runs a suite and writes JUnit XML
(`runner: junit`). The run's outcomes come out as the same `RunResult` the pytest runner
produces, so the steps after it need not know which runner ran (docs/runner.md, "runner:
junit"); what planegate cannot see inside such a run is said in `trust.py`."""
