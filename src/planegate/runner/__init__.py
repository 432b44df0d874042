"""Running untrusted code: worktree overlay, minimal environment, and a result channel."""
