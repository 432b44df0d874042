"""Whether the head's scoring run asks for a spare child for the fixture probe's session:
the same answer the probe's own filter gives on main's candidates."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from planegate.probes.fixture.plan import Candidate, already_whole, session_likely
from planegate.repo.digest_format import RecordedSigns

NODEIDS = st.sampled_from([f"tests/test_d.py::test_{n}" for n in range(6)])
FILES = st.tuples(st.sampled_from(["data/a.json", "data/b.bin"]))


@given(st.dictionaries(NODEIDS, FILES), st.sets(NODEIDS))
def test_a_session_is_likely_exactly_when_main_probe_leaves_a_candidate_to_run(
    probed: dict[str, tuple[str, ...]], whole: set[str]
) -> None:
    main = RecordedSigns(probed=probed, whole=tuple(sorted(whole & set(probed))))
    # the head's run of main's test files: main's candidates (its probe ran every one)
    on_head = [Candidate(nodeid, files) for nodeid, files in probed.items()]
    left, _known = already_whole(on_head, main.probed, main.whole)
    assert session_likely(main, failed_on_main=False) == bool(left)
