"""pytest's collection of a checkout for `planegate init`, through the gate's own runner.

The collection is the gate's: the same child and plugin, the gate-written ini from the
checkout's pytest configuration (`testpaths`, `python_files`, `addopts`...), plugin autoload
off with only the named plugins loaded, the same minimal environment, nodeids relative to the
repository root. The first collection of an init is also discovery's traced run
(init/discover.py), so the suite runs once and gives both the nodeids to classify and the
files the tests read; it runs with `--continue-on-collection-errors`, so one module that does
not import leaves the others' reads in. Later collections (checking a split) are collect-only.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from planegate.errors import ConfigError
from planegate.init import discover
from planegate.init.propose import CollectedItem, Collection
from planegate.init.suite import collecting_config
from planegate.runner import env as child_env
from planegate.runner import plugins, spec, startup
from planegate.runner.child import kinds
from planegate.runner.session import RunResult

PYTEST_FAILED_TO_START = (3, 4)  # pytest's INTERNAL_ERROR and USAGE_ERROR
HINT = (
    "plugin autoload is off as in the gate: name the plugins the suite needs with "
    "--plugin NAME; `python -m pytest --collect-only` shows the whole error"
)


@dataclass
class Collector:
    """`suite.Collect` for one checkout; keeps the traced run for discovery's notes."""

    root: Path
    plugins: tuple[str, ...]
    trace: bool = True
    traced: RunResult | None = None

    def __call__(self, targets: tuple[str, ...]) -> Collection:
        ini_options = discover.checkout_ini(self.root)
        cfg = collecting_config(self.plugins, ini_options.get("python_files"), targets)
        if self.trace and self.traced is None:
            args = (*spec.pytest_args(cfg), "--continue-on-collection-errors")
            result, _ = discover.run(
                self.root, cfg, ini_options, targets, kinds=True, extra_args=args
            )
            self.traced = result
            stopped(result, self.root)
        else:
            result, _ = discover.run(
                self.root, cfg, ini_options, targets, kinds=True, trace=None, collect_only=True
            )
        return collection(result, self.root)


def collection(result: RunResult, root: Path) -> Collection:
    """The run's collected items, each with its kind; a run that collected nothing because
    pytest could not start is one error line (exit 78)."""
    started = result.exit_status not in PYTEST_FAILED_TO_START and not result.timed_out
    if not result.collected and not result.collect_errors and not (started and result.closed):
        raise ConfigError(f"pytest could not collect the suite in {root}: {_why(result)}", HINT)
    hypothesis, plain = kinds.kinds_of(result.extra)
    items = tuple(
        CollectedItem(nodeid, nodeid in hypothesis, nodeid not in plain)
        for nodeid in result.collected
    )
    return Collection(items, result.collect_errors)


def stopped(result: RunResult, root: Path) -> None:
    """A traced run that collected tests and then stopped before its end (a crash, an exit, a
    usage error, a timeout) is an error with pytest's own message (exit 78): what it read is
    incomplete, so the proposal would be too."""
    if result.closed or not result.collected:
        return
    unfinished = f"{len(result.unfinished)} of {len(result.selected)} tests never finished"
    status = "" if result.exit_status is None else f", exit status {result.exit_status}"
    raise ConfigError(
        f"pytest stopped before the suite in {root} finished ({unfinished}{status}): "
        f"{_why(result)}",
        "init reads the files a whole run opens; `python -m pytest` shows where it stops",
    )


def _why(result: RunResult) -> str:
    if result.timed_out:
        return "it did not finish in time (pytest.timeout)"
    message = plugins.explain_missing_fixtures(
        startup.pytest_message(result.output), child_env.project_site(os.environ)
    )
    return message if len(message.strip(" .sFExX")) > 0 else "no message from pytest"
