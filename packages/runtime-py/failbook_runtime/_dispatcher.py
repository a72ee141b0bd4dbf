"""create_dispatcher, and the two drivers of the one run (./_engine.py): `dispatch` blocks,
`adispatch` awaits. Attempt timeouts (SPEC 18): on a virtual clock the attempt's latency is
held at the timeout; on a real one the blocking driver runs the attempt in a thread and
stops waiting (the attempt's `context["signal"]`, a threading.Event, is set: honour it),
the asyncio driver cancels the attempt's task. Cancellation and deadlines (SPEC 21): a
`cancel` Event and a `deadline_ms` on the dispatcher's clock end the dispatch `exhausted`,
reason `cancelled` or `deadline`; cancelling the task that awaits `adispatch` releases
every policy counter and re-raises CancelledError."""

from __future__ import annotations

import asyncio
import inspect
import math
import sys
import threading
import time
from collections.abc import Mapping
from typing import Any, Awaitable, Callable, Dict, List, Optional, Tuple, Union, cast

from ._clock import RealClock
from ._engine import LAUNCHED, MEASURED, TIMED_OUT, DispatchRun, Effect, Ledger, Run, Send, Shared, Sleep, Stop, Stopped
from ._hedging import Flight, Wait
from ._record import Recording, RecordSink
from ._redact import Redactor, remembered
from ._util import EMPTY, Random, checked_trace_id, idempotency_key, system_random
from ._util import trace_id as trace_id_of

PROJECT_FORMAT = "failbook.project/1"
UNIMPLEMENTED: tuple[str, ...] = ()
"""Playbook policies this runtime refuses rather than ignores (none: every policy of SPEC 18 and 22 is implemented)."""

Json = Dict[str, Any]
AttemptFn = Callable[[Json, int, str, Json], Json]
"""attempt(call, n, idempotency_key, context) -> {"status": "ok" | "error" | "needs_input", ...}"""
AsyncAttemptFn = Callable[[Json, int, str, Json], Union[Awaitable[Json], Json]]


