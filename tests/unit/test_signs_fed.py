"""What fed a harness change main shows too: the file defining it and what production code
read with it on the stack (signs/compare.py `fed_by_patch`), and the `via` of a reads record."""

from __future__ import annotations

import json

from planegate.runner.stream import Fold
from planegate.runner.traced import Reads
from planegate.signs.compare import fed_by_patch

READS = {
    "calc/aliases.py": Reads(
        prod=("calc/aliases.txt",), via={"calc/aliases.txt": ("calc/aliases.py",)}
    ),
    "tests/t.py::test_a": Reads(
        test=("tests/data/x.txt",),
        prod=("calc/aliases.txt", "calc/other.json"),
        via={
            "calc/aliases.txt": ("calc/aliases.py", "calc/core.py"),
            "calc/other.json": ("calc/core.py",),
        },
    ),
}


def test_a_changed_file_the_code_read_feeds_it_and_others_do_not() -> None:
    assert fed_by_patch("calc/aliases.py", READS, ["calc/aliases.txt"]) == ("calc/aliases.txt",)
    assert fed_by_patch("calc/aliases.py", READS, ["calc/aliases.py"]) == ("calc/aliases.py",)
    assert fed_by_patch("calc/aliases.py", READS, ["calc/other.json", "calc/core.py"]) == ()
    assert fed_by_patch("site/six.py", READS, ["calc/aliases.txt"]) == ()


def test_reads_records_carry_their_callers_and_older_ones_none() -> None:
    fold = Fold("n")
    base = {"kind": "reads", "nonce": "n", "nodeid": "k", "test": [], "prod": ["a.txt"]}
    fold.feed(json.dumps({**base, "via": {"a.txt": ["calc/x.py"]}}))
    fold.feed(json.dumps({**base, "prod": ["b.txt"], "via": {"a.txt": ["calc/y.py"]}}))
    fold.feed(json.dumps({**base, "nodeid": "old", "prod": ["c.txt"]}))
    # (test side, production, what production started, production reads' callers)
    assert fold.reads["k"] == ((), ("a.txt", "b.txt"), (), {"a.txt": ("calc/x.py", "calc/y.py")})
    assert fold.reads["old"] == ((), ("c.txt",), (), {})
