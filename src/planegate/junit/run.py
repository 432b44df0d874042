"""One run of the configured command in a tree, read back as a `RunResult`: the same facts
the pytest runner gives (collected ids, outcomes, whether the run closed), so the steps after
it need not know which runner ran.

The command runs contained as the pytest child is (runner/contain.py: its own session, a
minimal environment, another user when the gate runs as root, everything it leaves killed),
but planegate does not instrument it: what it writes to its JUnit XML is what it says."""

from __future__ import annotations

import contextlib
import glob
import os
import signal
import subprocess
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

from planegate.config.junit_section import JunitSection
from planegate.junit import filters, results
from planegate.progress import QUIET, Progress
from planegate.runner import contain
from planegate.runner import env as child_env
from planegate.runner.session import RunResult

MAX_OUTPUT = 200_000
IGNORED = "junit_ignored"  # `extra` key: frozen id -> its outcome in a run that ignored it
SHELL = "/bin/sh"


def report_paths(tree: Path, patterns: Iterable[str]) -> list[Path]:
    """The files the `xml` patterns name in the tree (never outside it)."""
    root = tree.resolve()
    found: list[Path] = []
    for pattern in patterns:
        for name in sorted(glob.glob(pattern, root_dir=tree, recursive=True)):
            path = (tree / name).resolve()
            if root in path.parents and path.is_file() and path not in found:
                found.append(path)
    return found


def run(
    tree: Path,
    section: JunitSection,
    deselect: Iterable[str] = (),
    *,
    environ: Mapping[str, str] | None = None,
    progress: Progress = QUIET,
    elsewhere: Iterable[str] = (),
) -> RunResult:
    """Run the command in `tree` with the frozen ids `deselect`ed through the runner's filter
    when the configuration gives one (else they run and their outcomes are dropped here);
    with `elsewhere` (the ids other shards run) the filter leaves those out too."""
    frozen, left_out = frozenset(deselect), frozenset(elsewhere)
    for stale in report_paths(tree, section.xml):  # a report the commit holds is not a run's
        stale.unlink()
    text = filters.command(section.command, section.filter, frozen | left_out)[0]
    filtered = filters.command(section.command, section.filter, frozen)[1]
    progress.step("run", "running the suite's command (runner: junit)")
    status, timed_out, output = _execute(tree, text, section, environ or os.environ)
    read, problems = _read(tree, section)
    closed = not timed_out and bool(read.ids) and not problems
    gone = frozen | _reported_left_out(read, left_out)
    kept = {n: o for n, o in read.outcomes.items() if n not in gone}
    collected = tuple(read.ids) + tuple(sorted(frozen - set(read.ids))) if filtered else read.ids
    ran_frozen = _ran_frozen(read, frozen, filtered)
    notes = _frozen_notes(section.filter, frozen, filtered, ran_frozen)
    if not read.ids and not problems:
        problems = [f"the command wrote no JUnit XML at {', '.join(section.xml)}"]
    return RunResult(
        collected=collected,
        selected=tuple(n for n in read.ids if n not in gone),
        outcomes=kept,
        collect_errors=(),
        closed=closed,
        exit_status=status,
        timed_out=timed_out,
        output="\n".join([*problems, output])[-MAX_OUTPUT:],
        notes=(*notes, *problems),
        extra={IGNORED: ran_frozen},
    )


def _reported_left_out(read: results.Cases, left_out: frozenset[str]) -> frozenset[str]:
    """The ids the filter left out that the runner still reported, as skipped (node:test
    does): they did not run."""
    return frozenset(
        n for n in left_out if n in read.outcomes and read.outcomes[n].outcome == "skipped"
    )


def _ran_frozen(read: results.Cases, frozen: frozenset[str], filtered: bool) -> dict[str, str]:
    """The frozen ids that ran, and their outcomes (which the run ignores). A filter may report
    the tests it left out as skipped (node:test does): those did not run."""
    return {
        n: o.outcome
        for n, o in read.outcomes.items()
        if n in frozen and not (filtered and o.outcome == "skipped")
    }


def _frozen_notes(
    style: str, frozen: frozenset[str], filtered: bool, ran: Mapping[str, str]
) -> list[str]:
    if not frozen:
        return []
    if not filtered:
        return ["frozen tests ran and their outcomes were ignored (no runner filter)"]
    notes = [f"frozen tests deselected with the {style} filter"]
    if ran:
        notes.append(
            f"{len(ran)} frozen tests ran though the {style} filter named them: "
            f"{', '.join(sorted(ran)[:5])}; their outcomes were ignored"
        )
    return notes


def _read(tree: Path, section: JunitSection) -> tuple[results.Cases, list[str]]:
    parts, problems = [], []
    for path in report_paths(tree, section.xml):
        where = path.relative_to(tree.resolve()).as_posix()
        try:
            parts.append(results.parse(path.read_bytes(), where, section.id_format))
        except (OSError, results.XmlProblem) as exc:
            problems.append(str(exc))
    return results.merge(parts), problems


def _execute(
    tree: Path, command: str, section: JunitSection, parent: Mapping[str, str]
) -> tuple[int | None, bool, str]:
    """The command under `sh -c` in the tree; its exit status, whether it timed out, and the
    tail of its output."""
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as scratch:
        scratch_dir = Path(scratch)
        (scratch_dir / "home").mkdir()
        env = child_env.minimal(parent, str(scratch_dir / "home"), section.env_allow)
        how = contain.plan_launch(tree, scratch_dir, child_env.child_user(parent))
        log_path = scratch_dir / "output.log"
        with log_path.open("wb") as log, contain.guarded() as children:
            proc = contain.launch(
                lambda: subprocess.Popen(
                    [*how.prefix, SHELL, "-c", command],
                    cwd=tree,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                    user=how.user,
                    group=how.user,
                    extra_groups=None if how.user is None else [],
                    umask=how.umask,
                )
            )
            try:
                status, timed_out = proc.wait(timeout=section.timeout), False
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGKILL)
                status, timed_out = None, True
            contain.kill_descendants(proc.pid, children)
            proc.wait()
        output = log_path.read_bytes()[-MAX_OUTPUT:].decode("utf-8", "replace")
    return status, timed_out, output
