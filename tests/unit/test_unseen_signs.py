"""PG565 as a pure comparison: the kernel's opens of locked files against the audit hook's,
weighed against main's run; and main's count in the digest."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any, cast

from planegate.findings import Severity
from planegate.gitfacts import GitFacts
from planegate.repo.digest_format import Digest, MainRun, RecordedSigns, from_json, to_json
from planegate.runner.inotify import Opens
from planegate.runner.session import RunResult
from planegate.signs import unseen
from planegate.signs.compare import MainsSigns

GOLDEN, TEST = "tests/fix/data/label.txt", "tests/fix/test_label.py"


class _Who:
    def of_plane(self, plane: str | None, path: str | None = None) -> str:
        return f"@{plane}-owner" if path else "@nobody"

    def of_plane_map(self) -> str:
        return "@map-owner"


CTX = cast(GitFacts, SimpleNamespace(author="@author", who=_Who()))


def run(kernel: dict[str, int] | None, hook: Any, closed: bool = True, **more: Any) -> RunResult:
    return RunResult(
        collected=(),
        selected=(),
        outcomes={},
        collect_errors=(),
        closed=closed,
        exit_status=0,
        timed_out=False,
        output="",
        extra={} if hook is None else {"opens": {"counts": hook}},
        opened=None if kernel is None else Opens(kernel, **more),
    )


def found(head: RunResult, mains: dict[str, int] | None) -> list[tuple[str, str | None, str]]:
    facts = SimpleNamespace(head_run=head, mains_signs=MainsSigns(unseen=mains))
    return [(f.severity.value, f.path, f.owner) for f in unseen.findings(CTX, facts)]


def test_opens_the_kernel_counted_beyond_the_hooks_are_the_excess() -> None:
    head = run({GOLDEN: 3, TEST: 2}, {GOLDEN: 2, TEST: 2})
    assert unseen.excess(head) == {GOLDEN: 1}
    assert unseen.excess(run({TEST: 1}, {TEST: 4})) == {}  # more seen than counted: not this
    assert unseen.excess(run({GOLDEN: 1}, {GOLDEN: 0}, closed=False)) is None
    assert unseen.excess(run(None, {})) is None  # not a traced run


def test_an_open_is_the_patchs_unless_mains_run_shows_as_many() -> None:
    head = run({GOLDEN: 2}, {GOLDEN: 1})
    assert found(head, {}) == [("error", GOLDEN, "@author")]
    assert found(head, {GOLDEN: 1}) == []
    assert found(run({GOLDEN: 3}, {GOLDEN: 1}), {GOLDEN: 1}) == [("error", GOLDEN, "@author")]
    assert found(head, None) == [("warning", GOLDEN, "@fixture-owner")]  # main not known
    (finding,) = unseen.findings(CTX, SimpleNamespace(head_run=head, mains_signs=MainsSigns()))
    assert finding.severity is Severity.WARNING
    assert "opened once where the audit hook cannot see" in finding.message


def test_unknown_counts_are_a_warning_that_says_why() -> None:
    overflowed = run({GOLDEN: 1}, {}, overflow=True)
    assert found(overflowed, {}) == [("warning", None, "@map-owner")]
    (finding,) = unseen.findings(
        CTX, SimpleNamespace(head_run=overflowed, mains_signs=MainsSigns(unseen={}))
    )
    assert "event queue overflowed" in finding.message
    silent = run({GOLDEN: 1}, None)  # the child sent no count of its own
    assert found(silent, {}) == [("warning", None, "@map-owner")]
    assert found(run({GOLDEN: 1}, {GOLDEN: 1}, closed=False), {}) == []  # its findings stand


def test_the_childs_count_is_read_as_untrusted_data() -> None:
    assert unseen.hook_counts({"counts": {GOLDEN: 2}}) == {GOLDEN: 2}
    for bad in ({"counts": {GOLDEN: -1}}, {"counts": {GOLDEN: True}}, {"counts": [1]}, "x"):
        assert unseen.hook_counts(bad) is None


def test_mains_count_travels_in_the_digest() -> None:
    signs = RecordedSigns(launches=(), unseen={GOLDEN: 1})
    digest = Digest("c" * 40, {}, run=MainRun({}, {}, signs=signs))
    assert from_json(to_json(digest), "d.json").run == digest.run
    older = RecordedSigns(launches=())
    digest = Digest("c" * 40, {}, run=MainRun({}, {}, signs=older))
    assert "unseen" not in to_json(digest)
    assert from_json(to_json(digest), "d.json").run == digest.run  # None: not known


def test_the_counts_travel_between_the_action_phases() -> None:
    from dataclasses import replace

    from planegate.gate import exchange
    from planegate.probes.fixture.wire import ProbeResult
    from planegate.steps.run_facts import Commits, Execution

    head = run({GOLDEN: 2}, {GOLDEN: 1}, overflow=False)
    commits = Commits("a" * 40, "b" * 40, "c" * 40, "d" * 40)
    execution = Execution(commits, head, None, (), ProbeResult(), ())
    execution = replace(execution, mains_signs=MainsSigns(unseen={GOLDEN: 1}))
    back = exchange.from_json(exchange.to_json(execution), "run.json")
    assert back.head_run.opened == head.opened
    assert back.head_run.extra == head.extra
    assert back.mains_signs.unseen == {GOLDEN: 1}
    older = json.loads(exchange.to_json(execution))
    del older["head_run"]["opened"]
    del older["mains_signs"]["unseen"]
    back = exchange.from_value(older, "run.json")
    assert back.head_run.opened is None and back.mains_signs.unseen is None
