"""The freeze ledger: every validation message, the check and the writers."""

from __future__ import annotations

import hashlib
import json
import math
from datetime import date
from pathlib import Path
from typing import Any, get_args

from helpers.ledger_cases import (
    COMMIT,
    FINGERPRINT,
    NODE,
    OTHER,
    PATH,
    digest,
    freeze_obj,
    messages,
    new_freeze,
    renew_obj,
    text_of,
    thaw_obj,
)
from planegate.findings import Severity, Step
from planegate.freeze.appendonly import append_only
from planegate.freeze.check import check, check_file
from planegate.freeze.events import (
    EVENT_KINDS,
    EventErrors,
    FreezeEvent,
    LedgerEvent,
    RenewEvent,
    ThawEvent,
    thaw_runs_required,
)
from planegate.freeze.fold import frozen_fraction_exceeded, replays_due
from planegate.freeze.parse import parse
from planegate.freeze.validate import event_from_object, optional_fields, required_fields
from planegate.freeze.write import append_event, evidence_hash, render_event, replay_outcome_event
from planegate.rules import RULES


def test_a_valid_ledger_has_no_problems() -> None:
    text = text_of(freeze_obj(), renew_obj(), thaw_obj(evidence_hash=digest("thaw")))
    parsed = parse(text, PATH)
    assert parsed.problems == ()
    assert [event.KIND for event in parsed.events] == ["freeze", "renew", "thaw"]
    assert parsed.lines == (1, 2, 3)
    assert parsed.state() == {}


def test_not_json() -> None:
    assert messages('{"event": "freeze",\n') == [
        f"{PATH}:1: not JSON: Expecting property name enclosed in double quotes (column 20)"
    ]


def test_not_an_object() -> None:
    assert messages('["freeze"]\n"thaw"\n') == [
        f"{PATH}:1: not a JSON object (got an array)",
        f"{PATH}:2: not a JSON object (got a string)",
    ]


def test_blank_line() -> None:
    assert messages(text_of(freeze_obj()) + "\n") == [
        f"{PATH}:2: blank line (the ledger holds one JSON event per line)"
    ]


def test_duplicate_key() -> None:
    assert messages('{"event": "freeze", "owner": "@a", "owner": "@b"}\n') == [
        f"{PATH}:1: duplicate key 'owner'"
    ]


def test_missing_event_kind() -> None:
    obj = freeze_obj()
    del obj["event"]
    assert messages(text_of(obj)) == [f"{PATH}:1: missing 'event' (one of freeze, renew, thaw)"]


def test_unknown_event_kind() -> None:
    assert messages(text_of(freeze_obj(event="quarantine"))) == [
        f'{PATH}:1: unknown event "quarantine" (expected one of freeze, renew, thaw)'
    ]


def test_unknown_flake_class_names_the_closed_set() -> None:
    assert messages(text_of(freeze_obj(flake_class="slow"))) == [
        f"{PATH}:1: field 'flake_class' must be one of timing, order, network, rng, env, "
        'not "slow"'
    ]


def test_missing_fields_are_listed_in_one_problem() -> None:
    obj = freeze_obj()
    del obj["evidence_hash"], obj["owner"]
    assert messages(text_of(obj)) == [
        f"{PATH}:1: freeze event is missing required fields: owner, evidence_hash"
    ]
    del obj["flake_class"]
    obj.update(owner="@a", evidence_hash=digest("x"))
    assert messages(text_of(obj)) == [
        f"{PATH}:1: freeze event is missing required field: flake_class"
    ]


def test_ill_typed_fields() -> None:
    assert messages(text_of(freeze_obj(runs="3", class_confidence=1.5, owner=" "))) == [
        f"{PATH}:1: field 'class_confidence' must be a number from 0 to 1, not 1.5",
        f"{PATH}:1: field 'owner' must be a non-empty string, not \" \"",
        f"{PATH}:1: field 'runs' must be a whole number >= 0, not \"3\"",
    ]


