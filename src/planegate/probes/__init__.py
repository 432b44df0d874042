"""The probes: what the gate does beyond running main's tests to catch a run that only looks
green. One subpackage per kind, each of the same shape (a pure plan, the parent-side run, the
child-side plugins under `child/`, the wire format, the findings); `registry.py` lists them.

This package and each kind's `__init__.py` import nothing of planegate: the test child
imports the `child/` folders, and a package's `__init__` runs first."""
