"""The action's modes (gate, digest, sweep, report), one module each, behind `registry.MODES`.

Each mode has a run phase, which may run the project's code and never holds the token, and a
judge phase, which never runs it; `base.Mode` is their shape."""