def test_booleans_are_not_counts() -> None:
    assert messages(text_of(freeze_obj(failures=True))) == [
        f"{PATH}:1: field 'failures' must be a whole number >= 0, not true"
    ]


def test_nodeid_must_be_a_pytest_nodeid() -> None:
    assert messages(text_of(freeze_obj(nodeid="tests/test_io.py"))) == [
        f"{PATH}:1: field 'nodeid' must be a pytest nodeid (path::name), not \"tests/test_io.py\""
    ]


def test_unknown_field() -> None:
    assert messages(text_of(freeze_obj(reviewby="2024-06-01"))) == [
        f"{PATH}:1: unknown field 'reviewby' in a freeze event"
    ]


def test_bad_dates() -> None:
    assert messages(text_of(freeze_obj(frozen_at="2024-02-30", review_by="soon"))) == [
        f"{PATH}:1: field 'frozen_at' must be a date (YYYY-MM-DD) or a date-time "
        '(YYYY-MM-DDTHH:MM:SSZ), not "2024-02-30"',
        f"{PATH}:1: field 'review_by' must be a date (YYYY-MM-DD), not \"soon\"",
    ]


def test_date_times_with_offsets_are_accepted() -> None:
    for stamp in ("2024-05-01T10:00:00Z", "2024-05-01T10:00:00.123+02:00"):
        assert messages(text_of(freeze_obj(frozen_at=stamp))) == []
    assert messages(text_of(freeze_obj(frozen_at="2024-05-01T25:00:00Z"))) != []
    assert messages(text_of(freeze_obj(frozen_at="2024-05-01 10:00:00"))) != []


def test_review_by_before_the_event() -> None:
    assert messages(text_of(freeze_obj(review_by="2024-04-30"))) == [
        f"{PATH}:1: review_by 2024-04-30 is before frozen_at"
    ]


def test_review_by_may_be_null() -> None:
    parsed = parse(text_of({**freeze_obj(), "review_by": None}), PATH)
    assert parsed.ok
    assert parsed.state()[NODE].review_by is None


def test_evidence_hash_must_be_64_hex() -> None:
    wanted = "must be a sha256 hex digest (64 lowercase hex digits)"
    assert messages(text_of(freeze_obj(evidence_hash="abc123"))) == [
        f"{PATH}:1: field 'evidence_hash' {wanted}, not \"abc123\""
    ]
    assert messages(text_of(freeze_obj(evidence_hash="A" * 64))) == [
        f"{PATH}:1: field 'evidence_hash' {wanted}, not \"{'A' * 36}..."
    ]
    assert len(messages(text_of(freeze_obj(evidence_hash=digest("x") + "0")))) == 1


def test_base_commit_must_be_a_full_commit_id() -> None:
    assert messages(text_of(freeze_obj(base_commit="0123abc"))) == [
        f"{PATH}:1: field 'base_commit' must be a full commit id (40 or 64 lowercase hex "
        'digits), not "0123abc"'
    ]


def test_a_freeze_needs_failing_evidence() -> None:
    assert messages(text_of(freeze_obj(failures=0))) == [
        f"{PATH}:1: a freeze needs failing evidence, but failures is 0"
    ]


def test_failures_cannot_exceed_runs() -> None:
    assert messages(text_of(freeze_obj(runs=2, failures=3))) == [
        f"{PATH}:1: failures (3) exceed runs (2)"
    ]


def test_thaw_runs_required_cannot_be_weakened() -> None:
    assert messages(text_of(freeze_obj(runs=30, failures=1, thaw_runs_required=46))) == [
        f"{PATH}:1: thaw_runs_required is 46, but 30 runs with 1 failure need at least 47"
    ]
    assert messages(text_of(freeze_obj(runs=30, failures=2, thaw_runs_required=20))) == [
        f"{PATH}:1: thaw_runs_required is 20, but 30 runs with 2 failures need at least 31"
    ]


