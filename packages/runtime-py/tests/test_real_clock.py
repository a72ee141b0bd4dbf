"""failbook_runtime on a real clock against a loopback HTTP server (http.server in a thread):
retries that really wait, attempt timeouts, cancellation and deadlines, in `dispatch` and
`adispatch`; hedging in `adispatch` (a slow attempt overtaken by its hedge and cancelled, the
next hedge at once after a non-fatal failure), and blocking `dispatch` sending one attempt at
a time. Run by test/runtime-py-real.test.ts with FAILBOOK_BINDINGS naming a module that
`failbook gen py` wrote for the repository's own project."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import threading
import time
import unittest
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional, Tuple

from failbook_runtime import RealClock, create_dispatcher, trace_id

Json = Dict[str, Any]


def _bindings() -> Any:
    spec = importlib.util.spec_from_file_location("bindings", os.environ["FAILBOOK_BINDINGS"])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # pyright: ignore[reportUnknownMemberType, reportAttributeAccessIssue]
    return module


PROJECT: Json = dict(_bindings().PROJECT)
hits: Dict[str, int] = {}


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        hits[self.path] = hits.get(self.path, 0) + 1
        if self.path == "/flaky" and hits[self.path] == 1:
            self.send_response(503)
            self.send_header("Retry-After", "0")
            self.end_headers()
            return
        if self.path == "/slow":
            time.sleep(1.0)
        if self.path == "/slow-first" and hits[self.path] == 1:
            time.sleep(0.4)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, format: str, *args: Any) -> None:
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
BASE = "http://127.0.0.1:%d" % server.server_address[1]
signals: List[threading.Event] = []


def fetch(call: Json, n: int, key: str, context: Json) -> Json:
    signals.append(context["signal"])
    try:
        with urllib.request.urlopen(BASE + call["args"]["path"], timeout=5) as response:
            return {"status": "ok", "value": response.read().decode()}
    except urllib.error.HTTPError as e:
        return {"status": "error", "error": {"kind": "http", "http_status": e.code, "headers": dict(e.headers.items())}}


async def afetch(call: Json, n: int, key: str, context: Json) -> Json:
    return await asyncio.get_running_loop().run_in_executor(None, fetch, call, n, key, context)


def hedged(hedging: Json) -> Json:
    return {**PROJECT, "playbook": {**PROJECT["playbook"], "hedging": {"tools": "web.*", **hedging}}}


def hedged_adispatch(hedging: Json, path: str, cancel_after: Optional[float] = None) -> Tuple[Json, float, List[Json]]:
    """A call to a hedged web.fetch through adispatch on the real clock: its result, how long it took, each attempt's context."""
    contexts: List[Json] = []

    async def attempt(call: Json, n: int, key: str, context: Json) -> Json:
        contexts.append(context)
        return await afetch(call, n, key, context)

    async def scenario() -> Tuple[Json, float]:
        cancel = asyncio.Event()
        if cancel_after is not None:
            asyncio.get_running_loop().call_later(cancel_after, cancel.set)
        started = time.monotonic()
        result = await create_dispatcher(hedged(hedging)).adispatch({"id": "c1", "tool": "web.fetch", "args": {"path": path}}, attempt, cancel=cancel)
        return result, time.monotonic() - started

    result, took = asyncio.run(scenario())
    return result, took, contexts


def timed(ms: float) -> Json:
    return {**PROJECT, "playbook": {**PROJECT["playbook"], "attempt_timeout_ms": ms}}


