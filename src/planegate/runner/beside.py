"""A session in a thread beside the caller's, in a tree the caller's thread made: the caller
goes on (another session, the other probes) while it runs. The tree is exported, overlaid
and written by the caller's thread only (one thread reads git); `result()` waits for the
session, removes the tree and hands back what the work returned or raised."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")


class Beside(Generic[T]):
    """`work` started in a thread now; `folders` holds what it runs in (closed when it ends)."""

    def __init__(self, folders: contextlib.ExitStack, work: Callable[[], T], name: str) -> None:
        self._folders = folders
        self._value: list[T] = []  # what the work returned, once it has
        self._error: BaseException | None = None

        def run() -> None:
            try:
                self._value.append(work())
            except BaseException as error:  # handed to the caller of result()
                self._error = error

        # the thread lives as long as the session: bwrap's --die-with-parent follows the
        # thread that started the child (runner/parked.py)
        self._thread = threading.Thread(target=run, name=name, daemon=True)
        self._thread.start()

    def wait(self) -> None:
        """Wait for the work to end (its folders stay until `close`)."""
        self._thread.join()

    def result(self) -> T:
        """What the work returned (it raises what the work raised), once it has ended."""
        self.close()
        if self._error is not None:
            raise self._error
        return self._value[0]

    def close(self) -> None:
        """Wait for the work to end, and remove its folders."""
        self._thread.join()
        self._folders.close()


@contextlib.contextmanager
def closed_on_error(folders: contextlib.ExitStack) -> Iterator[None]:
    """What `folders` holds so far is removed if making the rest raises."""
    try:
        yield
    except BaseException:
        folders.close()
        raise