def test_a_thaw_needs_clean_evidence() -> None:
    assert messages(text_of(freeze_obj(), thaw_obj(failures=1))) == [
        f"{PATH}:2: a thaw needs clean evidence, but failures is 1; record a renew instead"
    ]


def test_renew_reclassification_comes_with_a_confidence() -> None:
    assert messages(text_of(freeze_obj(), renew_obj(flake_class="order"))) == [
        f"{PATH}:2: flake_class and class_confidence come together in a renew, or not at all"
    ]
    parsed = parse(
        text_of(freeze_obj(), renew_obj(flake_class="order", class_confidence=0.6)), PATH
    )
    assert parsed.ok
    assert (parsed.state()[NODE].flake_class, parsed.state()[NODE].class_confidence) == (
        "order",
        0.6,
    )


def test_thaw_with_the_freezes_evidence_hash() -> None:
    text = text_of(freeze_obj(), thaw_obj(evidence_hash=digest("freeze")))
    assert messages(text) == [
        f"{PATH}:2: thaw of '{NODE}' brings no new evidence: its evidence_hash already appears "
        "on line 1"
    ]
    assert NODE in parse(text, PATH).state()


def test_thaw_with_any_earlier_evidence_hash() -> None:
    text = text_of(
        freeze_obj(nodeid=OTHER, evidence_hash=digest("other")),
        freeze_obj(),
        renew_obj(),
        thaw_obj(evidence_hash=digest("other")),
    )
    assert messages(text) == [
        f"{PATH}:4: thaw of '{NODE}' brings no new evidence: its evidence_hash already appears "
        "on line 1"
    ]
    text = text_of(freeze_obj(), renew_obj(), thaw_obj(evidence_hash=digest("renew")))
    assert messages(text) == [
        f"{PATH}:3: thaw of '{NODE}' brings no new evidence: its evidence_hash already appears "
        "on line 2"
    ]


def test_renew_without_new_evidence() -> None:
    assert messages(text_of(freeze_obj(), renew_obj(evidence_hash=digest("freeze")))) == [
        f"{PATH}:2: renew of '{NODE}' brings no new evidence: its evidence_hash already appears "
        "on line 1"
    ]


def test_thaw_with_too_few_clean_runs() -> None:
    text = text_of(freeze_obj(runs=10, failures=1, thaw_runs_required=21), thaw_obj(runs=20))
    assert messages(text) == [
        f"{PATH}:2: thaw of '{NODE}' has 20 clean runs; the freeze needs at least 21 (line 1)"
    ]


def test_renew_or_thaw_of_a_nodeid_not_frozen() -> None:
    assert messages(text_of(renew_obj(), thaw_obj())) == [
        f"{PATH}:1: renew of '{NODE}', which is not frozen",
        f"{PATH}:2: thaw of '{NODE}', which is not frozen",
    ]


def test_duplicate_freeze() -> None:
    text = text_of(freeze_obj(), freeze_obj(evidence_hash=digest("again")))
    assert messages(text) == [
        f"{PATH}:2: duplicate freeze of '{NODE}', frozen since line 1; append a renew instead"
    ]


def test_a_nodeid_can_be_frozen_again_after_a_thaw() -> None:
    text = text_of(freeze_obj(), thaw_obj(), freeze_obj(evidence_hash=digest("again")))
    parsed = parse(text, PATH)
    assert parsed.ok
    assert parsed.state()[NODE].freeze_line == 3


def test_problems_carry_the_entrys_owner() -> None:
    text = text_of(freeze_obj(), renew_obj(owner="@renewer", runs="x"), "oops")
    problems = parse(text, PATH).problems
    assert [(problem.line, problem.owner, problem.nodeid) for problem in problems] == [
        (2, "@renewer", NODE),
        (3, None, None),
    ]