class Dispatcher:
    """One playbook's dispatcher: every dispatch shares its clock, random source and policies."""

    def __init__(self, shared: Shared, on_record_error: Optional[Callable[[BaseException], None]] = None) -> None:
        self._s = shared
        self._on_record_error = on_record_error
        self._warned = False
        self.clock: Any = shared.clock
        self.registry = shared.registry
        self.playbook = shared.playbook
        self.redact: Redactor = shared.redact
        self.quota = shared.quota
        self.budget = shared.budget
        self.throttle = shared.throttle

    def new_ledger(self) -> Ledger:
        """A fresh budget ledger starting now: share it to make several dispatches one run."""
        return Ledger(self.clock.now())

    def _run(self, call: Json, run_id: Optional[str], ledger: Optional[Ledger], label: bool, stop: Optional[Stop], trace: Optional[str], recording: Optional[Recording] = None, record: Optional[RecordSink] = None, concurrent: bool = False, first: Optional[Tuple[float, Any, str]] = None) -> Run:
        """The dispatch's run; `first`: its first attempt, sent and answered by `_direct` (which counted the call in the retry budget)."""
        s = self._s
        run = DispatchRun(s, ledger, run_id or "", str(call["id"]) if label else None, stop, trace, concurrent, None if first is None else first[0])
        if recording is not None:
            run.on_blocked = recording.blocked
        budget = s.budget
        if budget is not None and first is None:
            budget.call_started()
        try:
            try:
                end = yield from run.call(call, 0, first)
            except Stopped as stopped:
                end = run.stopped(stopped, call)
        finally:
            if budget is not None:
                budget.call_ended(run.retrying)
        result = run.finish(end)
        yield from run.apply_effects(result["outcome"])
        if recording is not None and record is not None:
            # A record sink never changes a dispatch's fate (SPEC 21): what goes wrong writing it goes to on_record_error.
            try:
                yield Effect(record, [recording.finish(call, run_id, result["outcome"], s.redact)])
            except Exception as e:
                self._record_failed(e)
        return result

    def _record_failed(self, error: BaseException) -> None:
        if self._on_record_error is not None:
            self._on_record_error(error)
        elif not self._warned:
            self._warned = True
            sys.stderr.write("failbook: a dispatch's record could not be written (pass on_record_error to create_dispatcher to handle it)\n")

    def _stop(self, cancel: Any, deadline_ms: Optional[float]) -> Optional[Stop]:
        return None if cancel is None and deadline_ms is None else Stop(self.clock, cancel, deadline_ms)

    def dispatch(self, call: Json, attempt: AttemptFn, *, run_id: Optional[str] = None, ledger: Optional[Ledger] = None, label: bool = False, cancel: Optional[threading.Event] = None, deadline_ms: Optional[float] = None, trace_id: Optional[str] = None, record: Optional[RecordSink] = None) -> Json:
        """One call under the playbook, blocking: {"outcome", "events", "errors", "idempotency_key"}.
        `record`: hand the finished dispatch, as one redacted record (SPEC 14), to this sink (a RecordWriter's `sink`)."""
        trace = None if trace_id is None else checked_trace_id(trace_id)
        first: Optional[Tuple[float, Any, str]] = None
        if cancel is None and deadline_ms is None and record is None and not label:
            direct = self._direct(call, attempt, run_id, ledger, trace)
            if isinstance(direct, dict):
                return direct
            first = direct
        stop = self._stop(cancel, deadline_ms)
        recording = None if record is None else Recording(self.clock)
        if recording is not None:
            attempt = recording.wrap(attempt)
        gen = self._run(call, run_id, ledger, label, stop, trace, recording, record, False, first)
        value: Any = None
        error: Optional[BaseException] = None
        while True:
            try:
                request = gen.send(value) if error is None else gen.throw(error)
            except StopIteration as done:
                return done.value
            value, error = None, None
            try:
                if isinstance(request, Send):
                    value = self._measured(request, attempt) if request.how == MEASURED else self._send(request, attempt, stop)
                elif isinstance(request, Sleep):
                    self.clock.sleep(request.ms, cancel)
                else:
                    value = request.fn(*request.args)
            except BaseException as e:  # handed to the run, whose finally blocks release what it holds
                error = e

    async def adispatch(self, call: Json, attempt: AsyncAttemptFn, *, run_id: Optional[str] = None, ledger: Optional[Ledger] = None, label: bool = False, cancel: Union[asyncio.Event, threading.Event, None] = None, deadline_ms: Optional[float] = None, trace_id: Optional[str] = None, record: Optional[RecordSink] = None) -> Json:
        """One call under the playbook, in asyncio: the attempt function may be a coroutine function; `record` as in dispatch (a coroutine sink is awaited)."""
        trace = None if trace_id is None else checked_trace_id(trace_id)
        stop = self._stop(cancel, deadline_ms)
        recording = None if record is None else Recording(self.clock)
        if recording is not None:
            attempt = recording.awrap(attempt)
        gen = self._run(call, run_id, ledger, label, stop, trace, recording, record, True)
        value: Any = None
        error: Optional[BaseException] = None
        while True:
            try:
                request = gen.send(value) if error is None else gen.throw(error)
            except StopIteration as done:
                return done.value
            value, error = None, None
            try:
                if isinstance(request, Send):
                    if request.how == MEASURED:
                        value = await self._ameasured(request, attempt)
                    elif request.how == LAUNCHED:
                        signal = threading.Event()
                        value = _Hedge(self._asend(request, attempt, None, signal), signal)
                    else:
                        value = await self._asend(request, attempt, stop)
                elif isinstance(request, Wait):
                    value = await self._first_answer(request, stop)
                elif isinstance(request, Sleep):
                    await self.clock.asleep(request.ms, cancel)
                else:
                    value = self._effect(request)
                    if inspect.isawaitable(value):
                        value = await value
            except BaseException as e:
                error = e

    def _direct(self, call: Json, attempt: AttemptFn, run_id: Optional[str], ledger: Optional[Ledger], trace: Optional[str]) -> Union[Json, Tuple[float, Any, str], None]:
        """The common call, as failbook-runtime's dispatch sends it without a run (SPEC 11): no
        breaker, hedge, attempt timeout or rate limit over its tool. Its first attempt is sent
        here; when it answers ok, the dispatch is finished here as the run finishes it (the same
        event, policies told, outcome) and returned. Else None (not such a call), or the
        (sent at, answer, idempotency key) the run goes on from."""
        s = self._s
        if s.breakers is not None:
            return None
        name = call["tool"]
        tool = s.tool(name)
        idempotent = call.get("idempotent") is not False and tool.idempotent
        if tool.timeout_ms is not None or tool.paced or (idempotent and s.hedging is not None and s.hedging.hedges(name)):
            return None
        budget = s.budget
        if budget is not None:
            budget.call_started()
        key = idempotency_key(run_id or "", call)
        clock = self.clock
        before: float = clock.now()
        try:
            response = attempt(call, 1, key, {"fallback": False, "signal": NEVER_SET})
        except BaseException:
            if budget is not None:
                budget.call_ended(False)
            raise
        if type(response) is not dict or response.get("status") != "ok" or (response.get("value") is None and s.playbook.get("empty_response_is_failure", False)):
            return (before, response, key)
        now: float = clock.now()
        shown_key = key if call.get("idempotency_key") is None else s.redact(key)
        event: Json = {"t": now - (before if ledger is None else ledger.started_at), "type": "attempt", "n": 1, "status": "ok", "idempotency_key": shown_key, "latency_ms": now - before}
        if s.on_event is not None:
            s.on_event(event)
        if s.throttle is not None:
            s.throttle.succeeded()
        if budget is not None:
            budget.call_ended(False)
        if s.quota is not None:
            s.quota.settle([])
        elapsed = now - before
        # build_envelope's envelope of a success, written out: no error to describe.
        envelope: Json = {"ok": True, "tool": tool.shown, "outcome": "succeeded", "reason": None, "replan": False, "trace_id": trace_id_of(shown_key) if trace is None else trace, "attempts": 1, "retried": 0, "error": None}
        outcome: Json = {"kind": "succeeded", "verdict": None, "attempts": 1, "retried": 0, "elapsed_ms": elapsed, "reason": None, "queue": None, "replan": False, "exhausted": False, "envelope": envelope, "packet": None}
        return {"outcome": outcome, "events": [event], "errors": [], "idempotency_key": shown_key}

    @staticmethod
    def _effect(request: Effect) -> Any:
        return request.fn(*request.args)

    # Sending one attempt ----------------------------------------------------------------------

    def _limit_s(self, timeout_ms: Optional[float]) -> float:
        scale = self.clock.scale if isinstance(self.clock, RealClock) else 1.0
        return math.inf if timeout_ms is None else max(0.0, timeout_ms * scale) / 1000

    def _measured(self, request: Send, attempt: AttemptFn) -> Any:
        """A hedge on a virtual clock (SPEC 18): sent as if it started now and took its own time, then the clock is put back; (answer, ms)."""
        clock = self.clock
        start: float = clock.now()
        try:
            value = self._send(request, attempt, None)
            return (value, clock.now() - start)
        finally:
            clock.rewind(start)

    async def _ameasured(self, request: Send, attempt: AsyncAttemptFn) -> Any:
        clock = self.clock
        start: float = clock.now()
        try:
            value = await self._asend(request, attempt, None)
            return (value, clock.now() - start)
        finally:
            clock.rewind(start)

    async def _first_answer(self, request: Wait, stop: Optional[Stop]) -> Optional[Flight]:
        """The first hedge in flight to answer (its value set), or None when the next hedge is due first (`request.ms`)."""
        flights = request.flights
        tasks = [cast(_Hedge, f.handle).task for f in flights]
        until = math.inf if request.ms is None else time.monotonic() + self._limit_s(request.ms)
        while True:
            left = until - time.monotonic()
            if left > 0:
                step = None if left == math.inf else left
                if stop is not None:
                    step = 0.005 if step is None else min(step, 0.005)
                await asyncio.wait(tasks, timeout=step, return_when=asyncio.FIRST_COMPLETED)
            for flight, task in zip(flights, tasks):
                if task.done():
                    flight.value = task.result()
                    return flight
            if stop is not None and stop.check() is not None:
                raise Stopped(stop.why or "cancelled", True)
            if time.monotonic() >= until:
                return None

    def _send(self, request: Send, attempt: AttemptFn, stop: Optional[Stop]) -> Any:
        clock = self.clock
        hold = getattr(clock, "hold", None)
        timeout = request.timeout_ms
        # An attempt the dispatcher always waits for (no timeout, nothing to stop it) has a signal that is never set.
        signal = NEVER_SET if timeout is None and (hold is not None or stop is None) else threading.Event()
        context = {**request.context, "signal": signal}
        if hold is not None:
            if timeout is None:
                return attempt(request.call, request.n, request.key, context)
            release = hold(clock.now() + timeout)
            try:
                response = attempt(request.call, request.n, request.key, context)
            finally:
                if release():
                    signal.set()
            return TIMED_OUT if signal.is_set() else response
        if timeout is None and stop is None:
            return attempt(request.call, request.n, request.key, context)
        box: Dict[str, Any] = {}
        done = threading.Event()

        def work() -> None:
            try:
                box["value"] = attempt(request.call, request.n, request.key, context)
            except BaseException as e:
                box["error"] = e
            finally:
                done.set()

        threading.Thread(target=work, daemon=True, name="failbook-attempt").start()
        until = time.monotonic() + self._limit_s(timeout)
        while True:
            left = until - time.monotonic()
            if done.wait(min(left, 0.005) if stop is not None else left) if left > 0 else done.is_set():
                break
            if stop is not None and stop.check() is not None:
                signal.set()
                raise Stopped(stop.why or "cancelled", True)
            if time.monotonic() >= until:
                signal.set()
                return TIMED_OUT
        if "error" in box:
            raise box["error"]
        return box["value"]

    async def _asend(self, request: Send, attempt: AsyncAttemptFn, stop: Optional[Stop], signal: Optional[threading.Event] = None) -> Any:
        clock = self.clock
        hold = getattr(clock, "hold", None)
        timeout = request.timeout_ms
        if signal is None:
            signal = threading.Event()
        context = {**request.context, "signal": signal}
        if hold is not None:
            release = None if timeout is None else hold(clock.now() + timeout)
            try:
                response = attempt(request.call, request.n, request.key, context)
                if inspect.isawaitable(response):
                    response = await response
            finally:
                if release is not None and release():
                    signal.set()
            return TIMED_OUT if signal.is_set() else response
        sent = attempt(request.call, request.n, request.key, context)
        if not inspect.isawaitable(sent):
            return sent
        if timeout is None and stop is None:
            return await sent
        task: asyncio.Future[Any] = asyncio.ensure_future(sent)
        until = time.monotonic() + self._limit_s(timeout)
        try:
            while True:
                left = until - time.monotonic()
                if left > 0:
                    await asyncio.wait({task}, timeout=min(left, 0.005) if stop is not None else left)
                if task.done():
                    return task.result()
                if stop is not None and stop.check() is not None:
                    signal.set()
                    task.cancel()
                    raise Stopped(stop.why or "cancelled", True)
                if time.monotonic() >= until:
                    signal.set()
                    task.cancel()
                    return TIMED_OUT
        except asyncio.CancelledError:
            signal.set()
            task.cancel()
            raise


