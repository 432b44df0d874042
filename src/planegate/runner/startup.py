"""pytest's own refusals: a run that stopped before collecting anything, and why."""

from __future__ import annotations

from planegate.runner.session import RunResult

USAGE_ERROR = 4  # pytest.ExitCode.USAGE_ERROR: bad arguments or ini, a conftest that fails
MAX_MESSAGE = 600


def refusal(result: RunResult) -> str | None:
    """pytest's message when it refused to start (usage error, nothing collected), else None."""
    if result.timed_out or result.exit_status != USAGE_ERROR or result.collected:
        return None
    return pytest_message(result.output) or f"pytest exited {USAGE_ERROR} (usage error)"


def pytest_message(output: str) -> str:
    """The lines pytest prints for an error (`ERROR: ...`, `...: error: ...`), the exception
    of an internal error (its last `INTERNALERROR>` line), else the last line."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("ERROR") or ": error:" in line]
    internal = [line for line in lines if line.startswith("INTERNALERROR>")]
    if internal:
        errors.append("INTERNALERROR: " + internal[-1].removeprefix("INTERNALERROR>").strip())
    text = " | ".join(errors) if errors else (lines[-1] if lines else "")
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 3] + "..."


def interrupted_by_collection(result: RunResult) -> bool:
    """pytest collected with errors and stopped before running (its `Interrupted`)."""
    return bool(result.collect_errors) and not result.timed_out and result.exit_status == 2
