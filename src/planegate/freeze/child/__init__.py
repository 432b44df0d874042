"""The sweep's side inside the untrusted test child (fenced like `runner/child/`)."""
