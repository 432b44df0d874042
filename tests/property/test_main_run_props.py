"""Main's run in the digest, as properties: it survives the digest format and is used only
where it ran."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from planegate.gate import main_run
from planegate.repo import digest_format
from planegate.repo.digest_format import Digest, MainRun, RecordedSigns

# --------------------------------------------------------------------------- the pure core

NODEID = st.text(st.characters(codec="utf-8"), min_size=1, max_size=30)
PATHS = st.lists(st.text(min_size=1, max_size=12), max_size=3).map(tuple)
SORTED_IDS = st.lists(NODEID, unique=True, max_size=4).map(sorted).map(tuple)
SIGNS = st.builds(
    RecordedSigns,
    prod_reads=st.dictionaries(NODEID, PATHS, max_size=4),
    harness=st.lists(
        st.tuples(st.text(max_size=20), st.text(max_size=9), st.integers(0, 10**6)),
        unique=True,
        max_size=3,
    )
    .map(sorted)
    .map(tuple),
    probed=st.dictionaries(NODEID, PATHS, max_size=4),
    survivors=SORTED_IDS,
    whole=SORTED_IDS,
)
RUNS = st.builds(
    MainRun,
    environment=st.dictionaries(st.sampled_from(["python", "platform", "x"]), st.text(max_size=9)),
    not_passed=st.dictionaries(
        NODEID,
        st.tuples(st.sampled_from(["failed", "error", "skipped", "xfailed"]), st.text(max_size=40)),
        max_size=8,
    ),
    file_seconds=st.dictionaries(
        NODEID, st.floats(min_value=0, max_value=1e6, allow_nan=False), max_size=4
    ),
    signs=st.none() | SIGNS,
    lies=st.none()
    | st.lists(
        st.tuples(NODEID, st.text(max_size=12), st.integers(-1, 9), st.text(max_size=9), NODEID),
        unique=True,
        max_size=4,
    )
    .map(sorted)
    .map(tuple),
)


@given(run=st.none() | RUNS)
def test_main_run_survives_the_digest_format(run: MainRun | None) -> None:
    digest = Digest("a" * 40, {"planegate.yml": "b" * 64}, {"fixture": ("t.py::x",)}, run)
    assert digest_format.from_json(digest_format.to_json(digest), "d.json") == digest


@given(run=RUNS, here=st.dictionaries(st.sampled_from(["python", "platform"]), st.text()))
def test_main_run_is_used_only_where_it_ran(run: MainRun, here: dict[str, str]) -> None:
    used, why = main_run.usable(run, here)
    assert (used is run) == (dict(run.environment) == here)
    assert bool(why) == (used is None)
