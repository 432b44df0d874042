"""Main's confirmation of a sampled canary started while the head's run goes on.

The child's `settled` record names the breaks that passed once no break is left to run; the
run's caller thread hands it to `heard`, which starts the confirmation `check` (run.py) would
start after the run (`start`: on the base's tree, at the niceness of a run beside the scoring
run). After the run `check` takes it when the run's closing record asks for the same
confirmation (`take`); anything else is closed. Imported before the head's spec: it holds
nothing of the confirmation's own, which run.py starts."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, Generic, Protocol, TypeVar

from planegate.errors import PlanegateError
from planegate.probes.canaries.child.sampled import SETTLED
from planegate.probes.canaries.wire import SampleSpec, sampled_of


class Started(Protocol):
    def close(self) -> None:
        """Wait for the confirmation's session, and remove its tree."""
        ...


S = TypeVar("S", bound=Started)


class Early(Generic[S]):
    """The confirmation of the breaks a run's settled record names, started as it comes."""

    def __init__(self, spec: SampleSpec, start: Callable[[SampleSpec], S]) -> None:
        self._spec, self._start = spec, start
        self._started: tuple[Mapping[str, tuple[str, str]], S] | None = None
        self._tried = False  # one record per run; a start that failed is left to `check`

    def heard(self, record: Mapping[str, Any]) -> None:
        reported = sampled_of({SETTLED: record}, SETTLED) or {}
        force = {n: (s.path, s.qualname) for n, s in reported.items() if s.path and not s.failed}
        if not force or self._tried:
            return
        self._tried = True
        try:
            self._started = (force, self._start(confirmation(self._spec, force)))
        except (PlanegateError, OSError):
            return  # `check` starts the confirmation after the run, and reports what fails

    def take(self, force: Mapping[str, tuple[str, str]]) -> S | None:
        """The confirmation started early, if it is the one `force` asks for."""
        started, self._started = self._started, None
        if started is None:
            return None
        if dict(started[0]) == dict(force):
            return started[1]
        started[1].close()
        return None

    def close(self) -> None:
        """Wait for a confirmation started early and not taken, and remove its tree."""
        if self._started is not None:
            self._started[1].close()
            self._started = None


def confirmation(spec: SampleSpec, force: Mapping[str, tuple[str, str]]) -> SampleSpec:
    """The sample's spec for main's run: the tests named, each with the break given."""
    return replace(spec, tests=tuple(force), breaks=len(force), only={}, force=dict(force))
