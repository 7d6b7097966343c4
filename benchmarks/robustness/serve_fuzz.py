"""Schema fuzzing of ``affectlab serve`` at scale: the app, schema and checks of ``tests/test_serve_fuzz.py`` (shared
in ``tests/serve_fuzzing.py``: the default model, at most 8 texts of 500 characters, in-process through ASGI) with
many more examples. Per operation of ``/openapi.json``: the coverage phase's deterministic cases, then ``--examples``
generated requests in each generation mode (schema-valid and schema-invalid), then, for the POST operations,
``--bodies`` hand-built requests of each kind: well-formed (one text or a batch, any non-blank Unicode), which must
be answered 200, and awkward (lone surrogates, odd sentinels), which may also get a 422. A failing request is
recorded (each kind once, with a curl that reproduces it) and the run goes on. Writes
benchmarks/results/serve_fuzz.json: per operation and phase, examples tried, failures, status codes and seconds.

    pip install -e ".[dev]"
    python benchmarks/robustness/serve_fuzz.py --examples 3000 --bodies 300

(4 to 5 minutes on 2 cores, most of it the open-state requests: up to 1 s each for a batch of 8).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import os
import platform
import sys
import time
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.core.failures import FailureGroup

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
from serve_fuzzing import BODIES, CHECKS, LIMITS, check_answer, load_schema

MODES = (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)


class Tally:
    """Examples, status codes, failures (by kind, the first of each kept with its message and a curl that
    reproduces it) and seconds of one phase: in all (generating, sending, checking) and in requests and checks."""

    def __init__(self) -> None:
        self.examples = 0
        self.failures = 0
        self.statuses: collections.Counter[int] = collections.Counter()
        self.kinds: dict[str, dict[str, str]] = {}
        self.seconds = 0.0
        self.request_seconds = 0.0

    @contextlib.contextmanager
    def timing(self) -> Iterator[Tally]:
        started = time.perf_counter()
        yield self
        self.seconds += time.perf_counter() - started

    def run(self, case: Any, expect: Any = None) -> None:
        """Send ``case``, apply the checks (and ``expect(response)``), and count what happened."""
        started = time.perf_counter()
        self.examples += 1
        kinds: list[tuple[str, str]] = []
        try:
            response = case.call()
            self.statuses[response.status_code] += 1
            try:
                case.validate_response(response, checks=CHECKS)
            except FailureGroup as group:
                kinds += [(failure.title, failure.message) for failure in group.exceptions]
            if expect is not None:
                try:
                    expect(response)
                except AssertionError as exc:
                    kinds.append(("Wrong answer to a hand-built request", str(exc)))
        except Exception as exc:  # the app raised instead of answering
            kinds.append((f"The app raised {type(exc).__name__}", str(exc)))
        if kinds:
            self.failures += 1
            for kind, message in kinds:
                self.kinds.setdefault(kind, {"message": message[:500], "curl": case.as_curl_command()})
        self.request_seconds += time.perf_counter() - started

    def result(self) -> dict[str, Any]:
        return {
            "examples": self.examples,
            "failures": self.failures,
            "failure_kinds": self.kinds,
            "statuses": {str(code): n for code, n in sorted(self.statuses.items())},
            "seconds": round(self.seconds, 1),
            "request_seconds": round(self.request_seconds, 1),
        }


def generate(strategy: Any, examples: int, each: Any) -> None:
    """Run ``each`` on up to ``examples`` values of ``strategy`` (fewer where it has fewer distinct values, none
    where it has none: schema-invalid requests to an operation without parameters)."""

    @settings(
        max_examples=examples, deadline=None, database=None, phases=[Phase.generate], verbosity=Verbosity.quiet,
        suppress_health_check=list(HealthCheck),
    )  # fmt: skip
    @given(strategy)
    def run(value: Any) -> None:
        each(value)

    with contextlib.suppress(Unsatisfiable):
        run()


def fuzz_operation(schema: Any, operation: Any, examples: int, bodies: int) -> dict[str, Any]:
    phases: dict[str, Tally] = collections.defaultdict(Tally)
    config = schema.config.generation_for(operation=operation, phase="coverage")
    with phases["coverage"].timing() as tally:
        for case in schema.iter_coverage_cases(operation, generation_modes=list(MODES), generation_config=config):
            tally.run(case)
    for mode in MODES:
        with phases[f"fuzzing-{mode.value}"].timing() as tally:
            generate(operation.as_strategy(generation_mode=mode), examples, tally.run)
    for kind, strategies in BODIES.items():
        if operation.method.upper() == "POST" and operation.path in strategies:
            with phases[kind].timing() as tally:

                def send(body: dict[str, Any], kind: str = kind, tally: Tally = tally) -> None:
                    case = operation.Case(body=body, media_type="application/json")
                    tally.run(case, lambda response: check_answer(kind, body, response))

                generate(strategies[operation.path], bodies, send)
    out = {name: tally.result() for name, tally in phases.items()}
    out["total"] = {
        "examples": sum(t.examples for t in phases.values()),
        "failures": sum(t.failures for t in phases.values()),
        "seconds": round(sum(t.seconds for t in phases.values()), 1),
    }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=1500, help="generated examples per operation and mode")
    parser.add_argument("--bodies", type=int, default=None, help="hand-built requests per POST operation and kind "
                        "(default: --examples; most are real detections of up to 8 texts)")  # fmt: skip
    parser.add_argument("--out", default=str(Path(__file__).parents[1] / "results" / "serve_fuzz.json"))
    args = parser.parse_args()
    bodies = args.examples if args.bodies is None else args.bodies
    started = time.perf_counter()
    schema = load_schema()
    operations = {}
    for result in schema.get_all_operations():
        operation = result.ok()
        operations[operation.label] = fuzz_operation(schema, operation, args.examples, bodies)
        total = operations[operation.label]["total"]
        print(f"{operation.label}: {total['examples']} examples, {total['failures']} failures, {total['seconds']} s")
    result = {
        "examples_per_mode": args.examples,
        "bodies_per_operation_and_kind": bodies,
        "examples": sum(op["total"]["examples"] for op in operations.values()),
        "failures": sum(op["total"]["failures"] for op in operations.values()),
        "seconds": round(time.perf_counter() - started, 1),
        "operations": operations,
        "checks": [check.__name__ for check in CHECKS],
        "app": f"create_app({', '.join(f'{k}={v}' for k, v in LIMITS.items())}), default model, in-process (ASGI)",
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "date": date.today().isoformat(),
    }
    Path(args.out).write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k != "operations"}, indent=1))


if __name__ == "__main__":
    main()
