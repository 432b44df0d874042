"""The shape of an action mode, and the environment the action's phases share.

The phases, in the order the composite action runs them (docs/architecture.md): `prepare`
(scripts/action.sh on the runner), `fetch` (main's digest artifact, with the token, runs
nothing), `run` (the mode's run phase: no token, may run the project's code) and `judge`
(the mode's judge phase: the token, never runs the project's code). `INPUT_PHASE` unset is
`all`: run and judge in one process, as a local or single-container run wants.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

from planegate.errors import UsageError
from planegate.github.action import JudgedMode
from planegate.github.inputs import Job
from planegate.progress import Progress

PHASES = ("all", "fetch", "run", "judge")


class Mode(JudgedMode, Protocol):
    """One mode of the action: what the posting job needs of it, and its run phase."""

    def run(self, job: Job, folder: Path, environ: Mapping[str, str], progress: Progress) -> int:
        """The run phase: may run the project's code, never holds the token; leaves its data
        for the judge in the exchange `folder`."""
        ...


def phase_of(environ: Mapping[str, str]) -> str:
    phase = (environ.get("INPUT_PHASE") or "all").strip().lower()
    if phase not in PHASES:
        raise UsageError(f"INPUT_PHASE: expected fetch, run or judge, got {phase!r}")
    return phase


def exchange_folder(environ: Mapping[str, str]) -> Path:
    folder = environ.get("PLANEGATE_EXCHANGE")
    if not folder:
        raise UsageError("PLANEGATE_EXCHANGE is not set", "the composite action sets it")
    return Path(folder)


def main_digest_folder(environ: Mapping[str, str]) -> Path:
    folder = environ.get("PLANEGATE_MAIN_DIGEST")
    if not folder:
        raise UsageError("PLANEGATE_MAIN_DIGEST is not set", "the composite action sets it")
    return Path(folder)


def out_folder(job: Job) -> Path:
    """Where the judge writes what the workflow uploads: PLANEGATE_OUT, else the checkout."""
    return Path(job.runner.out or job.working_directory)


def no_run_phase(name: str) -> UsageError:
    return UsageError(f"mode {name!r} has no run phase")
