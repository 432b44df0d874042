"""What main's digest says of main's source, as properties: it survives the digest format, and
the gate's check of it against git's source finds a difference exactly when there is one."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from planegate.collectable import KINDS_OF_TESTS
from planegate.gate.source_facts import differences
from planegate.repo import digest_format
from planegate.repo.digest_format import Digest, MainSource

PATH = st.text(st.characters(codec="utf-8"), min_size=1, max_size=20)
PATHS = st.lists(PATH, unique=True, max_size=5).map(sorted).map(tuple)
FUNCTIONS = st.lists(
    st.tuples(st.text(min_size=1, max_size=12), st.sampled_from(KINDS_OF_TESTS)), max_size=4
).map(tuple)
SOURCES = st.builds(
    MainSource,
    imported=PATHS,
    shipped=PATHS,
    tests=st.dictionaries(PATH, FUNCTIONS, max_size=4),
)


@given(source=st.none() | SOURCES)
def test_mains_source_survives_the_digest_format(source: MainSource | None) -> None:
    digest = Digest("a" * 40, {"planegate.yml": "b" * 64}, {}, None, source)
    assert digest_format.from_json(digest_format.to_json(digest), "d.json") == digest


@given(claimed=SOURCES, actual=SOURCES)
def test_the_check_finds_a_difference_exactly_when_there_is_one(
    claimed: MainSource, actual: MainSource
) -> None:
    found = differences(claimed, actual, "c" * 40, "owner")
    assert (found == ()) == (claimed == actual)
    assert all(f.rule == "PG303" and f.severity.value == "error" for f in found)
    assert differences(actual, actual, "c" * 40, "owner") == ()
