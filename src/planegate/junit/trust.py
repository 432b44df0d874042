"""What a `runner: junit` verdict rests on, said plainly (docs/planes.md, "Suites that are not
pytest"): the outcomes are what an uninstrumented process wrote to its JUnit XML."""

from __future__ import annotations

# defences that hold whatever runs the suite: they read git, the configuration, the ledger
# and the XML, or contain the process from outside
APPLY = ("overlay", "protection", "manifest", "ledger", "sweep", "hunks", "sandbox")
# defences that live inside pytest's process, so a foreign runner has none of them
ABSENT = ("audit hook", "integrity checks", "answer probes", "sampled canaries")


def trust_line(runner: str) -> str:
    """The report's first line for a suite pytest does not run; "" for pytest's own."""
    if runner != "junit":
        return ""
    return (
        "trust: runner junit — results come from a process planegate does not instrument, so "
        "tampering inside it is not detected; applies: "
        + ", ".join(APPLY)
        + "; does not apply: "
        + ", ".join(ABSENT)
    )