class RealClockTest(unittest.TestCase):
    def setUp(self) -> None:
        hits.clear()
        signals.clear()

    def test_a_503_is_retried_and_recovers(self) -> None:
        dispatcher = create_dispatcher(PROJECT, clock=RealClock(scale=0.001))
        result = dispatcher.dispatch({"id": "c1", "tool": "web.fetch", "args": {"path": "/flaky"}}, fetch)
        self.assertEqual(result["outcome"]["kind"], "recovered")
        self.assertEqual([e["type"] for e in result["events"]], ["attempt", "failure_classified", "retry_scheduled", "attempt"])
        self.assertEqual(hits["/flaky"], 2)

    def test_an_attempt_timeout_stops_waiting_and_sets_the_signal(self) -> None:
        dispatcher = create_dispatcher(timed(100), clock=RealClock(scale=0.001))
        started = time.monotonic()
        result = dispatcher.dispatch({"id": "c1", "tool": "web.fetch", "args": {"path": "/slow"}, "idempotent": False}, fetch)
        self.assertLess(time.monotonic() - started, 0.8)
        self.assertEqual(result["events"][0]["error_kind"], "attempt_timeout")
        self.assertEqual(result["outcome"]["envelope"]["error"]["side_effect_state"], "unknown")
        self.assertTrue(signals[0].is_set())

    def test_cancel_ends_a_blocking_dispatch_at_once(self) -> None:
        dispatcher = create_dispatcher(PROJECT)
        cancel = threading.Event()
        threading.Timer(0.1, cancel.set).start()
        started = time.monotonic()
        result = dispatcher.dispatch({"id": "c1", "tool": "web.fetch", "args": {"path": "/slow"}}, fetch, cancel=cancel)
        self.assertLess(time.monotonic() - started, 0.8)
        self.assertEqual((result["outcome"]["kind"], result["outcome"]["reason"]), ("exhausted", "cancelled"))
        self.assertEqual(result["events"][-1], {"t": result["events"][-1]["t"], "type": "dispatch_stopped", "reason": "cancelled", "in_flight": True})
        self.assertTrue(signals[0].is_set())

    def test_a_deadline_ends_a_blocking_dispatch(self) -> None:
        dispatcher = create_dispatcher(PROJECT)
        result = dispatcher.dispatch({"id": "c1", "tool": "web.fetch", "args": {"path": "/slow"}}, fetch, deadline_ms=dispatcher.clock.now() + 100)
        self.assertEqual((result["outcome"]["kind"], result["outcome"]["reason"]), ("exhausted", "deadline"))

    def test_adispatch_times_out_cancels_and_recovers(self) -> None:
        async def scenario() -> List[Json]:
            timed_out = await create_dispatcher(timed(100), clock=RealClock(scale=0.001)).adispatch({"id": "c1", "tool": "web.fetch", "args": {"path": "/slow"}, "idempotent": False}, afetch)
            cancel = asyncio.Event()
            asyncio.get_running_loop().call_later(0.1, cancel.set)
            cancelled = await create_dispatcher(PROJECT).adispatch({"id": "c2", "tool": "web.fetch", "args": {"path": "/slow"}}, afetch, cancel=cancel)
            recovered = await create_dispatcher(PROJECT, clock=RealClock(scale=0.001)).adispatch({"id": "c3", "tool": "web.fetch", "args": {"path": "/flaky"}}, afetch)
            return [timed_out, cancelled, recovered]

        started = time.monotonic()
        timed_out, cancelled, recovered = asyncio.run(scenario())
        self.assertLess(time.monotonic() - started, 1.5)
        self.assertEqual(timed_out["events"][0]["error_kind"], "attempt_timeout")
        self.assertEqual(cancelled["outcome"]["reason"], "cancelled")
        self.assertEqual(recovered["outcome"]["kind"], "recovered")

    def test_cancelling_the_task_releases_the_retry_budget(self) -> None:
        project = {**PROJECT, "playbook": {**PROJECT["playbook"], "retry_budget": {"percent": 20, "min_concurrency": 3}}}
        dispatcher = create_dispatcher(project)

        async def scenario() -> None:
            task = asyncio.ensure_future(dispatcher.adispatch({"id": "c1", "tool": "web.fetch", "args": {"path": "/slow"}}, afetch))
            await asyncio.sleep(0.1)
            task.cancel()
            with self.assertRaises(asyncio.CancelledError):
                await task

        asyncio.run(scenario())
        assert dispatcher.budget is not None
        self.assertEqual((dispatcher.budget.calls, dispatcher.budget.retries), (0, 0))

    def test_a_call_that_succeeds_at_once_is_one_attempt_and_releases_the_budget(self) -> None:
        project = {**PROJECT, "playbook": {**PROJECT["playbook"], "retry_budget": {"percent": 20, "min_concurrency": 3}}}
        dispatcher = create_dispatcher(project)
        seen: List[Json] = []
        result = dispatcher.dispatch({"id": "c1", "tool": "web.fetch", "args": {"path": "/ok"}, "idempotency_key": "order-42"}, lambda call, n, key, context: seen.append(context) or fetch(call, n, key, context))
        self.assertEqual((result["outcome"]["kind"], result["outcome"]["attempts"], result["idempotency_key"]), ("succeeded", 1, "order-42"))
        self.assertEqual([(e["type"], e["n"], e["status"]) for e in result["events"]], [("attempt", 1, "ok")])
        self.assertEqual((result["outcome"]["envelope"]["ok"], result["outcome"]["envelope"]["trace_id"]), (True, trace_id("order-42")))
        self.assertEqual((seen[0]["fallback"], seen[0]["signal"].is_set()), (False, False))
        assert dispatcher.budget is not None
        self.assertEqual((dispatcher.budget.calls, dispatcher.budget.retries), (0, 0))

    def test_adispatch_hedges_a_slow_attempt_and_cancels_it(self) -> None:
        result, took, contexts = hedged_adispatch({"max_attempts": 2, "delay_ms": 50}, "/slow-first")
        # The hedge went out after 50 ms and answered at once; the first attempt (400 ms) was not waited for.
        self.assertLess(took, 0.35)
        self.assertEqual((result["outcome"]["kind"], result["outcome"]["attempts"]), ("succeeded", 2))
        self.assertEqual([(e["type"], e.get("n", e.get("attempt")), e.get("hedge")) for e in result["events"]], [("attempt", 2, True), ("hedge_cancelled", 1, None)])
        self.assertGreaterEqual(result["events"][0]["t"], 50)
        self.assertEqual(hits["/slow-first"], 2)
        self.assertEqual([c.get("hedge") for c in contexts], [None, True])
        self.assertTrue(contexts[0]["signal"].is_set())
        self.assertFalse(contexts[1]["signal"].is_set())

    def test_adispatch_sends_the_next_hedge_at_once_after_a_non_fatal_failure(self) -> None:
        result, took, _ = hedged_adispatch({"max_attempts": 3, "delay_ms": 5000, "non_fatal": ["transient"]}, "/flaky")
        self.assertLess(took, 1.0)
        self.assertEqual((result["outcome"]["kind"], result["outcome"]["attempts"], result["outcome"]["retried"]), ("recovered", 2, 0))
        self.assertEqual([e["type"] for e in result["events"]], ["attempt", "failure_classified", "attempt"])
        self.assertEqual(result["events"][2]["hedge"], True)

    def test_cancel_ends_a_hedge_race_and_cancels_every_hedge(self) -> None:
        result, took, contexts = hedged_adispatch({"max_attempts": 3, "delay_ms": 50}, "/slow", cancel_after=0.15)
        self.assertLess(took, 0.6)
        self.assertEqual((result["outcome"]["kind"], result["outcome"]["reason"], result["outcome"]["attempts"]), ("exhausted", "cancelled", 3))
        self.assertEqual([e["type"] for e in result["events"]], ["dispatch_stopped"])
        self.assertEqual(result["events"][0]["in_flight"], True)
        self.assertEqual([c["signal"].is_set() for c in contexts], [True, True, True])

    def test_blocking_dispatch_does_not_hedge(self) -> None:
        dispatcher = create_dispatcher(hedged({"max_attempts": 2, "delay_ms": 50}))
        started = time.monotonic()
        result = dispatcher.dispatch({"id": "c1", "tool": "web.fetch", "args": {"path": "/slow-first"}}, fetch)
        # One attempt at a time (SPEC 25: hedging in adispatch only): the slow first attempt is waited for.
        self.assertGreaterEqual(time.monotonic() - started, 0.4)
        self.assertEqual((result["outcome"]["kind"], result["outcome"]["attempts"]), ("succeeded", 1))
        self.assertEqual(hits["/slow-first"], 1)


if __name__ == "__main__":
    unittest.main()