def test_problems_never_raise_on_odd_input() -> None:
    odd = "\x00\n{}\n" + "[" * 100_000 + "\n" + '{"event": null}\n1e999\n'
    problems = messages(odd)
    assert len(problems) == 5
    assert problems[1] == f"{PATH}:2: missing 'event' (one of freeze, renew, thaw)"
    assert problems[3] == f"{PATH}:4: unknown event null (expected one of freeze, renew, thaw)"


def test_a_10000_line_ledger_parses() -> None:
    lines = [
        json.dumps(freeze_obj(nodeid=f"tests/test_big.py::test_{i}", evidence_hash=digest(str(i))))
        for i in range(10_000)
    ]
    parsed = parse("\n".join(lines) + "\n", PATH)
    assert parsed.problems == ()
    assert len(parsed.events) == 10_000
    assert len(parsed.state()) == 10_000
    assert append_only("\n".join(lines), "\n".join(lines) + "\n" + lines[0], PATH) == []


def test_append_only_messages() -> None:
    base = "a\nb\nc\nd\ne\n"
    assert [str(p) for p in append_only(base, "a\nB\nc\nd\ne\nf\n", PATH)] == [
        f"{PATH}:2: base line 2 was edited"
    ]
    assert [str(p) for p in append_only(base, "a\ne\n", PATH)] == [
        f"{PATH}:2: base lines 2-4 were deleted"
    ]
    assert [str(p) for p in append_only(base, "a\nb\nx\nc\nd\ne\n", PATH)] == [
        f"{PATH}:3: a line was inserted before base line 3; append new events at the end"
    ]
    assert [str(p) for p in append_only(base, "", PATH)] == [
        f"{PATH}:1: base lines 1-5 were deleted"
    ]


def test_append_only_is_byte_exact_per_line() -> None:
    assert [str(p) for p in append_only("a\nb\n", "a\r\nb\n", PATH)] == [
        f"{PATH}:1: base line 1 was edited"
    ]
    assert append_only("a\nb", "a\nb\n", PATH) == []
    assert [str(p) for p in append_only("a\nb", "a\nbc\n", PATH)] == [
        f"{PATH}:2: base line 2 was edited"
    ]


def test_review_by_passing_makes_a_replay_due_and_never_thaws() -> None:
    state = parse(text_of(freeze_obj(review_by="2024-06-01")), PATH).state()
    assert replays_due(state, date(2024, 6, 1)) == []
    due = replays_due(state, date(2024, 6, 11))
    assert [(d.nodeid, d.owner, d.review_by, d.line, d.days_overdue) for d in due] == [
        (NODE, "@io-team", date(2024, 6, 1), 1, 10)
    ]
    assert NODE in state


def test_a_renewal_or_thaw_clears_the_replay() -> None:
    renewed = parse(text_of(freeze_obj(), renew_obj(review_by="2024-09-01")), PATH)
    assert replays_due(renewed.state(), date(2024, 7, 1)) == []
    assert [d.line for d in replays_due(renewed.state(), date(2024, 9, 2))] == [2]
    thawed = parse(text_of(freeze_obj(), thaw_obj()), PATH)
    assert replays_due(thawed.state(), date(2030, 1, 1)) == []


def test_thaw_runs_required() -> None:
    assert thaw_runs_required(3, 1) == 20
    assert thaw_runs_required(10, 0) == 35
    assert thaw_runs_required(10, 1) == 20
    assert thaw_runs_required(30, 1) == 47
    assert thaw_runs_required(1000, 1) == 100
    rate = 3 / 62
    assert thaw_runs_required(60, 2) == math.ceil(math.log(0.05) / math.log(1 - rate))


def test_thaw_runs_required_rejects_impossible_counts() -> None:
    for runs, failures in ((2, 3), (-1, 0), (3, -1)):
        try:
            thaw_runs_required(runs, failures)
        except ValueError as error:
            assert "failures <= runs" in str(error)
        else:
            raise AssertionError(f"accepted runs={runs}, failures={failures}")


