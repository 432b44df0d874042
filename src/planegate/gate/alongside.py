"""Work of the gate process that needs no test child's result, run while the child runs.

The gate process mostly waits on the child's pipe during its run: work that reads only what
the calling thread has read from git already (the hunks step's production-code scan, say)
runs on a thread of its own from the moment the next test child is started, and so costs
the user no time of its own. It never starts before the child: until then the gate's own
preparations (what the child needs) would share the interpreter with it. The work must not
read git (GitPython's processes are not shared between threads): what it needs is read by
the caller first. Whoever asks for the result before any child started runs it at once.
"""

from __future__ import annotations

import importlib
import threading
import time
from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

from planegate.errors import InternalError
from planegate.runner import contain

T = TypeVar("T")


class Alongside(Generic[T]):
    """`work()` on a thread started now, waiting for the next test child's start (from `arm`
    on, when made unarmed); `modules` are imported there first (what only the gate's end
    needs)."""

    def __init__(
        self, work: Callable[[], T], modules: Iterable[str] = (), *, armed: bool = True
    ) -> None:
        self._work = work
        self._modules = tuple(modules)
        self._after = contain.launches()
        self._armed = threading.Event()
        if armed:
            self._armed.set()
        self._wanted = False
        self._value: tuple[T] | None = None
        self._error: BaseException | None = None
        self.seconds = 0.0  # the work's own time (its imports included)
        self._thread = threading.Thread(target=self._run, name="alongside", daemon=True)
        self._thread.start()

    def arm(self) -> None:
        """Wait for a child started from now on (made `armed=False`: the caller's next child
        is the one to run beside, not a child another thread starts before it)."""
        self._after = contain.launches()
        self._armed.set()

    def _run(self) -> None:
        self._armed.wait()
        contain.wait_for_launch(self._after, lambda: self._wanted)
        started = time.perf_counter()
        try:
            for name in self._modules:
                importlib.import_module(name)
            self._value = (self._work(),)
        except BaseException as error:  # handed to the caller of result()
            self._error = error
        self.seconds = round(time.perf_counter() - started, 3)

    def result(self) -> T:
        """The work's value (its error raised here), waiting for it; started now if no child
        has started since."""
        self._wanted = True
        self._armed.set()
        contain.wake()
        self._thread.join()
        if self._error is not None:
            raise self._error
        if self._value is None:
            raise InternalError("the work alongside the test child left no value")
        return self._value[0]
