"""git's `--name-status -z` output: every list of changes written by git's rules reads back."""

from __future__ import annotations

import os

from hypothesis import given
from hypothesis import strategies as st

from planegate.repo.gitdiff import Change, parse_name_status, touched

NAMES = st.text(
    st.characters(blacklist_characters="\0", blacklist_categories=["Cs"]), min_size=1
).filter(lambda name: "/" not in name[-1:])
CHANGES = st.lists(
    st.one_of(
        st.builds(Change, NAMES, st.sampled_from("AMDT")),
        st.builds(lambda new, old: Change(new, "R", old), NAMES, NAMES),
    ),
    max_size=8,
)


def written(changes: list[Change]) -> bytes:
    fields: list[bytes] = []
    for change in changes:
        if change.old_path is None:
            fields += [change.status.encode(), os.fsencode(change.path)]
        else:
            fields += [b"R087", os.fsencode(change.old_path), os.fsencode(change.path)]
    return b"".join(field + b"\0" for field in fields)


@given(CHANGES)
def test_name_status_reads_back_what_git_writes(changes: list[Change]) -> None:
    assert parse_name_status(written(changes)) == changes


@given(CHANGES)
def test_touched_names_both_sides_of_a_rename(changes: list[Change]) -> None:
    names = touched(changes)
    assert all(change.path in names for change in changes)
    assert all(change.old_path in names for change in changes if change.old_path)