def test_frozen_fraction_exceeded() -> None:
    assert not frozen_fraction_exceeded(5, 100)
    assert frozen_fraction_exceeded(6, 100)
    assert not frozen_fraction_exceeded(7, 100, 0.07)
    assert not frozen_fraction_exceeded(0, 0)
    assert frozen_fraction_exceeded(1, 0)
    assert not frozen_fraction_exceeded(1, 20)
    assert frozen_fraction_exceeded(1, 19)


def test_check_maps_problems_to_findings() -> None:
    base = text_of(freeze_obj(owner="@base-owner"))
    head = text_of(freeze_obj(owner="@edited"), "not an event", renew_obj(runs=-1))
    findings = check(base, head, PATH, date(2024, 5, 15), default_owner="@freeze")
    assert [(f.rule, f.line, f.owner, f.message) for f in findings] == [
        ("PG402", 1, "@base-owner", "base line 1 was edited"),
        ("PG401", 2, "@freeze", "not a JSON object (got a string)"),
        ("PG401", 3, "@io-team", "field 'runs' must be a whole number >= 0, not -1"),
    ]
    assert findings[0].nodeid == NODE
    assert {(f.step, f.severity, f.path, f.plane) for f in findings} == {
        (Step.LEDGER, Severity.ERROR, PATH, "freeze")
    }


def test_check_reports_replays_due_and_future_dates() -> None:
    head = text_of(freeze_obj(), freeze_obj(nodeid=OTHER, frozen_at="2024-07-01", review_by=None))
    findings = check(head, head, PATH, date(2024, 6, 3), default_owner="@freeze")
    assert [(f.rule, f.line, f.owner, f.nodeid, f.message) for f in findings] == [
        (
            "PG403",
            1,
            "@io-team",
            NODE,
            f"replay due for '{NODE}': review_by 2024-06-01 passed 2 days ago; thaw it or renew "
            "it with new evidence",
        ),
        ("PG401", 2, "@io-team", OTHER, "frozen_at 2024-07-01 is after today (2024-06-03)"),
    ]


def test_check_without_ledgers_and_deleted_ledger() -> None:
    assert check(None, None, PATH, date(2024, 1, 1), default_owner="@freeze") == []
    base = text_of(freeze_obj(review_by=None))
    deleted = check(base, None, PATH, date(2024, 6, 1), default_owner="@freeze")
    assert [(f.rule, f.line, f.owner, f.message) for f in deleted] == [
        ("PG402", 1, "@io-team", "base line 1 was deleted")
    ]
    added = check(None, base, PATH, date(2024, 6, 1), default_owner="@freeze")
    assert added == []


def test_check_too_many_frozen() -> None:
    head = text_of(freeze_obj(review_by=None))
    ok = check(None, head, PATH, date(2024, 6, 1), default_owner="@f", suite_size=20)
    assert ok == []
    over = check(None, head, PATH, date(2024, 6, 1), default_owner="@f", suite_size=19)
    assert [(f.rule, f.line, f.owner, f.message) for f in over] == [
        ("PG404", None, "@f", "1 of 19 tests are frozen, more than 5 % of the suite")
    ]
    assert RULES["PG404"].step is Step.LEDGER


def test_check_file(tmp_path: Path) -> None:
    good = tmp_path / "freeze_ledger.jsonl"
    good.write_text(text_of(freeze_obj()), "utf-8")
    assert check_file(good, date(2024, 7, 1)) == []
    assert [str(p) for p in check_file(good, date(2024, 4, 1))] == [
        f"{good}:1: frozen_at 2024-05-01 is after today (2024-04-01)"
    ]
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(text_of(freeze_obj()).encode() + b'{"note": "\xff"}\n')
    assert [str(p) for p in check_file(bad, date(2024, 7, 1))] == [
        f"{bad}:2: not UTF-8 text",
        f"{bad}:2: missing 'event' (one of freeze, renew, thaw)",
    ]
    missing = tmp_path / "absent.jsonl"
    assert [str(p) for p in check_file(missing, date(2024, 7, 1))] == [f"{missing}: no such file"]


