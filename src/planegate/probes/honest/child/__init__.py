"""The honest-values plugin, imported inside the test child (stdlib, pytest, pluggy,
Hypothesis and other `child/` modules only)."""