class _Hedge:
    """A hedge in flight in asyncio (SPEC 18): its task; `cancel()` sets its signal and cancels it (the race was decided by another)."""

    __slots__ = ("task", "signal")

    def __init__(self, sending: Awaitable[Any], signal: threading.Event) -> None:
        self.signal = signal
        self.task: asyncio.Future[Any] = asyncio.ensure_future(sending)
        # A cancelled hedge's late failure is nobody's: retrieved here so asyncio does not report it.
        self.task.add_done_callback(_retrieve)

    def cancel(self) -> None:
        self.signal.set()
        self.task.cancel()


def _retrieve(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()


_last_redactor: List[Any] = [None, None]


def _remembered_redactor(redact: Redactor) -> Redactor:
    """`redact` with its memo, one memo for the dispatchers of the same redactor (a simulation makes one per fixture)."""
    if _last_redactor[0] is not redact:
        _last_redactor[0] = redact
        _last_redactor[1] = remembered(redact)
    return _last_redactor[1]


class _NeverSet(threading.Event):
    """The signal of an attempt the dispatcher always waits for (no attempt timeout, no cancellation, no hedge race): never set."""

    def set(self) -> None:
        pass


NEVER_SET = _NeverSet()


def create_dispatcher(
    project: Mapping[str, Any],
    *,
    clock: Any = None,
    random: Optional[Random] = None,
    redact: Optional[Redactor] = None,
    effects: Optional[Mapping[str, Callable[..., Any]]] = None,
    on_event: Optional[Callable[[Json], None]] = None,
    quota_tokens: Optional[float] = None,
    state: Optional[Mapping[str, Any]] = None,
    on_record_error: Optional[Callable[[BaseException], None]] = None,
) -> Dispatcher:
    """A dispatcher for a generated module's PROJECT (`failbook gen py`). The clock defaults to
    the real clock, the random source to a seeded one drawn from the operating system."""
    if not isinstance(project, Mapping) or project.get("format") != PROJECT_FORMAT:  # pyright: ignore[reportUnnecessaryIsInstance]
        got = project.get("format") if isinstance(project, Mapping) else type(project).__name__  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError("create_dispatcher: project has format " + repr(got) + ", not " + repr(PROJECT_FORMAT) + "; pass the PROJECT of a module that `failbook gen py` wrote for this version of failbook-runtime (regenerate it)")
    if "classify" not in project:
        raise TypeError("create_dispatcher: project has no classify; pass the PROJECT of a module that `failbook gen py` wrote (regenerate it)")
    missing = [name for name in UNIMPLEMENTED if (project.get("playbook") or EMPTY).get(name) is not None]
    if missing:
        raise NotImplementedError("create_dispatcher: the playbook sets " + ", ".join(missing) + ", which failbook_runtime for Python does not implement yet (SPEC 18, 22); dispatch these calls with the TypeScript runtime")
    shown = _remembered_redactor(redact if redact is not None else project["redact_text"])
    shared = Shared(project, clock if clock is not None else RealClock(), random if random is not None else system_random(), shown, quota_tokens, state, on_event, effects)
    return Dispatcher(shared, on_record_error)
