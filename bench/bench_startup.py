"""Start-up of `planegate --version`, each run in a fresh process, against `python -c pass`.

Times, alternating and best of --runs (after one untimed warm-up run each, so bytecode is
written): `python -c pass` (the baseline: the interpreter's own start-up), `python -m
planegate --version` and the `planegate` console script installed beside this interpreter.
Prints each one's best and median wall time and CPU time (user + system of the process), the
difference from the baseline, and the goal: `planegate --version` in <= 150 ms (best wall
time; its CPU time against the same figure is printed too, as it moves less with the load).
Then prints the 10 imports with the largest cumulative time under `python -X importtime -m
planegate --version`, so a regression names the import that caused it.
Usage: python bench/bench_startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

GOAL_SECONDS = 0.150


@dataclass(frozen=True)
class Sample:
    wall: float
    cpu: float


@dataclass(frozen=True)
class Import:
    self_us: int
    cumulative_us: int
    name: str  # indented by nesting depth, as -X importtime prints it


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(command: list[str]) -> Sample:
    cpu, wall = _children_cpu(), time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=_environment())
    return Sample(time.perf_counter() - wall, _children_cpu() - cpu)


def _environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}


def parse_importtime(text: str) -> list[Import]:
    """The `import time: self | cumulative | name` lines of `-X importtime`'s stderr."""
    found = []
    for line in text.splitlines():
        if not line.startswith("import time:"):
            continue
        fields = line.removeprefix("import time:").split("|")
        if len(fields) != 3 or not fields[0].strip().isdigit():
            continue  # the header line
        found.append(Import(int(fields[0]), int(fields[1]), fields[2].rstrip()))
    return found


def top_imports(imports: list[Import], count: int = 10) -> list[Import]:
    return sorted(imports, key=lambda item: item.cumulative_us, reverse=True)[:count]


def _line(label: str, samples: list[Sample], baseline: list[Sample] | None) -> str:
    best = min(s.wall for s in samples)
    median = statistics.median(s.wall for s in samples)
    cpu = min(s.cpu for s in samples)
    text = (
        f"{label:<36} best {best * 1000:6.1f} ms, median {median * 1000:6.1f} ms, "
        f"CPU {cpu * 1000:6.1f} ms"
    )
    if baseline is not None:
        base_best = min(s.wall for s in baseline)
        base_cpu = min(s.cpu for s in baseline)
        text += (
            f"; over the baseline +{(best - base_best) * 1000:.1f} ms wall, "
            f"+{(cpu - base_cpu) * 1000:.1f} ms CPU"
        )
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args(argv)
    script = Path(sys.executable).with_name("planegate")
    commands = {
        "python -c pass (baseline)": [sys.executable, "-c", "pass"],
        "python -m planegate --version": [sys.executable, "-m", "planegate", "--version"],
    }
    if script.is_file():
        commands["planegate --version (console script)"] = [str(script), "--version"]
    else:
        print(f"no console script at {script}: timing `python -m planegate` only")
    samples: dict[str, list[Sample]] = {label: [] for label in commands}
    for command in commands.values():
        run_once(command)  # warm-up: bytecode written, files in the page cache
    for _ in range(args.runs):
        for label, command in commands.items():
            samples[label].append(run_once(command))

    print(f"best of {args.runs} fresh processes each")
    baseline = samples["python -c pass (baseline)"]
    walls, cpus = [], []
    for label, measured in samples.items():
        is_base = measured is baseline
        print(_line(label, measured, None if is_base else baseline))
        if not is_base:
            walls.append(min(s.wall for s in measured))
            cpus.append(min(s.cpu for s in measured))
    ok = max(walls) <= GOAL_SECONDS
    print(
        f"goal: planegate --version <= {GOAL_SECONDS * 1000:.0f} ms -> "
        f"{'within' if ok else 'OVER'} (best wall); its CPU time alone "
        f"{max(cpus) * 1000:.0f} ms -> {'within' if max(cpus) <= GOAL_SECONDS else 'OVER'} "
        "(steadier than wall time on a busy machine)"
    )

    traced = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "planegate", "--version"],
        capture_output=True,
        text=True,
        check=True,
        env=_environment(),
    )
    print("top 10 cumulative imports of `python -X importtime -m planegate --version` (us):")
    for item in top_imports(parse_importtime(traced.stderr)):
        print(f"  {item.cumulative_us:>8} cumulative {item.self_us:>7} self  {item.name}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
