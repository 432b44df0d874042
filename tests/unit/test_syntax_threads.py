"""The gate parses Python on several threads at once (the hunks step's scan beside the test
child, the check of main's source from its digest, the main thread). On CPython 3.11 two
interleaved parses can fail with `SystemError: AST constructor recursion depth mismatch`: a
garbage collection inside one parse runs a finaliser, the finaliser's Python code lets another
thread in, and that thread's parse moves the depth the first one counts. `planegate.syntax`
takes one parse at a time; here four threads parse under that pressure (cycles with
finalisers made between parses, the interpreter switching threads as often as it can), which
makes `ast.parse` itself fail a few times in a hundred rounds on 3.11."""

from __future__ import annotations

import contextlib
import gc
import sys
import threading
from collections.abc import Callable, Iterator

from planegate import syntax

SOURCE = "x = " + "(" * 40 + "1" + ")" * 40 + "\n" + "def f(a):\n    return [b for b in a]\n" * 100


class _Finalised:
    """Kept alive by a cycle until a collection, whose finaliser runs Python code."""

    def __init__(self) -> None:
        self.other: _Finalised | None = None

    def __del__(self) -> None:
        sum(range(50))


@contextlib.contextmanager
def _pressure() -> Iterator[None]:
    """Threads switched as often as the interpreter allows, collections every few objects."""
    interval, thresholds = sys.getswitchinterval(), gc.get_threshold()
    sys.setswitchinterval(1e-6)
    gc.set_threshold(50, 1, 1)
    try:
        yield
    finally:
        sys.setswitchinterval(interval)
        gc.set_threshold(*thresholds)


def _parse_in_threads(
    parse: Callable[[str], object], rounds: int, text: str = SOURCE
) -> list[BaseException]:
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(rounds):
                for _ in range(30):
                    first, second = _Finalised(), _Finalised()
                    first.other, second.other = second, first
                parse(text)
        except SystemError as error:
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def test_parses_on_four_threads_never_interleave() -> None:
    with _pressure():
        assert _parse_in_threads(syntax.parse, 100) == []


def test_literals_are_evaluated_one_at_a_time_too() -> None:
    text = "[" + ", ".join(f"({n}, '{n}')" for n in range(300)) + "]"
    with _pressure():
        assert _parse_in_threads(syntax.literal, 100, text) == []
    assert syntax.literal(text)[299] == (299, "299")