def test_new_freeze_event_computes_the_thaw_window() -> None:
    event = new_freeze()
    assert isinstance(event, FreezeEvent)
    assert event.thaw_runs_required == thaw_runs_required(10, 2) == 20
    line = render_event(event)
    assert list(json.loads(line)) == sorted(json.loads(line))
    assert json.loads(line)["event"] == "freeze"
    assert json.loads(line)["review_by"] == "2024-08-01"


def test_new_freeze_event_reports_errors_as_values() -> None:
    assert new_freeze(flake_class="unknown") == EventErrors(
        ("field 'flake_class' must be one of timing, order, network, rng, env, not \"unknown\"",)
    )
    assert new_freeze(failures=11) == EventErrors(
        ("failures (11) must be between 0 and runs (10)",)
    )


def test_append_event_refuses_an_invalid_ledger_line() -> None:
    event = new_freeze()
    assert isinstance(event, FreezeEvent)
    once = append_event(text_of(freeze_obj(nodeid=OTHER)).rstrip("\n"), event, PATH)
    assert isinstance(once, str)
    assert parse(once, PATH).ok
    assert append_only(text_of(freeze_obj(nodeid=OTHER)), once, PATH) == []
    twice = append_event(once, event, PATH)
    assert isinstance(twice, list)
    assert [str(p) for p in twice] == [
        f"{PATH}:3: duplicate freeze of '{NODE}', frozen since line 2; append a renew instead"
    ]


def test_replay_outcome_event() -> None:
    state = parse(text_of(freeze_obj()), PATH).state()[NODE]
    common: dict[str, Any] = {
        "at": "2024-06-05",
        "owner": "@io-team",
        "note": "replayed",
        "base_commit": COMMIT,
        "env_fingerprint": FINGERPRINT,
        "test_source_hash": digest("source"),
    }
    renew = replay_outcome_event(
        state,
        **common,
        runs=7,
        failures=1,
        evidence_hash=digest("replay-1"),
        failure_signature="ConnectionRefusedError",
    )
    assert isinstance(renew, RenewEvent)
    assert (renew.mode, renew.thaw_runs_required, renew.review_by) == ("shuffle", 20, None)
    thaw = replay_outcome_event(
        state, **common, runs=20, failures=0, evidence_hash=digest("replay-2")
    )
    assert isinstance(thaw, ThawEvent)
    assert parse(text_of(freeze_obj()) + render_event(thaw) + "\n", PATH).state() == {}
    short = replay_outcome_event(
        state, **common, runs=19, failures=0, evidence_hash=digest("replay-3")
    )
    assert short == EventErrors(("19 clean runs is fewer than the 20 a thaw needs",))
    unsigned = replay_outcome_event(
        state, **common, runs=5, failures=2, evidence_hash=digest("replay-4")
    )
    assert unsigned == EventErrors(("renew event is missing required field: failure_signature",))


def test_evidence_hash_is_sha256() -> None:
    assert evidence_hash(b"") == (
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    )
    assert evidence_hash(b'{"runs": 3}') == hashlib.sha256(b'{"runs": 3}').hexdigest()


def test_the_docs_list_every_field() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "ledger.md").read_text("utf-8")
    for kind in EVENT_KINDS:
        for name in (*required_fields(kind), *optional_fields(kind)):
            assert f"`{name}`" in doc
    for example in (line for line in doc.splitlines() if line.startswith('{"')):
        assert isinstance(event_from_object(json.loads(example)), get_args(LedgerEvent))
