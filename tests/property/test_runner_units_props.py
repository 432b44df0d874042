"""Properties of runner_units (frozen seed)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from planegate.probes.fixture import plan as probe


@given(st.binary(max_size=64))
def test_perturb_changes_exactly_one_byte_or_grows_an_empty_file(data: bytes) -> None:
    changed = probe.perturb(data)
    if not data:
        assert changed == b"x"
        return
    assert len(changed) == len(data)
    assert sum(a != b for a, b in zip(data, changed, strict=True)) == 1


@given(st.binary(max_size=20_000), st.sampled_from([b" ", b"\n", b"\x85", b"\xa0", b"a"]))
def test_perturb_changes_the_middle_non_space_byte(data: bytes, filler: bytes) -> None:
    data = data + filler * (len(data) % 7_000)  # runs of space across the chunks too
    visible = [i for i, byte in enumerate(data) if not chr(byte).isspace()]
    index = visible[len(visible) // 2] if visible else len(data) // 2
    changed = probe.perturb(data)
    if not data:
        assert changed == b"x"
        return
    assert [i for i, (a, b) in enumerate(zip(data, changed, strict=True)) if a != b] == [index]


_NAME_CHARS = st.sampled_from(list("abc.-_/ x"))
_PATHS = st.lists(st.text(_NAME_CHARS, min_size=1, max_size=8), max_size=6, unique=True)


@given(_PATHS, st.text(st.sampled_from(list("abc.-_/ x\n'\"(")), max_size=80))
def test_the_name_index_finds_what_a_scan_per_file_finds(paths: list[str], source: str) -> None:
    oracle = tuple(path for path in paths if probe._names(source, path))
    assert probe.NameIndex(tuple(paths)).mentioned(source) == oracle
