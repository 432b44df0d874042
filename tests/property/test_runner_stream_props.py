"""The result stream closes at its first `end`; one stream per run; a report counts once; the
pipe's lines come back whole however the writes cut them."""

from __future__ import annotations

import json
import os
import threading

from hypothesis import given
from hypothesis import strategies as st

from planegate.runner.stream import Fold, Tamper, lines_of

NONCE = "n0nce"
NODEIDS = st.lists(st.from_regex(r"tests/test_[a-z]{1,6}\.py::test_[a-z]{1,6}", fullmatch=True))
KINDS = st.sampled_from(["start", "collected", "selected", "report", "hypothesis", "end"])


def line(kind: str, **fields: object) -> str:
    return json.dumps({"nonce": NONCE, "kind": kind, **fields})


def honest(nodeids: list[str]) -> list[str]:
    unique = list(dict.fromkeys(nodeids))
    lines = [line("start", pid=1), line("collected", nodeids=unique)]
    lines.append(line("selected", nodeids=unique))
    for nodeid in unique:
        for when in ("setup", "call", "teardown"):
            lines.append(line("report", nodeid=nodeid, when=when, outcome="passed"))
    return [*lines, line("end", exitstatus=0)]


def record(kind: str, nodeid: str) -> str:
    if kind in ("collected", "selected"):
        return line(kind, nodeids=[nodeid])
    if kind == "report":
        return line(kind, nodeid=nodeid, when="call", outcome="passed")
    if kind == "hypothesis":
        return line(kind, nodeid=nodeid, max_examples=1)
    return line(kind)


def fold(lines: list[str]) -> Fold:
    result = Fold(NONCE)
    for text in lines:
        result.feed(text)
    return result


@given(NODEIDS)
def test_an_honest_stream_has_no_tampering(nodeids: list[str]) -> None:
    result = fold(honest(nodeids))
    assert result.ended and result.tampering() == ()


@given(NODEIDS, st.lists(st.tuples(KINDS, st.text(max_size=20)), min_size=1))
def test_every_record_after_the_end_is_counted_and_changes_nothing(
    nodeids: list[str], extra: list[tuple[str, str]]
) -> None:
    clean = fold(honest(nodeids))
    result = fold(honest(nodeids) + [record(kind, nodeid) for kind, nodeid in extra])
    assert result.tampering() == (
        Tamper(f"{len(extra)} records after the stream's closing record"),
    )
    assert (result.collected, result.selected, result.phases) == (
        clean.collected,
        clean.selected,
        clean.phases,
    )


@given(NODEIDS, st.text(min_size=1, max_size=30))
def test_lines_without_the_nonce_are_stray_not_tampering(nodeids: list[str], text: str) -> None:
    forged = json.dumps({"nonce": "guess", "kind": "end", "note": text})
    result = fold([*honest(nodeids)[:-1], forged, text])
    assert result.stray == 2 and not result.ended and result.tampering() == ()


@given(NODEIDS.filter(bool), st.sampled_from(["passed", "failed", "skipped"]))
def test_a_second_report_of_a_phase_is_tampering_and_the_first_stands(
    nodeids: list[str], outcome: str
) -> None:
    lines = honest(nodeids)
    nodeid = json.loads(lines[1])["nodeids"][0]
    second = line("report", nodeid=nodeid, when="call", outcome=outcome)
    result = fold([*lines[:-1], second, lines[-1]])
    assert Tamper(f"a second call report for {nodeid}") in result.tampering()
    assert result.phases[nodeid]["call"]["outcome"] == "passed"


@given(NODEIDS, st.sampled_from(["start", "collected", "selected"]))
def test_a_second_stream_in_the_same_run_is_tampering(nodeids: list[str], kind: str) -> None:
    lines = honest(nodeids)
    result = fold([*lines[:-1], record(kind, "tests/test_x.py::test_x"), lines[-1]])
    assert result.tampering(), kind


@given(st.lists(st.tuples(st.text(max_size=30), st.text(max_size=10)), max_size=30))
def test_tamper_records_are_kept_in_order_once_each(records: list[tuple[str, str]]) -> None:
    lines = [line("tamper", event=event, path=path, line=3) for event, path in records]
    lines += [line("end"), line("tamper", event="late")]
    result = fold(lines)
    expected = list(dict.fromkeys(Tamper(event, path, 3) for event, path in records))
    assert list(result.tampering())[: len(expected)] == expected
    assert result.tampering()[-1] == Tamper("1 records after the stream's closing record")


@given(
    NODEIDS,
    st.sampled_from(["imports", "repeat"]),
    st.dictionaries(st.text(max_size=10), st.text(max_size=10), max_size=3),
)
def test_a_companion_record_counts_once_and_the_first_stands(
    nodeids: list[str], kind: str, fields: dict[str, str]
) -> None:
    lines = honest(nodeids)
    first, second = line(kind, modules={"a": "a.py"}), line(kind, modules=fields)
    result = fold([*lines[:-1], first, second, lines[-1]])
    assert result.extra == {kind: {"modules": {"a": "a.py"}}}
    assert result.tampering() == (Tamper(f"the stream sent its {kind} record twice"),)


@given(
    lines=st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")), max_size=30),
    cuts=st.lists(st.integers(1, 50), max_size=20),
    closed=st.booleans(),
)
def test_the_pipe_reader_gives_back_every_line_whole(
    lines: list[bytes], cuts: list[int], closed: bool
) -> None:
    data = b"\n".join(lines) + (b"\n" if closed and lines else b"")
    read_fd, write_fd = os.pipe()

    def write() -> None:  # the child's writes, cut anywhere
        rest = data
        for cut in [*cuts, len(data) + 1]:
            if rest:
                os.write(write_fd, rest[:cut])
                rest = rest[cut:]
        os.close(write_fd)

    writer = threading.Thread(target=write)
    writer.start()
    got = list(lines_of(read_fd, pause=0.0))
    writer.join()
    os.close(read_fd)
    expected = data.split(b"\n")
    if expected and expected[-1] == b"":
        expected.pop()
    assert got == expected
