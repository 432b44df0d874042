"""A large batch's hunk analysis in worker processes gives the findings of the inline one."""

from __future__ import annotations

import textwrap

from helpers.hunk_cases import SKIP_CASES
from planegate.analysis.hunks.analyze import analyze_file
from planegate.analysis.hunks.batch import FileChange, analyze_files

HONEST_HEAD = textwrap.dedent(
    """\
    import pytest
    from calc import total

    def test_total():
        result = total([1, 2])
        assert result == 3
        assert result > 0
        assert result < 4
    """
)


def _changes(copies: int) -> list[FileChange]:
    pairs = [
        (textwrap.dedent(base), textwrap.dedent(head)) for base, head, _ in SKIP_CASES.values()
    ]
    pairs.append((pairs[0][0], HONEST_HEAD))
    return [
        FileChange(
            f"tests/test_batch_{number}_{index}.py",
            base,
            head,
            plane="fixture",
            owner="@calc-owners",
            fixture_plane=True,
        )
        for number in range(copies)
        for index, (base, head) in enumerate(pairs)
    ]


def _one_by_one(changes: list[FileChange]) -> list[str]:
    return [
        f"{finding.path}:{finding.line}:{finding.rule}"
        for change in changes
        for finding in analyze_file(
            change.path,
            change.base,
            change.head,
            plane=change.plane,
            owner=change.owner,
            fixture_plane=change.fixture_plane,
        )
    ]


def test_pool_gives_the_same_findings_in_the_same_file_order() -> None:
    changes = _changes(copies=6)
    pooled = analyze_files(changes, workers=2, pool_from=1)
    listed = [f"{finding.path}:{finding.line}:{finding.rule}" for finding in pooled]
    assert listed == _one_by_one(changes)
    skipped_files = {
        finding.path for finding in pooled if finding.rule == "PG501" and finding.path is not None
    }
    assert len(skipped_files) == 6 * len(SKIP_CASES)
    assert not any("test_batch_0_" + str(len(SKIP_CASES)) in path for path in skipped_files)


def test_small_batches_run_inline_with_the_same_result() -> None:
    changes = _changes(copies=1)
    inline = analyze_files(changes, workers=2)
    assert inline == analyze_files(changes, workers=2, pool_from=1)
    assert [f"{f.path}:{f.line}:{f.rule}" for f in inline] == _one_by_one(changes)
