"""git's environment, as a property: the caller's config entries are kept, planegate's last."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from planegate.repo import gitenv

_keys = st.sampled_from(["safe.directory", "core.hooksPath", "user.name"])


@given(st.lists(st.tuples(_keys, st.text(min_size=1, max_size=5)), max_size=4))
def test_the_callers_git_config_entries_are_kept_and_ours_come_last(
    entries: list[tuple[str, str]],
) -> None:
    environ = {"GIT_CONFIG_COUNT": str(len(entries))}
    for index, (key, value) in enumerate(entries):
        environ[f"GIT_CONFIG_KEY_{index}"] = key
        environ[f"GIT_CONFIG_VALUE_{index}"] = value
    merged = {**environ, **gitenv.hardened(environ)}
    count = int(merged["GIT_CONFIG_COUNT"])
    pairs = [(merged[f"GIT_CONFIG_KEY_{i}"], merged[f"GIT_CONFIG_VALUE_{i}"]) for i in range(count)]
    assert pairs == [*entries, *gitenv.CONFIG]
    assert merged["GIT_NO_REPLACE_OBJECTS"] == "1"
    assert merged["GIT_CONFIG_GLOBAL"] == "/dev/null"
