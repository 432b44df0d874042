"""Answers in code: production lines the patch adds that carry what main's scoring tests
expect (static, nothing runs)."""
