"""A fixture, simulated (failbook's src/simulate/fixture.ts and failbook-runtime's saga.ts,
waves.ts, runlog.ts): the dispatcher on a virtual clock with seeded jitter and attempt
functions that replay the fixture's recorded responses. What `failbook simulate --runtime
py` and the differential test run."""

from __future__ import annotations

import asyncio
import math
from typing import Any, Dict, List, Optional, Mapping

from ._clock import VirtualClock
from ._dispatcher import AttemptFn, Dispatcher, create_dispatcher
from ._engine import Ledger, verdicts_by_code
from ._redact import redact_deep
from ._util import EMPTY, NOTHING, seeded_random

Json = Dict[str, Any]


class FixtureShapeError(Exception):
    def __init__(self, message: str, path: List[Any]) -> None:
        super().__init__(message)
        self.message = message
        self.path = path


def expand_repeats(responses: Optional[List[Json]]) -> Optional[List[Json]]:
    if responses is None or not any("repeat" in r for r in responses):
        return responses
    out: List[Json] = []
    for r in responses:
        response = {k: v for k, v in r.items() if k != "repeat"}
        out.extend([response] * r.get("repeat", 1))
    return out


def _replay(clock: VirtualClock, recorded: Optional[List[Json]], recorded_fallbacks: Optional[List[Json]], at: List[Any]) -> AttemptFn:
    responses = expand_repeats(recorded)
    fallbacks = expand_repeats(recorded_fallbacks)

    def attempt(call: Json, n: int, key: str, context: Json) -> Json:
        field = "fallback_responses" if context["fallback"] else "responses"
        listed = fallbacks if context["fallback"] else responses
        response = listed[n - 1] if listed is not None and n - 1 < len(listed) else None
        if not response:
            recorded_text = "no " + field if listed is None else str(len(listed)) + " recorded"
            raise FixtureShapeError(
                "ran out of responses: attempt " + str(n) + " of " + str(call["id"]) + " (" + str(call["tool"]) + ") has no entry in " + field + " (" + recorded_text + "); record the response the playbook now asks for, or check the playbook",
                [*at, "call"] if listed is None else [*at, field],
            )
        clock.advance(response.get("latency_ms", 0))
        return response

    return attempt


class RunLog:
    def __init__(self, dispatcher: Dispatcher) -> None:
        self.dispatcher = dispatcher
        self.events: List[Json] = []
        self.ledger: Ledger = dispatcher.new_ledger()
        self.attempts = 0
        self.retried = 0
        self.verdict: Optional[str] = None

    def add(self, result: Json) -> None:
        self.events.extend(result["events"])
        self.attempts += result["outcome"]["attempts"]
        self.retried += result["outcome"]["retried"]
        for e in result["events"]:
            if e["type"] == "failure_classified":
                self.verdict = e["verdict"]

    def emit(self, event: Json) -> None:
        self.events.append({"t": self.elapsed, **event})

    @property
    def elapsed(self) -> float:
        return self.dispatcher.clock.now() - self.ledger.started_at

    def outcome(self, kind: str, base: Json, extra: Json) -> Json:
        envelope = {**base["envelope"], "outcome": kind, "ok": kind in ("succeeded", "recovered")}
        return {**base, "kind": kind, "verdict": self.verdict, "attempts": self.attempts, "retried": self.retried, "elapsed_ms": self.elapsed, "envelope": envelope, **extra}


def summarize(call_id: str, outcome: Json) -> Json:
    return {
        "id": call_id,
        "kind": outcome["kind"],
        "verdict": outcome["verdict"],
        "attempts": outcome["attempts"],
        "retried": outcome["retried"],
        "elapsed_ms": outcome["elapsed_ms"],
        "reason": outcome["reason"],
        "queue": outcome["queue"],
    }


def _success(kind: str) -> bool:
    return kind in ("succeeded", "recovered")


