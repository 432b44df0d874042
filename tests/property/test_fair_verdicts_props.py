"""Fair verdicts, as properties: the patch is blamed unless main is in the same state, and a
skip's reason does not depend on the tree it ran in."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from planegate.runner.session import Outcome
from planegate.steps.on_base import Verdict, compare, reason

# --------------------------------------------------------------------------- the pure core

KINDS = ["passed", "failed", "error", "skipped", "xfailed", "xpassed", "deselected", "missing"]


@given(st.sampled_from(KINDS), st.sampled_from(KINDS), st.text(max_size=20))
def test_compare_blames_the_patch_unless_main_is_in_the_same_state(
    head: str, base: str, why: str
) -> None:
    verdict = compare(Outcome("t", head, why), Outcome("t", base, why))
    if head in ("failed", "error") and base in ("failed", "error"):
        assert verdict is Verdict.BROKEN
    elif head == base and head not in ("passed", "failed", "error"):
        assert verdict is Verdict.MAIN  # the same text on both sides here
    else:
        assert verdict is Verdict.PATCH
    assert compare(Outcome("t", head, why), None) is Verdict.PATCH


@given(st.text(min_size=1, max_size=30), st.text(max_size=30))
def test_a_skip_reason_does_not_depend_on_the_tree_it_ran_in(first: str, why: str) -> None:
    one = Outcome("t", "skipped", repr((f"/tmp/{first}/t.py", 3, f"Skipped: {why}")))
    two = Outcome("t", "skipped", repr(("/elsewhere/t.py", 3, f"Skipped: {why}")))
    assert reason(one) == reason(two) == f"Skipped: {why}"
    other = Outcome("t", "skipped", repr(("/elsewhere/t.py", 3, f"Skipped: {why}!")))
    assert compare(one, other) is Verdict.PATCH
    assert compare(Outcome("t", "xfailed", "E  one"), Outcome("t", "xfailed", "E  two")) is (
        Verdict.MAIN
    )


FOLDER = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_", min_size=8, max_size=8)


@given(FOLDER, FOLDER, st.text(alphabet="abcdefgh ", min_size=1, max_size=20))
def test_a_subtests_skip_reason_does_not_depend_on_the_tree_it_ran_in(
    one: str, two: str, why: str
) -> None:
    # a subtest's skip: pytest names its place inside the exported tree, twice
    def skipped(folder: str) -> Outcome:
        where = (f"/tmp/tmp{folder}/tree/tests/test_release.py", 258, f"Skipped: {why}")
        return Outcome("t", "skipped", f"E   subtest (backend='auto'): {where!r}\n{where!r}")

    assert compare(skipped(one), skipped(two)) is Verdict.MAIN
    assert "/tmp/" not in reason(skipped(one))
    other = Outcome("t", "skipped", skipped(two).message.replace("Skipped:", "Skipped: no,"))
    assert compare(skipped(one), other) is Verdict.PATCH
