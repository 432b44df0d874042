"""Whether the head's scoring run asks for a spare child for the fixture probe's session."""

from __future__ import annotations

from planegate.probes.fixture.plan import session_likely
from planegate.repo.digest_format import RecordedSigns


def test_without_main_probe_or_with_a_fixture_test_failing_on_main_a_session_is_likely() -> None:
    everything_whole = RecordedSigns(probed={"t.py::a": ("d.json",)}, whole=("t.py::a",))
    assert not session_likely(everything_whole, failed_on_main=False)
    assert session_likely(everything_whole, failed_on_main=True)  # the patch may fix it
    assert session_likely(None, failed_on_main=False)
    assert not session_likely(RecordedSigns(), failed_on_main=False)  # main's probe ran none
    left = RecordedSigns(
        probed={"t.py::a": ("d.json",), "t.py::b": ("d.json",)}, whole=("t.py::a",)
    )
    assert session_likely(left, failed_on_main=False)
