"""Everything imported inside the untrusted test child (fenced: it imports only the standard
library, pytest, pluggy, Hypothesis and other `child/` folders;
tests/integration/test_child_fence.py)."""
