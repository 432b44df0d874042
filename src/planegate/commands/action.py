"""`planegate action`: the phase `INPUT_PHASE` names, for the mode the `mode` input names
(modes/registry.py): `fetch` (main's digest, token, runs nothing), `run` (the mode's run
phase: no token, may run the project's code) and `judge` (the mode's judge phase, then
posting). Without `INPUT_PHASE` (`all`) run and judge happen in one process, which is what a
local or single-container run wants; the composite action runs them in separate containers
(DESIGN §5).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from planegate.github.inputs import Job, read_job
from planegate.modes.base import exchange_folder, main_digest_folder, phase_of
from planegate.modes.registry import MODES
from planegate.progress import Progress
from planegate.repo.git import GitRepo


def run_phase(environ: Mapping[str, str], progress: Progress) -> int:
    """The mode's run phase: its data for the judge in the exchange folder, nothing else."""
    job = read_job(environ)
    folder = exchange_folder(environ)
    folder.mkdir(parents=True, exist_ok=True)
    return MODES[job.inputs.mode_key].run(job, folder, environ, progress)


def _checkout(job: Job) -> GitRepo:
    return GitRepo(Path(job.working_directory))


def main(progress: Progress) -> int:
    environ = os.environ
    phase = phase_of(environ)
    if phase == "run":
        return run_phase(environ, progress)
    from planegate.github.action import fetch_phase, run_action

    if phase == "fetch":
        return fetch_phase(environ, main_digest_folder(environ), modes=MODES, ancestry=_checkout)
    return run_action(environ, modes=MODES, ancestry=_checkout, progress=progress)
