"""The token count that decides whether source is parsed agrees with a plain count."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from planegate import sourcesize


@given(st.text(max_size=300), st.integers(min_value=0, max_value=120))
def test_tokens_over_agrees_with_counting_every_token(text: str, limit: int) -> None:
    count = len(re.findall(r"\w+|[^\s\w]", text))
    assert sourcesize.tokens_over(text, limit) == (count > limit)


@given(st.text(max_size=300))
def test_parse_never_raises(text: str) -> None:
    tree = sourcesize.parse(text)
    assert tree is None or tree.body is not None
