"""git output that does not parse, or a diff that leaves out a changed path, stops the gate."""

from __future__ import annotations

import pytest

from planegate.errors import ServiceUnavailable
from planegate.repo.gitdiff import Change, cross_check, parse_name_status


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"M\0a.py", "does not end with a NUL"),
        (b"M\0", "has no path"),
        (b"R100\0old.py\0", "has no path"),
        (b"Q\0a.py\0", "unknown status"),
        (b"M\0a.py\0\0", "unknown status"),
    ],
)
def test_git_output_that_does_not_parse_stops_the_gate(raw: bytes, reason: str) -> None:
    with pytest.raises(ServiceUnavailable, match=reason) as caught:
        parse_name_status(raw)
    assert caught.value.exit_code == 69


def test_a_diff_that_leaves_out_a_changed_path_stops_the_gate() -> None:
    with pytest.raises(ServiceUnavailable, match="1 changed paths left out") as caught:
        cross_check([Change("a.py", "M")], {"a.py", "b\n.py"})
    assert "'b\\n.py'" in caught.value.message
    cross_check([Change("new.py", "R", "old.py")], {"old.py", "new.py"})  # agrees: no error
