"""The job summary (GITHUB_STEP_SUMMARY) and step outputs (GITHUB_OUTPUT)."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from pathlib import Path

from planegate.report.markdown import JOB_SUMMARY_LIMIT


def output_block(name: str, value: str) -> str:
    """`name<<DELIMITER` … `DELIMITER`: safe for any value, multiline included."""
    delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
    while delimiter in value:
        delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
    return f"{name}<<{delimiter}\n{value}\n{delimiter}\n"


def write_outputs(path: str | None, outputs: Mapping[str, str]) -> str | None:
    """Append every output; returns a problem instead of raising."""
    if not path:
        return "GITHUB_OUTPUT is not set: step outputs were not written"
    try:
        with Path(path).open("a", encoding="utf-8") as handle:
            handle.write("".join(output_block(k, v) for k, v in outputs.items()))
    except OSError as error:
        return f"writing step outputs to {path} failed: {error.strerror}"
    return None


def write_job_summary(path: str | None, markdown: str) -> str | None:
    if not path:
        return "GITHUB_STEP_SUMMARY is not set: no job summary was written"
    data = markdown.encode("utf-8")
    if len(data) > JOB_SUMMARY_LIMIT:
        data = data[:JOB_SUMMARY_LIMIT].decode("utf-8", errors="ignore").encode("utf-8")
    try:
        with Path(path).open("ab") as handle:
            handle.write(data)
    except OSError as error:
        return f"writing the job summary to {path} failed: {error.strerror}"
    return None
