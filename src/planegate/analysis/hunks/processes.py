"""A large batch's analysis in worker processes that need nothing from the gate's process once
given their work: each is a fresh interpreter that imports the analysis, waits for the name of
its share's file on its standard input, and writes its results to another file.

Not multiprocessing's pools: their feeding threads wait on the gate's interpreter lock while
the steps before step 5 run, and each of their workers runs the gate's main script again
before it starts (the forkserver does not preload it), which took longer than the share of
work it then did."""

from __future__ import annotations

import pickle
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from importlib import import_module
from pathlib import Path
from typing import TypeVar

from planegate.errors import InternalError

Item = TypeVar("Item")
Result = TypeVar("Result")

# `-I` keeps the working directory (the repository under test) and PYTHON* variables off the
# worker's path; the folder this planegate was imported from is added when it is not there.
_ROOT = str(Path(__file__).resolve().parents[3])
_BOOT = (
    "import sys; sys.argv[1] in sys.path or sys.path.append(sys.argv[1]); "
    "from planegate.analysis.hunks.processes import serve; serve(*sys.argv[2:])"
)


class Workers:
    """`count` interpreters started ahead of their work (they import `module` meanwhile);
    `run` gives them their shares, `close` ends those it did not use."""

    def __init__(self, count: int, module: str) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="planegate-analysis-")
        self._waiting: list[tuple[subprocess.Popen[bytes], Path]] = []
        for number in range(count):
            share = Path(self._folder.name, str(number))
            with share.with_suffix(".err").open("wb") as errors:
                command = [sys.executable, "-I", "-c", _BOOT, _ROOT, str(share), module]
                process = subprocess.Popen(command, stdin=subprocess.PIPE, stderr=errors)
            self._waiting.append((process, share))

    @property
    def count(self) -> int:
        return len(self._waiting)

    def run(
        self,
        items: Sequence[Item],
        work: Callable[[list[Item]], list[Result]],
        size: Callable[[Item], int],
    ) -> Callable[[], list[Result]]:
        """`work` (a module-level function) over `items`, each worker given a run of
        consecutive items of about the same total `size`; the call returned waits for them and
        gives the results in the items' order (a worker's exception is raised there)."""
        try:
            shares = [
                pickle.dumps((work, share), pickle.HIGHEST_PROTOCOL)
                for share in _shares(items, self.count, size)
            ]
        except BaseException:
            self.close()
            raise
        running, self._waiting = self._waiting, []
        for (process, share), data in zip(running, shares, strict=False):
            share.with_suffix(".in").write_bytes(data)
            _tell(process, b"go\n")
        for process, _ in running[len(shares) :]:
            _tell(process, b"")  # no share: it ends

        def results() -> list[Result]:
            with self._folder:
                for process, _ in running:
                    process.wait()
                out: list[Result] = []
                for process, share in running[: len(shares)]:
                    out += _outcome(process, share)
                return out

        return results

    def close(self) -> None:
        """End the workers still waiting: they read the end of their input and leave."""
        for process, _ in self._waiting:
            _tell(process, b"")
            process.wait()
        self._waiting = []
        self._folder.cleanup()


def _tell(process: subprocess.Popen[bytes], line: bytes) -> None:
    assert process.stdin is not None  # opened as a pipe
    try:
        process.stdin.write(line)
        process.stdin.close()
    except BrokenPipeError:
        pass  # the worker has ended already: `_outcome` reports how


def _shares(items: Sequence[Item], count: int, size: Callable[[Item], int]) -> list[list[Item]]:
    """`items` cut into at most `count` runs of consecutive items of about equal total size."""
    sizes = [max(size(item), 1) for item in items]
    total, done = sum(sizes), 0
    shares: list[list[Item]] = []
    current: list[Item] = []
    for item, weight in zip(items, sizes, strict=True):
        current.append(item)
        done += weight
        if done * count >= total * (len(shares) + 1) and len(shares) < count - 1:
            shares.append(current)
            current = []
    if current:
        shares.append(current)
    return shares


def serve(share: str, module: str) -> None:
    """In the worker: `module` imported, then, once told to go, its share read and worked, and
    its results (or its exception) written."""
    import_module(module)
    if not sys.stdin.buffer.readline():
        return  # not needed
    work, items = pickle.loads(Path(share).with_suffix(".in").read_bytes())
    try:
        outcome: tuple[bool, object] = (True, work(items))
    except Exception as error:
        outcome = (False, error)
    try:
        data = pickle.dumps(outcome, pickle.HIGHEST_PROTOCOL)
    except Exception as error:  # an exception that does not pickle
        data = pickle.dumps((False, InternalError(f"the analysis failed: {error!r}")))
    Path(share).with_suffix(".out").write_bytes(data)


def _outcome(process: subprocess.Popen[bytes], share: Path) -> list[Result]:
    code = process.returncode
    found = share.with_suffix(".out")
    if code != 0 or not found.exists():
        said = share.with_suffix(".err").read_text("utf-8", "replace").strip().splitlines()
        last = f": {said[-1]}" if said else ""
        raise InternalError(f"an analysis worker ended with exit code {code}{last}")
    done, value = pickle.loads(found.read_bytes())
    if not done:
        raise value
    results: list[Result] = value
    return results
