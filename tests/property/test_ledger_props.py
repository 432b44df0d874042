"""Properties of the ledger fold and of the append-only rule (frozen seed)."""

from __future__ import annotations

import dataclasses
import json
from datetime import date
from typing import cast

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from helpers.ledger_cases import (
    COMMIT,
    EVENTS,
    LINE_TEXT,
    PATH,
    TARGET,
    UNIQUE,
    as_text,
    digest,
    freeze_events,
    render_all,
    renew_events,
    thaw_events,
)
from planegate.freeze.appendonly import append_only
from planegate.freeze.check import check
from planegate.freeze.events import FreezeEvent, LedgerEvent, ThawEvent, thaw_runs_required
from planegate.freeze.fold import fold
from planegate.freeze.parse import parse, split_lines
from planegate.freeze.validate import event_from_object
from planegate.freeze.write import render_event


@settings(derandomize=True, deadline=None, max_examples=200)
@given(EVENTS)
def test_fold_is_deterministic(events: list[LedgerEvent]) -> None:
    first = fold(events)
    assert fold(list(events)) == first
    assert fold(tuple(events)) == first
    assert list(first) == sorted(first)


@settings(derandomize=True, deadline=None, max_examples=200)
@given(st.one_of(freeze_events(), renew_events(), thaw_events()))
def test_an_event_round_trips_through_its_line(event: LedgerEvent) -> None:
    line = render_event(event)
    assert "\n" not in line
    assert event_from_object(json.loads(line)) == event
    # the line above proved the decoded value is the event, not EventErrors
    assert render_event(cast(LedgerEvent, event_from_object(json.loads(line)))) == line


@settings(derandomize=True, deadline=None, max_examples=200)
@given(EVENTS)
def test_rendering_and_reparsing_keeps_the_state(events: list[LedgerEvent]) -> None:
    text = render_all(events)
    parsed = parse(text, PATH)
    assert parsed.state() == fold(events)
    assert len(parsed.events) + len(parsed.problems) == len(events)
    lines = split_lines(text)
    for event, number in zip(parsed.events, parsed.lines, strict=True):
        assert render_event(event) == lines[number - 1]
    again = parse(render_all(list(parsed.events)), PATH)
    assert again.ok
    assert again.events == parsed.events
    assert again.state() == fold(parsed.events)


@settings(derandomize=True, deadline=None, max_examples=100)
@given(EVENTS, freeze_events(), EVENTS, st.data())
def test_a_thaw_without_new_evidence_never_clears_a_freeze(
    before: list[LedgerEvent],
    freeze: FreezeEvent,
    after: list[LedgerEvent],
    data: st.DataObject,
) -> None:
    target = dataclasses.replace(freeze, nodeid=TARGET)
    history = [*before, target, *after]
    accepted = parse(render_all(history), PATH).events
    old_hash = data.draw(st.sampled_from(sorted({event.evidence_hash for event in accepted})))
    thaw = ThawEvent(
        nodeid=TARGET,
        owner="@a",
        note="clean",
        thawed_at="2024-12-31",
        base_commit=COMMIT,
        env_fingerprint={"python": "3.12"},
        runs=200,
        failures=0,
        mode=target.mode,
        evidence_hash=old_hash,
        test_source_hash=digest("src"),
    )
    assert TARGET in fold([*history, thaw])
    parsed = parse(render_all([*history, thaw]), PATH)
    assert TARGET in parsed.state()
    assert parsed.problems[-1].line == len(history) + 1
    assert "brings no new evidence" in parsed.problems[-1].message
    fresh = dataclasses.replace(thaw, evidence_hash=digest("never seen"))
    assert TARGET not in fold([*history, fresh])


