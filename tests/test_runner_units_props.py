"""Properties of runner_units (frozen seed)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from planegate.runner import fixture_probe as probe


@given(st.binary(max_size=64))
def test_perturb_changes_exactly_one_byte_or_grows_an_empty_file(data: bytes) -> None:
    changed = probe.perturb(data)
    if not data:
        assert changed == b"x"
        return
    assert len(changed) == len(data)
    assert sum(a != b for a, b in zip(data, changed, strict=True)) == 1