def run_steps(dispatcher: Dispatcher, steps: List[Json], run_id: str, compensate: Optional[bool]) -> Json:
    log = RunLog(dispatcher)
    summaries: List[Json] = []
    done: List[Json] = []
    last: Optional[Json] = None
    for step in steps:
        last = dispatcher.dispatch(step["call"], step["attempt"], run_id=run_id, ledger=log.ledger, label=True)
        log.add(last)
        summaries.append(summarize(step["call"]["id"], last["outcome"]))
        if not _success(last["outcome"]["kind"]):
            break
        done.append(step)
    if last is None:
        raise ValueError("a saga needs at least one step")
    failed = last
    if _success(failed["outcome"]["kind"]):
        kind = "recovered" if any(s["kind"] == "recovered" for s in summaries) else "succeeded"
        return {"outcome": log.outcome(kind, failed["outcome"], {"steps": summaries, "compensations": []}), "events": log.events}
    playbook = dispatcher.playbook
    if compensate is None:
        compensate = (playbook.get("saga") or EMPTY).get("compensate_on_failure", False)
    if not compensate:
        return {"outcome": log.outcome(failed["outcome"]["kind"], failed["outcome"], {"steps": summaries, "compensations": []}), "events": log.events}
    verdict = failed["outcome"]["verdict"]
    fallback_queue = playbook.get("escalation_queue", "default")
    on_exhausted = playbook.get("on_exhausted")
    queue = on_exhausted.get("queue", fallback_queue) if on_exhausted is not None and on_exhausted["action"] == "dead_letter" else fallback_queue
    compensations: List[Json] = []
    dead_letters: List[Json] = []
    for step in reversed(done):
        compensation = step.get("compensation")
        if compensation is None:
            continue
        call = compensation["call"]
        log.emit({"type": "compensation_started", "call": call["id"], "step": step["call"]["id"]})
        result = dispatcher.dispatch(call, compensation["attempt"], run_id=run_id, ledger=log.ledger, label=True)
        log.add(result)
        compensations.append(summarize(call["id"], result["outcome"]))
        if _success(result["outcome"]["kind"]):
            continue
        log.emit({"type": "compensation_failed", "call": call["id"], "step": step["call"]["id"], "kind": result["outcome"]["kind"], "queue": queue})
        entry = {
            "queue": queue,
            "call": call,
            "step": step["call"]["id"],
            "errors": result["errors"],
            "envelope": result["outcome"]["envelope"],
            "first_attempt_ms": result["errors"][0]["t"] if result["errors"] else None,
            "dead_lettered_ms": log.elapsed,
        }
        dead_letters.append(redact_deep(entry, dispatcher.redact))
    if len(dead_letters) == 0:
        return {"outcome": log.outcome("compensated", failed["outcome"], {"verdict": verdict, "queue": None, "steps": summaries, "compensations": compensations}), "events": log.events}
    extra: Json = {"verdict": verdict, "reason": "compensation_failed", "queue": queue, "steps": summaries, "compensations": compensations, "dead_letters": [*(failed["outcome"].get("dead_letters") or NOTHING), *dead_letters]}
    return {"outcome": log.outcome("dead_lettered", failed["outcome"], extra), "events": log.events}


def run_waves(dispatcher: Dispatcher, waves: List[List[Json]], run_id: str, parallelism: Optional[int]) -> Json:
    if len(waves) == 0 or any(len(w) == 0 for w in waves):
        raise ValueError("every wave needs at least one call")
    log = RunLog(dispatcher)
    throttle = dispatcher.playbook.get("throttle")
    summaries: List[Json] = []
    results: List[Json] = []
    widths: List[int] = []
    p = max(1, parallelism if parallelism is not None else max(len(w) for w in waves))
    verdicts = verdicts_by_code(dispatcher.registry)
    for wave in waves:
        widths.append(p)
        throttled = 0
        for item in wave:
            result = dispatcher.dispatch(item["call"], item["attempt"], run_id=run_id, ledger=log.ledger, label=True)
            log.add(result)
            results.append(result)
            summaries.append(summarize(item["call"]["id"], result["outcome"]))
            if throttle is not None and any(e["type"] == "failure_classified" and (verdicts.get(e["verdict"]) or EMPTY).get("class") == throttle["class"] for e in result["events"]):
                throttled += 1
        if throttle is not None and throttled >= throttle["min_failures"]:
            p = max(1, math.floor(p * throttle["factor"]))
    failing = [r for r in results if not _success(r["outcome"]["kind"])]
    base = failing[0] if failing else results[-1]
    if not failing:
        return {"outcome": log.outcome("succeeded", base["outcome"], {"calls": summaries, "parallelism": widths}), "events": log.events}
    extra: Json = {
        "reason": str(len(failing)) + " of " + str(len(results)) + " calls did not succeed",
        "queue": None,
        "replan": False,
        "exhausted": any(r["outcome"]["exhausted"] for r in failing),
        "calls": summaries,
        "parallelism": widths,
    }
    dead = [d for r in failing for d in (r["outcome"].get("dead_letters") or NOTHING)]
    if dead:
        extra["dead_letters"] = dead
    return {"outcome": log.outcome("failed", base["outcome"], extra), "events": log.events}


