"""Progress lines: N/M tests with time spent and left; a terminal at most once a second, a CI
log once per tenth; nothing when quiet."""

from __future__ import annotations

import io

from planegate.progress import Progress, counted, duration


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def lines(stream: io.StringIO) -> list[str]:
    return stream.getvalue().splitlines()


def test_a_ci_log_gets_one_line_per_tenth_of_the_run() -> None:
    log, clock = io.StringIO(), Clock()
    progress = Progress(stream=log, clock=clock)
    progress.step("planes", "running")
    for done in range(1, 201):
        clock.now += 0.5
        progress.update(done, 200)
    counts = [line for line in lines(log) if "tests" in line]
    assert len(counts) == 10
    assert counts[0] == "planegate: planes: 20/200 tests, 10 s elapsed, about 1 min 30 s left"
    assert counts[-1] == "planegate: planes: 200/200 tests, 1 min 40 s elapsed"


def test_a_terminal_gets_a_line_at_most_once_a_second_and_the_last_one() -> None:
    screen, clock = Terminal(), Clock()
    progress = Progress(stream=screen, clock=clock)
    progress.step("base")
    for done in range(1, 41):
        clock.now += 0.1
        progress.update(done, 40)
    counts = [line for line in lines(screen) if "tests" in line]
    assert len(counts) == 5  # the first, once a second after it, and the end
    assert counts[-1].startswith("planegate: base: 40/40 tests")


def test_a_new_step_starts_its_own_count_and_clock() -> None:
    log, clock = io.StringIO(), Clock()
    progress = Progress(stream=log, clock=clock)
    progress.step("planes")
    progress.update(5, 5)
    clock.now += 50
    progress.step("base")
    clock.now += 3
    progress.update(1, 2)
    assert lines(log)[-1] == "planegate: base: 1/2 tests, 3 s elapsed, about 3 s left"


def test_quiet_prints_nothing() -> None:
    log = io.StringIO()
    progress = Progress(quiet=True, stream=log)
    progress.step("planes", "running")
    progress.update(1, 1)
    assert log.getvalue() == ""


def test_times_read_as_seconds_then_minutes() -> None:
    assert duration(0.4) == "0 s"
    assert duration(59.4) == "59 s"
    assert duration(61) == "1 min 01 s"
    assert counted(0, 3, 2.0) == "0/3 tests, 2 s elapsed"
