"""Properties of the Markdown renderings' cut at GitHub's byte limits."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from planegate.report.markdown import cut_to


@given(st.text(), st.integers(min_value=0, max_value=200))
def test_cut_to_is_the_longest_whole_character_prefix_within_the_bytes(
    text: str, limit: int
) -> None:
    cut = cut_to(text, limit)
    assert text.startswith(cut)
    assert len(cut.encode("utf-8")) <= limit
    if cut != text:
        assert len(text[: len(cut) + 1].encode("utf-8")) > limit
