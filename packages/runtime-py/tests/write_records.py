"""Dispatch a scripted stretch of "production" and write each dispatch's record (SPEC 14), as
test/runtime-py-record.test.ts runs it beside the TypeScript runtime: reads {"bindings",
"out", "start", "seed", "calls": [{"call", "run_id", "answers": [{"latency", "response"}]}]}
as JSON on stdin; an attempt past its call's answers succeeds after 120 ms; each call starts
1 s after the previous one ended."""

from __future__ import annotations

import importlib.util
import json
import sys
from typing import Any, Dict, List

from failbook_runtime import VirtualClock, create_dispatcher, create_record_writer, seeded_random


OK: Dict[str, Any] = {"latency": 120, "response": {"status": "ok", "value": {"charged": True}}}


class EpochClock(VirtualClock):
    def __init__(self, start: float) -> None:
        super().__init__()
        self.start = start

    def epoch_ms(self) -> float:
        return self.start + self.now()


def main() -> None:
    job: Dict[str, Any] = json.load(sys.stdin)
    spec = importlib.util.spec_from_file_location("failbook_bindings", job["bindings"])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # pyright: ignore[reportUnknownMemberType, reportAttributeAccessIssue]
    clock = EpochClock(job["start"])
    dispatcher = create_dispatcher(getattr(module, "PROJECT"), clock=clock, random=seeded_random(job["seed"]))
    with create_record_writer(job["out"]) as writer:
        for item in job["calls"]:
            answers: List[Dict[str, Any]] = item["answers"]

            def attempt(call: Dict[str, Any], n: int, key: str, context: Dict[str, Any], answers: List[Dict[str, Any]] = answers) -> Dict[str, Any]:
                answer: Dict[str, Any] = OK
                if n - 1 < len(answers) and not context["fallback"]:
                    answer = answers[n - 1]
                clock.advance(answer["latency"])
                response: Dict[str, Any] = answer["response"]
                return response

            dispatcher.dispatch(item["call"], attempt, run_id=item.get("run_id"), record=writer.sink)
            clock.advance(1000)


if __name__ == "__main__":
    main()
