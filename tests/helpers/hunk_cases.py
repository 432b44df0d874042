"""Before/after pairs of a test file that skip its test, one per way of skipping, for the hunk
analysis's rule tests and its batch tests."""

from __future__ import annotations

import textwrap

BASE_TOTAL = textwrap.dedent(
    """\
    import pytest
    from calc import total

    def test_total():
        result = total([1, 2])
        assert result == 3
        assert result > 0
"""
)

SKIP_CASES = {
    "decorator": (
        BASE_TOTAL,
        """\
        import pytest
        from calc import total

        @pytest.mark.skip(reason="later")
        def test_total():
            result = total([1, 2])
            assert result == 3
            assert result > 0
        """,
        "test_total: @pytest.mark.skip added",
    ),
    "mark through a variable": (
        BASE_TOTAL,
        """\
        import pytest
        from calc import total

        not_now = pytest.mark.xfail(strict=False)

        @not_now
        def test_total():
            result = total([1, 2])
            assert result == 3
            assert result > 0
        """,
        "test_total: @pytest.mark.xfail added",
    ),
    "skip call": (
        BASE_TOTAL,
        """\
        import pytest
        from calc import total

        def test_total():
            pytest.skip("broken on this branch")
            result = total([1, 2])
            assert result == 3
            assert result > 0
        """,
        "test_total: pytest.skip() added",
    ),
    "importorskip": (
        BASE_TOTAL,
        """\
        import pytest
        from calc import total

        def test_total():
            pytest.importorskip("numpy")
            result = total([1, 2])
            assert result == 3
            assert result > 0
        """,
        "test_total: pytest.importorskip() added",
    ),
    "pytestmark": (
        BASE_TOTAL,
        """\
        import pytest
        from calc import total

        pytestmark = [pytest.mark.skipif(True, reason="slow")]

        def test_total():
            result = total([1, 2])
            assert result == 3
            assert result > 0
        """,
        "module: pytestmark = pytest.mark.skipif added",
    ),
    "applymarker": (
        BASE_TOTAL.replace("def test_total():", "def test_total(request):"),
        """\
        import pytest
        from calc import total

        def test_total(request):
            request.applymarker(pytest.mark.xfail)
            result = total([1, 2])
            assert result == 3
            assert result > 0
        """,
        "test_total: applymarker(pytest.mark.xfail) added",
    ),
    "pytest.param marks": (
        """\
        import pytest

        @pytest.mark.parametrize("n", [1, 2])
        def test_even(n):
            assert n * 2 % 2 == 0
        """,
        """\
        import pytest

        @pytest.mark.parametrize("n", [1, pytest.param(2, marks=pytest.mark.xfail)])
        def test_even(n):
            assert n * 2 % 2 == 0
        """,
        "test_even: pytest.param(marks=pytest.mark.xfail) added",
    ),
    "unittest skipTest": (
        """\
        import unittest

        class TotalTests(unittest.TestCase):
            def test_total(self):
                self.assertEqual(sum([1, 2]), 3)
        """,
        """\
        import unittest

        class TotalTests(unittest.TestCase):
            def test_total(self):
                self.skipTest("later")
                self.assertEqual(sum([1, 2]), 3)
        """,
        "TotalTests::test_total: self.skipTest() added",
    ),
}
