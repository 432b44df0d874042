"""Shared by the github_workflow_commands tests."""

from __future__ import annotations

from hypothesis import strategies as st

CHARS = ("%", "\r", "\n", ":", ",", "a", "0", "D", "A", "2", "5", "é")


TEXT = st.text(alphabet=st.sampled_from(CHARS)) | st.text()