class _ThroughAdispatch(Dispatcher):
    """A dispatcher whose every dispatch runs through `adispatch` (an event loop per dispatch): the asyncio driver held to the same fixtures."""

    def __init__(self, dispatcher: Dispatcher) -> None:
        super().__init__(dispatcher._s)  # pyright: ignore[reportPrivateUsage]

    def dispatch(self, call: Json, attempt: AttemptFn, **options: Any) -> Json:  # pyright: ignore[reportIncompatibleMethodOverride]
        return asyncio.run(self.adispatch(call, attempt, **options))


def simulate_fixture(project: Mapping[str, Any], fixture: Json, seed: int = 0, driver: str = "dispatch") -> Json:
    """Replay one fixture: {"ok": True, "outcome", "events"} or {"ok": False, "error": {"message", "path"}, "events"}.
    `driver`: "dispatch" (blocking) or "adispatch" (asyncio); on a virtual clock both decide alike."""
    clock = VirtualClock()
    seen: List[Json] = []
    quota = fixture.get("quota")
    dispatcher = create_dispatcher(
        project,
        clock=clock,
        random=seeded_random(fixture["seed"] if fixture.get("seed") is not None else seed),
        quota_tokens=None if quota is None else quota.get("tokens"),
        state=fixture.get("state"),
        on_event=seen.append,
    )
    if driver == "adispatch":
        dispatcher = _ThroughAdispatch(dispatcher)
    run_id = fixture.get("run_id") or fixture["name"]
    try:
        shapes = [s for s in ("call", "steps", "waves") if fixture.get(s)]
        if len(shapes) != 1:
            found = "none of them" if len(shapes) == 0 else " and ".join(shapes)
            raise FixtureShapeError("needs exactly one of call, steps or waves (found " + found + ")", [])
        if fixture.get("call"):
            result = dispatcher.dispatch(fixture["call"], _replay(clock, fixture.get("responses"), fixture.get("fallback_responses"), []), run_id=run_id)
            result = {"outcome": result["outcome"], "events": result["events"]}
        elif fixture.get("steps"):
            steps: List[Json] = []
            for i, step in enumerate(fixture["steps"]):
                item: Json = {"call": step["call"], "attempt": _replay(clock, step.get("responses"), step.get("fallback_responses"), ["steps", i])}
                comp = step.get("compensation")
                if comp:
                    item["compensation"] = {"call": comp["call"], "attempt": _replay(clock, comp.get("responses"), comp.get("fallback_responses"), ["steps", i, "compensation"])}
                steps.append(item)
            result = run_steps(dispatcher, steps, run_id, fixture.get("compensate_on_failure"))
        else:
            waves = [[{"call": s["call"], "attempt": _replay(clock, s.get("responses"), s.get("fallback_responses"), ["waves", w, "calls", i])} for i, s in enumerate(wave["calls"])] for w, wave in enumerate(fixture["waves"])]
            result = run_waves(dispatcher, waves, run_id, fixture.get("parallelism"))
        return {"ok": True, "outcome": result["outcome"], "events": result["events"]}
    except FixtureShapeError as e:
        return {"ok": False, "error": {"message": e.message, "path": e.path}, "events": seen}
