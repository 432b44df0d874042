"""Shared by the lint tests."""

from __future__ import annotations

from hypothesis import strategies as st

IDENT = st.from_regex(r"[a-z]{1,8}", fullmatch=True).filter(
    lambda s: (
        s not in {"random", "time", "socket", "np", "datetime", "requests", "if", "in"}
        and s not in {"is", "or", "and", "not", "for", "def", "del", "as", "try", "with"}
    )
)


STATEMENTS = st.one_of(
    st.builds(lambda n, seed: f"{n} = random.Random({seed}).random()", IDENT, st.integers(0, 99)),
    st.builds(lambda n, seed: f"{n} = np.random.default_rng({seed})", IDENT, st.integers(0, 99)),
    st.builds(lambda n, k: f"{n} = {k} * 2 + 1", IDENT, st.integers()),
    st.builds(lambda n: f"assert {n} == {n}", IDENT),
    st.builds(lambda n: f"{n} = time.perf_counter()", IDENT),
    st.builds(lambda n: f"{n} = quote('a b')", IDENT),
)


HEADER = (
    "import random\nimport time\nfrom urllib.parse import quote\n\nimport numpy as np\n"
    "from hypothesis import given, strategies as st\n\n\n@given(st.integers())\n"
    "def test_generated(value):\n"
)