@settings(derandomize=True, deadline=None, max_examples=300)
@given(st.lists(LINE_TEXT, min_size=1, max_size=30), st.data())
def test_any_edit_of_a_base_line_is_detected(base: list[str], data: st.DataObject) -> None:
    index = data.draw(st.integers(0, len(base) - 1))
    new = data.draw(LINE_TEXT.filter(lambda text: text != base[index]))
    appended = data.draw(st.lists(LINE_TEXT, max_size=5))
    head = [*base[:index], new, *base[index + 1 :], *appended]
    problems = append_only(as_text(base), as_text(head), PATH)
    assert problems
    assert {problem.rule for problem in problems} == {"PG402"}


@settings(derandomize=True, deadline=None, max_examples=300)
@given(st.lists(LINE_TEXT, min_size=1, max_size=30), st.data())
def test_any_deletion_of_base_lines_is_detected(base: list[str], data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(base) - 1))
    stop = data.draw(st.integers(start + 1, len(base)))
    appended = data.draw(st.lists(LINE_TEXT, max_size=5))
    head = [*base[:start], *base[stop:], *appended]
    assume(head[: len(base)] != base)  # appending the deleted lines again restores the file
    problems = append_only(as_text(base), as_text(head), PATH)
    assert problems
    assert {problem.rule for problem in problems} == {"PG402"}


@settings(derandomize=True, deadline=None, max_examples=300)
@given(UNIQUE, st.data())
def test_an_edited_line_is_named_by_its_base_line_number(
    base: list[str], data: st.DataObject
) -> None:
    index = data.draw(st.integers(0, len(base) - 1))
    head = [*base[:index], "EDITED", *base[index + 1 :], "APPENDED"]
    problems = append_only("\n".join(base), "\n".join(head), PATH)
    assert [str(problem) for problem in problems] == [
        f"{PATH}:{index + 1}: base line {index + 1} was edited"
    ]


@settings(derandomize=True, deadline=None, max_examples=300)
@given(UNIQUE, st.data())
def test_deleted_lines_are_named_by_their_base_line_numbers(
    base: list[str], data: st.DataObject
) -> None:
    start = data.draw(st.integers(0, len(base) - 1))
    stop = data.draw(st.integers(start + 1, len(base)))
    head = [*base[:start], *base[stop:]]
    problems = append_only(as_text(base), as_text(head), PATH)
    span = (
        f"base line {start + 1} was" if stop == start + 1 else f"base lines {start + 1}-{stop} were"
    )
    assert [str(problem) for problem in problems] == [f"{PATH}:{start + 1}: {span} deleted"]


@settings(derandomize=True, deadline=None, max_examples=300)
@given(st.lists(LINE_TEXT, max_size=30), st.lists(LINE_TEXT, max_size=10), st.booleans())
def test_appends_are_always_accepted(base: list[str], new: list[str], final_newline: bool) -> None:
    base_text = "".join(line + "\n" for line in base)
    if not final_newline and base_text:
        base_text = base_text[:-1]
    separator = "\n" if base_text and not base_text.endswith("\n") else ""
    head_text = base_text + separator + "".join(line + "\n" for line in new)
    assert append_only(base_text, head_text, PATH) == []


@settings(derandomize=True, deadline=None, max_examples=100)
@given(EVENTS, EVENTS)
def test_appending_valid_events_never_rewrites(
    base: list[LedgerEvent], new: list[LedgerEvent]
) -> None:
    base_text = render_all(base)
    findings = check(
        base_text, base_text + render_all(new), PATH, date(2025, 1, 1), default_owner="@freeze"
    )
    assert "PG402" not in {finding.rule for finding in findings}


@settings(derandomize=True, deadline=None, max_examples=200)
@given(st.integers(0, 10_000), st.data())
def test_thaw_runs_required_is_clamped(runs: int, data: st.DataObject) -> None:
    failures = data.draw(st.integers(0, runs))
    needed = thaw_runs_required(runs, failures)
    assert 20 <= needed <= 100
    rate = (failures + 1) / (runs + 2)
    if 20 < needed < 100:
        assert (1 - rate) ** needed <= 0.05 < (1 - rate) ** (needed - 1)
