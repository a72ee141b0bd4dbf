"""The dispatcher (SPEC 4, 12, 18, 21), ported from failbook-runtime's engine/run.ts,
actions/*, retry.ts and envelope.ts, decision for decision and event for event.

One implementation serves both `dispatch` (blocking) and `adispatch` (asyncio): the run is
a generator that yields what it needs done (send an attempt, sleep, run an effect) and the
two drivers (./_dispatcher.py) do it, blocking or awaiting. So the two cannot drift apart."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Callable, Dict, Generator, List, Optional, Tuple, Union, cast

from ._breakers import Admission, CircuitBreakers, circuit_open_error
from ._hedging import CONCURRENT, FATAL, NON_FATAL, SEQUENTIAL, VIRTUAL, WON, Flight, Hedging, Hooks, race
from ._rate_limits import RateLimits, is_throttling, rate_limited_error
from ._policies import (
    AttemptTimeouts,
    HintReaders,
    RetryBudget,
    RetryQuota,
    RetryThrottle,
    apply_retry_after,
    read_retry_after,
    retry_after_policy_of,
    retry_delay,
)
from ._redact import REDACTED, Redactor, adapter_error_of, plain_headers, redact_deep, shown_error
from ._util import EMPTY, NOTHING, Random, glob_matches, idempotency_key, js_round, trace_id

Json = Dict[str, Any]
EMPTY_RESPONSE: Json = {"kind": "empty_response", "message": "the tool returned ok with no value"}
ATTEMPT_TIMEOUT: Json = {"kind": "attempt_timeout", "side_effect_state": "unknown"}
TIMED_OUT: Json = {"status": "error", "error": ATTEMPT_TIMEOUT}
NEXT_ATTEMPT = "next_attempt"


class Stopped(Exception):
    """Raised inside a run when the caller cancelled it or its deadline passed (SPEC 21)."""

    def __init__(self, reason: str, in_flight: bool) -> None:
        super().__init__("the dispatch was " + ("past its deadline" if reason == "deadline" else "cancelled"))
        self.reason = reason
        self.in_flight = in_flight


# What a run asks its driver to do ------------------------------------------------------


PLAIN = 0
MEASURED = 1
"""A hedge on a virtual clock: sent as if it started now and took its own time, then the clock put back; the driver answers (response, ms)."""
LAUNCHED = 2
"""A hedge on a real clock in asyncio: started as a task; the driver answers its handle (`cancel()` sets its signal and cancels it)."""


class Send:
    """Send attempt `n` of `call` (numbered as the attempt function numbers it) within `timeout_ms`; `how`: PLAIN, MEASURED or LAUNCHED."""

    __slots__ = ("call", "n", "key", "context", "timeout_ms", "how")

    def __init__(self, call: Json, n: int, key: str, context: Json, timeout_ms: Optional[float], how: int = PLAIN) -> None:
        self.call = call
        self.n = n
        self.key = key
        self.context = context
        self.timeout_ms = timeout_ms
        self.how = how


class Sleep:
    __slots__ = ("ms",)

    def __init__(self, ms: float) -> None:
        self.ms = ms


class Effect:
    """Run a production side effect (escalate, dead-letter, refresh_evidence, ...): awaited when it is a coroutine."""

    __slots__ = ("fn", "args")

    def __init__(self, fn: Callable[..., Any], args: List[Any]) -> None:
        self.fn = fn
        self.args = args


Request = Union[Send, Sleep, Effect]
Run = Generator[Request, Any, Any]


class Stop:
    """The caller's cancellation (an Event-like with is_set) and deadline on the dispatcher's clock."""

    def __init__(self, clock: Any, cancel: Any, deadline: Optional[float]) -> None:
        self.clock = clock
        self.cancel = cancel
        self.deadline = deadline
        self.why: Optional[str] = None

    def check(self) -> Optional[str]:
        if self.why is None:
            if self.cancel is not None and self.cancel.is_set():
                self.why = "cancelled"
            elif self.deadline is not None and self.clock.now() >= self.deadline:
                self.why = "deadline"
        return self.why


class Ledger:
    """What a run has spent: shared by the dispatches of a saga or of waves."""

    def __init__(self, started_at: float) -> None:
        self.started_at = started_at
        self.retries = 0
        self.backoff_ms: float = 0
        self.verdict_counts: Dict[str, int] = {}


class Shared:
    """What every dispatch of a dispatcher shares: rules, clock, random, redactor, counters."""

    def __init__(self, project: Mapping[str, Any], clock: Any, random: Random, redact: Redactor, quota_tokens: Optional[float], state: Optional[Mapping[str, Any]], on_event: Optional[Callable[[Json], None]], effects: Optional[Mapping[str, Callable[..., Any]]]) -> None:
        self.registry: Mapping[str, Any] = project["registry"]
        self.playbook: Mapping[str, Any] = project["playbook"]
        self.classify: Callable[[Optional[Mapping[str, object]], Optional[str]], str] = project["classify"]
        self.readers = HintReaders(project["hint_value"], project["field_hint"], project["http_date"])
        self.clock = clock
        self.random = random
        self.redact = redact
        self.on_event = on_event
        self.effects: Mapping[str, Callable[..., Any]] = effects or {}
        playbook = self.playbook
        self.quota = None if playbook.get("retry_quota") is None else RetryQuota(playbook["retry_quota"], quota_tokens)
        self.timeouts = AttemptTimeouts.of(playbook)
        self.budget = None if playbook.get("retry_budget") is None else RetryBudget(playbook["retry_budget"])
        throttling = (state or EMPTY).get("throttling")
        self.throttle = None if playbook.get("retry_throttling") is None else RetryThrottle(playbook["retry_throttling"], None if throttling is None else throttling.get("tokens"))
        self.breakers = None if playbook.get("circuit_breakers") is None else CircuitBreakers(playbook["circuit_breakers"], clock.now(), (state or EMPTY).get("breakers"))
        self.rate_limits = None if playbook.get("rate_limits") is None else RateLimits(playbook["rate_limits"], clock.now(), lambda: clock.now() / 1000)
        self.hedging = None if playbook.get("hedging") is None else Hedging(playbook["hedging"])
        self.verdicts = verdicts_by_code(self.registry)
        self.tools: Dict[str, "ToolFacts"] = {}

    def tool(self, tool: str) -> "ToolFacts":
        facts = self.tools.get(tool)
        if facts is None:
            idempotent = tool_idempotent(self.playbook, tool)
            limits = self.rate_limits
            paced = limits is not None and len(limits.of(tool)) > 0
            facts = ToolFacts(self.redact(tool), idempotent, None if self.timeouts is None else self.timeouts.for_tool(tool), paced, paced and limits is not None and limits.listens(tool))
            if len(self.tools) >= 4096:
                self.tools.clear()
            self.tools[tool] = facts
        return facts


_verdicts_of: List[Any] = [None, None]
"""The last registry's verdicts by code, with that registry: a simulation makes a dispatcher per fixture over one registry."""


def verdicts_by_code(registry: Mapping[str, Any]) -> Dict[str, Json]:
    """A registry's verdicts by code (the first of a code wins), worked out once for the same registry."""
    listed = registry["verdicts"]
    if _verdicts_of[0] is listed:
        return _verdicts_of[1]
    by_code: Dict[str, Json] = {}
    for v in listed:
        by_code.setdefault(v["code"], v)
    _verdicts_of[0] = listed
    _verdicts_of[1] = by_code
    return by_code


class ToolFacts:
    __slots__ = ("shown", "idempotent", "timeout_ms", "paced", "listened")

    def __init__(self, shown: str, idempotent: bool, timeout_ms: Optional[float], paced: bool, listened: bool) -> None:
        self.shown = shown
        self.idempotent = idempotent
        self.timeout_ms = timeout_ms
        self.paced = paced
        """Rate limits pace its attempts (SPEC 22)."""
        self.listened = listened
        """A rate limit reads its answers (headers, throttling)."""


_idempotent_of: List[Any] = [None, {}]
"""The last playbook's `tools:` with whether each tool met so far is idempotent by it: a simulation makes a dispatcher per fixture over one playbook."""


def tool_idempotent(playbook: Mapping[str, Any], tool: str) -> bool:
    """`is_idempotent` of a call that says nothing itself, worked out once per tool for the same `tools:`."""
    tools = playbook.get("tools")
    if _idempotent_of[0] is not tools:
        _idempotent_of[0] = tools
        _idempotent_of[1] = {}
    known = cast(Dict[str, bool], _idempotent_of[1])
    idempotent = known.get(tool)
    if idempotent is None:
        idempotent = is_idempotent(playbook, {"tool": tool})
        if len(known) >= 4096:
            known.clear()
        known[tool] = idempotent
    return idempotent


def is_idempotent(playbook: Mapping[str, Any], call: Mapping[str, Any]) -> bool:
    if call.get("idempotent") is False:
        return False
    for glob, entry in (playbook.get("tools") or EMPTY).items():
        if entry.get("idempotent") is False and glob_matches(glob, call["tool"]):
            return False
    return True


class Turn:
    """One call (or its fallback) from attempt to attempt."""

    def __init__(self, call: Json, shown_key: str, shown_tool: str, shown_id: str, idempotent: bool, depth: int, key: str, timeout_ms: Optional[float], tool: ToolFacts) -> None:
        self.call = call
        self.tool = tool
        self.shown_key = shown_key
        self.shown_tool = shown_tool
        self.shown_id = shown_id
        self.idempotent = idempotent
        self.depth = depth
        self.retries = 0
        self.last_delay: Optional[float] = None
        self.retries_of: Dict[str, int] = {}
        self.previous_delay: Dict[str, float] = {}
        self.hint: Optional[str] = None
        self.rebuilt: Optional[Json] = None
        self.key = key
        self.timeout_ms = timeout_ms
        self.sent = 0
        self.hedged: Optional[str] = None
        """A hedged call's last race ran out of hedges (`spent`), or retry throttling refused one (`throttled`): its retries are its hedges (SPEC 18)."""


class End:
    """How one call chain ended, before on_exhausted and before it is dressed as an outcome."""

    def __init__(self, turn: Turn, kind: str, reason: Optional[str] = None, queue: Optional[str] = None, replan: bool = False, exhausted: bool = False, stopped: bool = False) -> None:
        self.kind = kind
        self.call = turn.call
        self.shown_tool = turn.shown_tool
        self.shown_id = turn.shown_id
        self.key = turn.shown_key
        self.idempotent = turn.idempotent
        self.reason = reason
        self.queue = queue
        self.replan = replan
        self.exhausted = exhausted
        self.stopped = stopped


class Failed:
    __slots__ = ("error",)

    def __init__(self, error: Optional[Json]) -> None:
        self.error = error


class DispatchRun:
    def __init__(self, shared: Shared, ledger: Optional[Ledger], run_id: str, label: Optional[str], stop: Optional[Stop], trace: Optional[str], concurrent: bool = False, started_at: Optional[float] = None) -> None:
        """`started_at`: when the dispatch started (default now); a run made after its first attempt answered started before it."""
        self.s = shared
        # How a hedged call races (./_hedging.py): measured on a virtual clock, tasks in asyncio, one at a time when blocking.
        self.hedge_mode = VIRTUAL if hasattr(shared.clock, "rewind") else CONCURRENT if concurrent else SEQUENTIAL
        self.events: List[Json] = []
        self.errors: List[Json] = []
        self.attempts = 0
        self.retried = 0
        self.quota_costs: List[float] = []
        self.verdict: Optional[str] = None
        self.error: Optional[Json] = None
        self.started_at = shared.clock.now() if started_at is None else started_at
        self.ledger = ledger if ledger is not None else Ledger(self.started_at)
        self.ledger_start = self.ledger.started_at
        self.run_id = run_id
        self.label = label
        self.retrying = False
        self.stop = stop
        self.trace = trace
        self.last_turn: Optional[Turn] = None
        self.on_blocked: Optional[Callable[[bool, Json], None]] = None

    @property
    def escalation_queue(self) -> str:
        return self.s.redact(self.s.playbook.get("escalation_queue", "default"))

    def emit(self, body: Json) -> None:
        t = self.s.clock.now() - self.ledger_start
        event: Json = {"t": t, "type": body["type"]}
        if self.label is not None:
            event["call"] = self.label
        # The body's members after these, in its order (a member already in place keeps its place).
        event.update(body)
        self.events.append(event)
        if self.s.on_event is not None:
            self.s.on_event(event)

    def check_stop(self, in_flight: bool) -> None:
        if self.stop is not None:
            why = self.stop.check()
            if why is not None:
                raise Stopped(why, in_flight)

    def turn_of(self, call: Json, depth: int, key: Optional[str] = None) -> Turn:
        """`key`: the call's idempotency key when worked out already (the dispatcher's direct path)."""
        tool = self.s.tool(call["tool"])
        if key is None:
            key = idempotency_key(self.run_id, call)
        shown_key = key if call.get("idempotency_key") is None else self.s.redact(key)
        idempotent = call.get("idempotent") is not False and tool.idempotent
        return Turn(call, shown_key, tool.shown, self.s.redact(str(call["id"])), idempotent, depth, key, tool.timeout_ms, tool)

    # The run loop -----------------------------------------------------------------------

    def call(self, call: Json, depth: int, first: Optional[Tuple[float, Any, str]] = None) -> Run:
        """One call (and its fallback), attempt by attempt, until an action ends it; `first`: when
        its first attempt was sent and answered already (the dispatcher's direct path), then, what,
        and with which idempotency key."""
        turn = self.turn_of(call, depth, None if first is None else first[2])
        # A call that is not idempotent is never hedged (SPEC 18).
        hedging = self.s.hedging
        if hedging is not None and turn.idempotent and hedging.hedges(call["tool"]):
            return (yield from self.hedged_call(hedging, turn))
        breakers = self.s.breakers
        n = 1
        while True:
            refused: Optional[str] = None
            if turn.tool.paced:
                refused = yield from self.pace(turn)
            if refused is not None:
                admission = Admission("rate_limit:" + refused, [], [])
                answer = self.short_circuited(n, turn, rate_limited_error(refused))
                step = yield from self.after_failure(turn, n, self.classified(n, turn, answer.error, admission))
                if step is not NEXT_ATTEMPT:
                    return step
                n += 1
                continue
            self.last_turn = turn
            self.check_stop(False)
            before = self.s.clock.now() if first is None else first[0]
            admission = None if breakers is None or first is not None else breakers.admit(call["tool"], turn.shown_tool, before, self.emit)
            if admission is not None and admission.blocked_by is not None:
                answer = self.short_circuited(n, turn, circuit_open_error(admission.blocked_by))
            else:
                self.attempts += 1
                turn.sent += 1
                try:
                    if first is not None:
                        response = first[1]
                        first = None
                    else:
                        response = yield Send(turn.call, turn.sent, turn.key, self.context_of(turn), turn.timeout_ms)
                    self.check_stop(True)
                except BaseException:
                    # The attempt never answered (its function raised, or the dispatch stopped): give back any probe it held.
                    if admission is not None and breakers is not None:
                        breakers.abandon(admission, self.s.clock.now())
                    raise
                answer = self.answer(turn, n, before, response, admission)
                if isinstance(answer, End):
                    return answer
            step = yield from self.after_failure(turn, n, self.classified(n, turn, answer.error, admission))
            if step is not NEXT_ATTEMPT:
                return step
            n += 1

    def hedged_call(self, hedging: Hedging, turn: Turn) -> Run:
        """A hedged call (SPEC 18): race after race (a rebuild makes another), each numbered after the hedges before it."""
        n = 1
        while True:
            raced = yield from self.race(hedging, turn, n)
            if isinstance(raced, End):
                return raced
            failure, last = raced
            step = yield from self.after_failure(turn, failure["n"], failure)
            if step is not NEXT_ATTEMPT:
                return step
            n = last + 1

    def race(self, hedging: Hedging, turn: Turn, first: int) -> Generator[Request, Any, Union[End, Tuple[Json, int]]]:
        """A hedged call's attempts (SPEC 18): ./_hedging.py runs the race; each hedge is admitted
        by the rate limits and breakers, sent within its timeout, observed and classified here.
        The winner's answer ends the call; a failure that ends the race goes on to its action,
        which may not retry (`turn.hedged`). Also answers the number of the last hedge sent."""
        s = self.s
        call = turn.call
        breakers = s.breakers
        throttle = s.throttle
        mode = self.hedge_mode
        admissions: Dict[int, Optional[Admission]] = {}
        refusals: Dict[int, Json] = {}
        held: Dict[int, Admission] = {}
        won: List[End] = []
        failed: List[Json] = []

        def send(i: int) -> Generator[Request, Any, Flight]:
            self.last_turn = turn
            self.check_stop(False)
            now = s.clock.now()
            flight = Flight(i, now)
            admission: Optional[Admission] = None
            refusal: Optional[Json] = None
            # A hedge never waits for a token: with none, it is not sent (SPEC 22).
            limited = self.pace_hedge(turn) if turn.tool.paced else None
            if limited is not None:
                admission = Admission("rate_limit:" + limited, [], [])
                refusal = rate_limited_error(limited)
            elif breakers is not None:
                admission = breakers.admit(call["tool"], turn.shown_tool, now, self.emit)
                if admission.blocked_by is not None:
                    refusal = circuit_open_error(admission.blocked_by)
            admissions[i] = admission
            if refusal is not None:
                refusals[i] = refusal
                flight.answer_at = now
                flight.ready = mode != VIRTUAL
                return flight
            self.attempts += 1
            turn.sent += 1
            context = self.context_of(turn)
            if i > 1:
                context = {**context, "hedge": True}
            how = MEASURED if mode == VIRTUAL else LAUNCHED if mode == CONCURRENT else PLAIN
            if admission is not None:
                held[i] = admission
            answer = yield Send(call, turn.sent, turn.key, context, turn.timeout_ms, how)
            if how == MEASURED:
                flight.value, ms = answer
                flight.answer_at = now + ms
            elif how == LAUNCHED:
                flight.handle = answer
            else:
                flight.value = answer
                flight.ready = True
            return flight

        def judge(flight: Flight) -> str:
            i = flight.i
            n = first + i - 1
            admission = admissions.get(i)
            held.pop(i, None)
            refusal = refusals.get(i)
            answer = self.short_circuited(n, turn, refusal, i > 1) if refusal is not None else self.answer(turn, n, flight.sent_at, flight.value, admission, i > 1)
            if isinstance(answer, End):
                won.append(answer)
                return WON
            failure = self.classified(n, turn, answer.error, admission)
            failed.append(failure)
            verdict = s.verdicts.get(failure["code"])
            return NON_FATAL if hedging.is_non_fatal(None if verdict is None else verdict.get("class"), failure["code"]) else FATAL

        def cancelled(flight: Flight) -> None:
            i = flight.i
            event: Json = {"type": "hedge_cancelled", "attempt": first + i - 1}
            if i > 1:
                event["hedge"] = True
            self.emit(event)
            admission = held.pop(i, None)
            if admission is not None and breakers is not None:
                breakers.abandon(admission, s.clock.now())

        hooks = Hooks()
        hooks.send = send
        hooks.judge = judge
        hooks.may_hedge = lambda: throttle is None or throttle.allows_retry()
        hooks.cancelled = cancelled
        try:
            ended = yield from race(s.clock, hedging, hooks, mode, Sleep)
        except BaseException:
            # A hedge raised, or the dispatch stopped: the hedges never answered give back any probe they held.
            if breakers is not None:
                for admission in held.values():
                    breakers.abandon(admission, s.clock.now())
            raise
        self.check_stop(True)
        if ended.how == WON:
            end = won[-1]
            if end.kind != "needs_input":
                end.kind = "succeeded" if first == 1 and not failed else "recovered"
            return end
        turn.hedged = "throttled" if ended.throttled else "spent"
        return (failed[-1], first + ended.sent - 1)

    def refused_by_breaker(self, tool: str) -> bool:
        """An attempt an open breaker will refuse takes no token: it is never sent (SPEC 22)."""
        breakers = self.s.breakers
        return breakers is not None and breakers.refuses(tool, self.s.clock.now())

    def pace_hedge(self, turn: Turn) -> Optional[str]:
        """A hedge's token (SPEC 22): taken now (None), or the name of the limit that has none (the hedge is not sent)."""
        s = self.s
        limits = s.rate_limits
        assert limits is not None
        tool: str = turn.call["tool"]
        if self.refused_by_breaker(tool):
            return None
        decision = limits.pace(tool, s.clock.now(), None if self.stop is None else self.stop.deadline, False)
        limit: Optional[str] = decision["limit"] if decision["kind"] == "refused" else None
        if limit is None:
            for lim in limits.adaptive_of(tool):
                limiter = lim.adaptive
                if limiter is not None and not limiter.try_acquire():
                    limit = lim.name
                    break
        if limit is not None:
            self.emit({"type": "rate_limited", "limit": s.redact(limit)})
        return limit

    def context_of(self, turn: Turn) -> Json:
        context: Json = {"fallback": turn.depth > 0}
        if turn.hint is not None:
            context["hint"] = turn.hint
        if turn.rebuilt is not None and turn.rebuilt["action"] == "refresh_credentials":
            context["refreshed"] = "credentials"
        return context

    def pace(self, turn: Turn) -> Generator[Request, Any, Optional[str]]:
        """Rate limits (SPEC 22): a token of each limit over the tool before an attempt is sent,
        waiting for it when it is due; the name of the limit that refused it (empty with
        `when_empty: fail`, or a wait past `max_wait_ms` or the deadline), else None."""
        s = self.s
        limits = s.rate_limits
        assert limits is not None
        clock = s.clock
        tool: str = turn.call["tool"]
        if self.refused_by_breaker(tool):
            return None
        deadline = None if self.stop is None else self.stop.deadline
        decision = limits.pace(tool, clock.now(), deadline)
        if decision["kind"] == "refused":
            self.emit({"type": "rate_limited", "limit": s.redact(decision["limit"])})
            return decision["limit"]
        adaptive = limits.adaptive_of(tool)
        behind = any(lim.adaptive is not None and lim.adaptive.enabled for lim in adaptive)
        if decision["wait_ms"] == 0 and not behind:
            return None
        if decision["wait_ms"] > 0:
            self.emit({"type": "rate_limit_waited", "limit": s.redact(decision["limit"]), "ms": decision["wait_ms"]})
            yield Sleep(decision["wait_ms"])
            self.check_stop(False)
        for lim in adaptive:
            limiter = lim.adaptive
            assert limiter is not None
            if limiter.try_acquire():
                continue
            # Never a wait past max_wait_ms or the deadline (SPEC 22): refused before it starts.
            max_wait = lim.policy.get("max_wait_ms")
            bound = min(math.inf if max_wait is None else max_wait, math.inf if deadline is None else deadline - clock.now())
            if lim.policy.get("when_empty") == "fail" or limiter.next_wait() > bound:
                self.emit({"type": "rate_limited", "limit": s.redact(lim.name)})
                return lim.name
            # The AWS SDK's own loop: wait, refill, until a token is there (a wait under 1 ms sleeps 1 ms, as its setTimeout does).
            steps = limiter.acquire()
            try:
                while True:
                    ms = next(steps)
                    yield Sleep(max(1, ms))
                    self.check_stop(False)
            except StopIteration as done:
                waited: float = done.value
            self.emit({"type": "rate_limit_waited", "limit": s.redact(lim.name), "ms": js_round(waited)})
        return None

    def heard(self, tool: str, headers: Optional[Mapping[str, Any]], throttling: bool) -> None:
        """The rate limits over a tool hear an answer: its quota headers, whether it was throttled (SPEC 22)."""
        s = self.s
        limits = s.rate_limits
        assert limits is not None
        epoch = getattr(s.clock, "epoch_ms", None)
        now = s.clock.now()

        def ignored(limit: str, header: str, value: str) -> None:
            self.emit({"type": "rate_limit_header_ignored", "limit": s.redact(limit), "header": s.redact(header), "value": s.redact(value)})

        limits.answered(tool, headers, throttling, now, epoch() if epoch is not None else now, s.readers.hint_value, ignored)

    def short_circuited(self, n: int, turn: Turn, error: Json, hedge: bool = False) -> Failed:
        """An attempt an open breaker did not let through: an `attempt` event, not sent and not counted; `hedge`: a hedge after the first attempt."""
        self.error = error
        if self.on_blocked is not None:
            self.on_blocked(turn.depth > 0, error)
        event: Json = {"type": "attempt", "n": n, "status": "error", "idempotency_key": turn.shown_key, "latency_ms": 0, "error_kind": error["kind"], "short_circuited": True}
        if hedge:
            event["hedge"] = True
        self.emit(event)
        self.errors.append({"attempt": n, "t": self.s.clock.now() - self.ledger_start, "tool": turn.shown_tool, "error": error})
        return Failed(error)

    def answer(self, turn: Turn, n: int, before: float, response: Any, admission: Optional[Admission], hedge: bool = False) -> Union[End, Failed]:
        """What an attempt's answer means: the end of its call when it did not fail, else its failure; `hedge`: a hedge after the first attempt."""
        now = self.s.clock.now()
        latency = now - before
        observed = observe(response, self.s.playbook.get("empty_response_is_failure", False))
        if observed[0] == "ok":
            ok: Json = {"type": "attempt", "n": n, "status": "ok", "idempotency_key": turn.shown_key, "latency_ms": latency}
            if hedge:
                ok["hedge"] = True
            self.emit(ok)
            self.answered(admission, turn, None, headers_of(response))
            return End(turn, "succeeded" if n == 1 else "recovered")
        if observed[0] == "needs_input":
            asked: Json = {"type": "attempt", "n": n, "status": "needs_input", "idempotency_key": turn.shown_key, "latency_ms": latency}
            if hedge:
                asked["hedge"] = True
            self.emit(asked)
            self.answered(admission, turn, None, headers_of(response))
            question = observed[1]
            return End(turn, "needs_input", reason=None if question is None else self.s.redact(str(question)))
        raw: Optional[Json] = observed[1]
        error = None if raw is None else shown_error(raw, self.s.redact)
        self.error = error
        body: Json = {"type": "attempt", "n": n, "status": "error", "idempotency_key": turn.shown_key, "latency_ms": latency}
        if error is not None:
            body["error_kind"] = error["kind"]
            # The shown error keeps a status only when it is an integer in 100-999, as the TypeScript runtime's event does.
            if "http_status" in error:
                body["http_status"] = error["http_status"]
        if hedge:
            body["hedge"] = True
        self.emit(body)
        self.errors.append({"attempt": n, "t": self.s.clock.now() - self.ledger_start, "tool": turn.shown_tool, "error": error})
        return Failed(raw)

    def answered(self, admission: Optional[Admission], turn: Turn, failure: Optional[Json], headers: Optional[Mapping[str, Any]] = None, throttling: bool = False) -> None:
        """An attempt answered: the rate limits reading its tool's answers, the breakers guarding it and retry throttling hear how (`failure` None: it did not fail)."""
        if turn.tool.listened and (admission is None or admission.blocked_by is None):
            self.heard(turn.call["tool"], headers, throttling)
        if admission is not None and admission.blocked_by is None and self.s.breakers is not None:
            self.s.breakers.record(admission, turn.shown_tool, self.s.clock.now(), failure, self.emit)
        throttle = self.s.throttle
        if throttle is None:
            return
        if failure is None:
            throttle.succeeded()
        elif failure["retryable"]:
            throttle.failed()

    def classified(self, n: int, turn: Turn, error: Optional[Json], admission: Optional[Admission]) -> Json:
        code = self.s.classify(error, turn.call["tool"]) if error is not None else self.s.registry["fallback"]
        verdicts = self.s.playbook["verdicts"]
        action: Optional[Json] = verdicts.get(code)
        self.verdict = code
        self.emit({"type": "failure_classified", "verdict": code, "attempt": n, "action": None if action is None else action["action"]})
        if (admission is None or admission.blocked_by is None) and (self.s.throttle is not None or self.s.breakers is not None or turn.tool.listened):
            verdict = self.s.verdicts.get(code)
            kind = None if error is None else error.get("kind")
            verdict_class = None if verdict is None else verdict.get("class")
            self.answered(admission, turn, {"class": verdict_class, "retryable": verdict is not None and verdict.get("retryable") is True, "kind": kind}, headers_of(error), is_throttling(verdict_class, error))
        return {"code": code, "action": action, "n": n, "error": error}

    def after_failure(self, turn: Turn, n: int, failure: Json) -> Run:
        code: str = failure["code"]
        action: Optional[Json] = failure["action"]
        counts = self.ledger.verdict_counts
        seen = counts.get(code, 0) + 1
        counts[code] = seen
        ceiling = (self.s.playbook.get("budgets") or EMPTY).get("same_verdict_ceiling")
        if ceiling is not None and seen >= ceiling:
            self.emit({"type": "budget_exhausted", "budget": "same_verdict_ceiling", "limit": ceiling, "verdict": code})
            return End(turn, "escalated", queue=self.escalation_queue, reason="same_verdict_ceiling")
        if turn.rebuilt is not None:
            return End(turn, "deprecated", reason="post-refresh retry still failing", replan=True)
        if action is None:
            return End(turn, "escalated", queue=self.escalation_queue, reason="no_action")
        return (yield from self.run_action(turn, failure, action))

    # The actions (SPEC 3.1) ---------------------------------------------------------------

    def run_action(self, turn: Turn, failure: Json, action: Json) -> Run:
        name = action["action"]
        redact = self.s.redact
        if name in ("retry_with_backoff", "retry_with_hint"):
            return (yield from self.retry(turn, failure, action))
        if name in ("refresh_evidence", "restore_checkpoint", "refresh_credentials"):
            return (yield from self.rebuild(turn, action))
        if name == "issue_reversal":
            token = turn.call.get("reversal_token")
            if token is None or token == "":
                self.emit({"type": "reversal_refused", "reason": "no reversal_token on the call"})
                return End(turn, "exhausted", reason="no_reversal_token", exhausted=True)
            effect = self.s.effects.get("issue_reversal")
            if effect is not None:
                yield Effect(effect, [turn.call, token, action["reason"]])
            self.emit({"type": "reversal_issued", "reversal_token": REDACTED, "reason": redact(action["reason"])})
            return End(turn, "reversed", reason=redact(action["reason"]))
        if name == "fallback":
            if turn.depth > 0:
                return End(turn, "failed", reason="fallback_chain")
            self.emit({"type": "fallback_started", "tool": redact(action["tool"]), "from": turn.shown_tool})
            sub: End = yield from self.call({**turn.call, "tool": action["tool"]}, turn.depth + 1)
            if sub.kind == "succeeded":
                sub.kind = "recovered"
            return sub
        if name == "escalate_to_human":
            return End(turn, "escalated", queue=redact(action["queue"]))
        if name == "deprecate_tool_call":
            return End(turn, "deprecated", reason=redact(action["reason"]), replan=action["replan"])
        if name == "fail":
            message = action.get("message")
            return End(turn, "failed", reason=None if message is None else redact(message))
        if name == "dead_letter":
            return End(turn, "dead_lettered", queue=redact(action["queue"]))
        raise ValueError("unhandled action: " + str(name))

    def rebuild(self, turn: Turn, action: Json) -> Run:
        name = action["action"]
        if name == "refresh_evidence":
            self.emit({"type": "evidence_refreshed", "evidence_refs": [self.s.redact(r) for r in turn.call.get("evidence_refs") or NOTHING]})
        elif name == "restore_checkpoint":
            self.emit({"type": "checkpoint_restored"})
        else:
            self.emit({"type": "credentials_refreshed"})
        effect = self.s.effects.get(name)
        if effect is not None:
            yield Effect(effect, [turn.call])
        if action["then"] == "abort":
            return End(turn, "deprecated", reason=name + " then abort", replan=True)
        turn.rebuilt = action
        turn.hint = None
        return NEXT_ATTEMPT

    def retry(self, turn: Turn, failure: Json, action: Json) -> Run:
        s = self.s
        playbook = s.playbook
        code: str = failure["code"]
        error: Optional[Json] = failure["error"]
        verdict = s.verdicts.get(code)
        per_call = playbook.get("backoff_index") == "per_call"
        honor = playbook.get("honor_retry_after", True)
        policy = retry_after_policy_of(playbook, action)
        hint_ms: Optional[int] = None
        hint_invalid = False
        if honor:
            epoch = getattr(s.clock, "epoch_ms", None)
            reading = read_retry_after(s.readers, error, policy, epoch() if epoch is not None else s.clock.now())
            for header, value in reading.unreadable:
                self.emit({"type": "retry_after_unreadable", "header": s.redact(header), "value": s.redact(value)})
            hint_ms = reading.hint_ms
            hint_invalid = reading.invalid
        decision = self.decide(turn, action, verdict, error, code, per_call, policy if honor else False, hint_ms, hint_invalid)
        if decision["kind"] != "retry":
            end, reason, queue, event = refused_retry(playbook, decision, error, verdict, code)
            self.emit(event)
            return End(turn, end, reason=reason, exhausted=end == "exhausted", queue=None if queue is None else s.redact(queue))
        delay: int = decision["delay_ms"]
        deadline = None if self.stop is None else self.stop.deadline
        if deadline is not None and s.clock.now() + delay > deadline:
            self.emit({"type": "retry_suppressed", "reason": "deadline", "verdict": code})
            return End(turn, "exhausted", reason="deadline", exhausted=True, stopped=True)
        turn.retries_of[code] = turn.retries_of.get(code, 0) + 1
        turn.previous_delay[code] = delay
        turn.retries += 1
        turn.last_delay = delay
        self.count_retry(delay, decision["quota_cost"])
        turn.hint = s.redact(action["hint"]) if action["action"] == "retry_with_hint" else None
        event: Json = {"type": "retry_scheduled", "attempt": failure["n"] + 1, "delay_ms": delay, "verdict": code}
        if turn.hint is not None:
            event["hint"] = turn.hint
        self.emit(event)
        yield Sleep(delay)
        self.check_stop(False)
        return NEXT_ATTEMPT

    def decide(self, turn: Turn, action: Json, verdict: Optional[Json], error: Optional[Json], code: str, per_call: bool, retry_after: Any, hint_ms: Optional[int], hint_invalid: bool) -> Json:
        s = self.s
        budgets: Json = s.playbook.get("budgets") or {}
        ledger = self.ledger
        if not turn.idempotent:
            return {"kind": "suppressed", "reason": "non_idempotent", "end": "failed"}
        if error is not None and error.get("side_effect_state") == "committed":
            return {"kind": "suppressed", "reason": "side_effect_committed", "end": "failed"}
        if verdict is None or not verdict.get("retryable"):
            return {"kind": "suppressed", "reason": "not_retryable", "end": "failed"}
        if turn.hedged is not None:
            # A hedged call's retries are its hedges (SPEC 18): spent, or refused by retry throttling.
            if turn.hedged == "throttled" and s.throttle is not None:
                return {"kind": "retry_throttled", "tokens": s.throttle.tokens, "threshold": s.throttle.threshold}
            return {"kind": "suppressed", "reason": "hedged", "end": "exhausted"}
        cls = s.registry["classes"].get(verdict["class"])
        class_max = None if cls is None else cls.get("max_retries")
        of_verdict = turn.retries_of.get(code, 0)
        if class_max is not None and class_max < action["max_retries"]:
            if of_verdict >= class_max:
                return {"kind": "suppressed", "reason": "class_max_retries", "end": "exhausted"}
        elif of_verdict >= action["max_retries"]:
            return {"kind": "suppressed", "reason": "max_retries", "end": "exhausted"}
        per_call_limit = budgets.get("retries_per_call")
        if per_call_limit is not None and turn.retries >= per_call_limit:
            return {"kind": "budget", "budget": "retries_per_call", "limit": per_call_limit}
        if budgets.get("retries") is not None and ledger.retries >= budgets["retries"]:
            return {"kind": "budget", "budget": "retries", "limit": budgets["retries"]}
        quota_cost = None
        if s.quota is not None:
            quota_cost = s.quota.cost_of(verdict.get("class"), None if error is None or not isinstance(error.get("kind"), str) else error["kind"])
            if not s.quota.can_take(quota_cost):
                return {"kind": "quota", "cost": quota_cost, "tokens": s.quota.tokens}
        budget, throttle = s.budget, s.throttle
        if budget is not None and not budget.allows(self.retrying):
            return {"kind": "retry_budget", "retries_in_progress": budget.retries, "limit": budget.limit(), "calls_in_progress": budget.calls}
        if throttle is not None and not throttle.allows_retry():
            return {"kind": "retry_throttled", "tokens": throttle.tokens, "threshold": throttle.threshold}
        index = turn.retries if per_call else of_verdict
        previous = turn.last_delay if per_call else turn.previous_delay.get(code)
        delay = retry_delay(action, index, previous, s.random)
        if retry_after is not False:
            if hint_invalid:
                return {"kind": "suppressed", "reason": "retry_after_invalid", "end": "exhausted"}
            how, ms = apply_retry_after(delay, hint_ms, retry_after)
            if how == "give_up":
                return {"kind": "suppressed", "reason": "retry_after_too_long", "end": "exhausted"}
            delay = ms
        if budgets.get("retry_seconds") is not None and ledger.backoff_ms + delay > budgets["retry_seconds"] * 1000:
            return {"kind": "budget", "budget": "retry_seconds", "limit": budgets["retry_seconds"]}
        elapsed = s.clock.now() - ledger.started_at
        if budgets.get("wall_ms") is not None and elapsed + delay > budgets["wall_ms"]:
            return {"kind": "budget", "budget": "wall_ms", "limit": budgets["wall_ms"]}
        return {"kind": "retry", "delay_ms": delay, "quota_cost": quota_cost}

    def count_retry(self, delay: float, quota_cost: Optional[float]) -> None:
        self.ledger.retries += 1
        self.ledger.backoff_ms += delay
        self.retried += 1
        if quota_cost is not None and self.s.quota is not None:
            self.s.quota.take(quota_cost)
            self.quota_costs.append(quota_cost)
        if not self.retrying:
            self.retrying = True
            if self.s.budget is not None:
                self.s.budget.retry_started()

    # The end ------------------------------------------------------------------------------

    def stopped(self, stop: Stopped, first: Json) -> End:
        self.emit({"type": "dispatch_stopped", "reason": stop.reason, "in_flight": stop.in_flight})
        if stop.in_flight:
            self.error = {"kind": "deadline_exceeded" if stop.reason == "deadline" else "cancelled", "side_effect_state": "unknown"}
        turn = self.last_turn if self.last_turn is not None else self.turn_of(first, 0)
        return End(turn, "exhausted", reason=stop.reason, exhausted=True, stopped=True)

    def finish(self, end: End) -> Json:
        s = self.s
        playbook = s.playbook
        if s.quota is not None and end.kind in ("succeeded", "recovered"):
            s.quota.settle(self.quota_costs)
        kind = end.kind
        queue = end.queue
        on_exhausted = playbook.get("on_exhausted")
        if kind == "exhausted" and on_exhausted is not None and not end.stopped:
            kind = "escalated" if on_exhausted["action"] == "escalate_to_human" else "dead_lettered"
            queue = self.escalation_queue if on_exhausted.get("queue") is None else s.redact(on_exhausted["queue"])
        if kind == "escalated" and queue is not None:
            self.emit({"type": "escalated", "queue": queue, "reason": end.reason})
        if kind == "dead_lettered" and queue is not None:
            self.emit({"type": "dead_lettered", "queue": queue})
        facts: Json = {
            "kind": kind,
            "tool": end.shown_tool,
            "key": end.key,
            "idempotent": end.idempotent,
            "verdict": self.verdict,
            "error": self.error,
            "reason": end.reason,
            "replan": end.replan,
            "queue": queue,
            "attempts": self.attempts,
            "retried": self.retried,
            "elapsed_ms": s.clock.now() - self.started_at,
            "trace_id": self.trace,
        }
        packet = build_packet(s, facts, end.shown_id, queue) if kind == "escalated" and queue is not None else None
        outcome: Json = {
            "kind": kind,
            "verdict": self.verdict,
            "attempts": self.attempts,
            "retried": self.retried,
            "elapsed_ms": facts["elapsed_ms"],
            "reason": end.reason,
            "queue": queue,
            "replan": end.replan,
            "exhausted": end.exhausted,
            "envelope": build_envelope(s, facts),
            "packet": packet,
        }
        if kind == "dead_lettered" and queue is not None:
            outcome["dead_letters"] = [
                {
                    "queue": queue,
                    "call": redact_deep(end.call, s.redact),
                    "step": None,
                    "errors": self.errors,
                    "envelope": outcome["envelope"],
                    "first_attempt_ms": self.errors[0]["t"] if self.errors else None,
                    "dead_lettered_ms": s.clock.now() - self.ledger_start,
                }
            ]
        return {"outcome": outcome, "events": self.events, "errors": self.errors, "idempotency_key": end.key}

    def apply_effects(self, outcome: Json) -> Run:
        effects = self.s.effects
        if outcome["packet"] is not None and effects.get("escalate") is not None:
            yield Effect(effects["escalate"], [outcome["packet"]])
        if effects.get("dead_letter") is not None:
            for entry in outcome.get("dead_letters") or NOTHING:
                yield Effect(effects["dead_letter"], [entry])


def headers_of(answer: Any) -> Optional[Mapping[str, Any]]:
    """A response's or an error's headers, as a mapping (any other shape made plain), or None."""
    # A dict first: isinstance against Mapping is an ABC check.
    if type(answer) is not dict and not isinstance(answer, Mapping):
        return None
    headers: object = cast(Mapping[str, Any], answer).get("headers")
    if headers is None:
        return None
    if type(headers) is dict or isinstance(headers, Mapping):
        return cast(Mapping[str, Any], headers)
    return None if isinstance(headers, (str, int, float, bool)) else plain_headers(headers)


def observe(response: Any, empty_is_failure: bool) -> Any:
    if type(response) is not dict and not isinstance(response, Mapping):
        raise TypeError("failbook: the attempt function returned an invalid response (" + ("None" if response is None else type(response).__name__) + '); return {"status": "ok" | "error" | "needs_input", ...}')
    r = cast(Mapping[str, Any], response)
    status = r.get("status")
    if status == "ok":
        if empty_is_failure and r.get("value") is None:
            return ("failure", EMPTY_RESPONSE)
        return ("ok", None)
    if status == "needs_input":
        return ("needs_input", r.get("question"))
    if status == "error":
        return ("failure", adapter_error_of(r.get("error")))
    what = "an unknown status" if isinstance(status, str) else "a mapping without a status"
    raise TypeError("failbook: the attempt function returned an invalid response (" + what + '); return {"status": "ok" | "error" | "needs_input", ...}')


def refused_retry(playbook: Mapping[str, Any], decision: Json, error: Optional[Json], verdict: Optional[Json], code: str) -> Any:
    kind = decision["kind"]
    if kind == "suppressed":
        event: Json = {"type": "retry_suppressed", "reason": decision["reason"], "verdict": code}
        queue = (playbook.get("on_unknown_side_effect") or EMPTY).get("queue")
        state = (error or EMPTY).get("side_effect_state") or (verdict.get("side_effect", "unknown") if verdict is not None else "unknown")
        if decision["reason"] == "non_idempotent" and queue is not None and state == "unknown":
            return ("escalated", "side_effect_unknown", queue, event)
        return (decision["end"], decision["reason"], None, event)
    if kind == "budget":
        reason = {"retries": "budget_retries", "retries_per_call": "budget_retries_per_call", "retry_seconds": "budget_retry_seconds", "wall_ms": "budget_wall"}[decision["budget"]]
        return ("exhausted", reason, None, {"type": "budget_exhausted", "budget": decision["budget"], "limit": decision["limit"], "verdict": code})
    if kind == "quota":
        return ("exhausted", "retry_quota", None, {"type": "retry_quota_exhausted", "verdict": code, "cost": decision["cost"], "tokens": decision["tokens"]})
    if kind == "retry_budget":
        return ("exhausted", "retry_budget", None, {"type": "retry_budget_exhausted", "verdict": code, "retries_in_progress": decision["retries_in_progress"], "limit": decision["limit"], "calls_in_progress": decision["calls_in_progress"]})
    return ("exhausted", "retry_throttled", None, {"type": "retry_throttled", "verdict": code, "tokens": decision["tokens"], "threshold": decision["threshold"]})


# Envelopes and packets (SPEC 4) --------------------------------------------------------------


def _side_effect(verdict: Optional[Json], error: Optional[Json]) -> str:
    if error is not None and error.get("side_effect_state") is not None:
        return error["side_effect_state"]
    return verdict.get("side_effect", "unknown") if verdict is not None else "unknown"


def _texts(values: Optional[List[str]], redact: Redactor) -> List[str]:
    return [] if values is None else [redact(v) for v in values]


def _text(value: Optional[str], redact: Redactor) -> Optional[str]:
    return None if value is None else redact(value)


def build_envelope(s: Shared, facts: Json) -> Json:
    ok = facts["kind"] in ("succeeded", "recovered")
    return {
        "ok": ok,
        "tool": facts["tool"],
        "outcome": facts["kind"],
        "reason": facts["reason"],
        "replan": facts["replan"],
        "trace_id": facts["trace_id"] if facts["trace_id"] is not None else trace_id(facts["key"]),
        "attempts": facts["attempts"],
        "retried": facts["retried"],
        "error": None if ok or facts["verdict"] is None else envelope_error(s, facts),
    }


def envelope_error(s: Shared, facts: Json) -> Json:
    code = facts["verdict"] if facts["verdict"] is not None else s.registry["fallback"]
    verdict = s.verdicts.get(code)
    error: Optional[Json] = facts["error"]
    state = _side_effect(verdict, error)
    v: Json = verdict or {}
    return {
        "code": code,
        "class": v.get("class"),
        "retryable": bool(v.get("retryable")) and state != "committed" and facts["idempotent"],
        "side_effect_state": state,
        "human_action_required": v.get("human_action_required", False),
        "retry_after_ms": None if error is None else error.get("retry_after_ms"),
        "summary": _text(v.get("summary"), s.redact),
        "message": None if error is None else error.get("message"),
        "recovery_hint": _text(v.get("recovery"), s.redact),
        "safe_next_actions": _texts(v.get("safe_next_actions"), s.redact),
        "unsafe_next_actions": _texts(v.get("unsafe_next_actions"), s.redact),
    }


def build_packet(s: Shared, facts: Json, step: str, queue: str) -> Json:
    verdict = None if facts["verdict"] is None else s.verdicts.get(facts["verdict"])
    trace = facts["trace_id"] if facts["trace_id"] is not None else trace_id(facts["key"])
    state = None if facts["verdict"] is None else _side_effect(verdict, facts["error"])
    v: Json = verdict or {}
    what = "did not complete" if facts["verdict"] is None else "failed with " + facts["verdict"]
    check = "Nothing was applied upstream." if state == "none" else "Check the state of " + facts["tool"] + " for trace " + trace + " (idempotency key " + facts["key"] + ") before trying again."
    recovery = " " + v["recovery"] if v.get("recovery") else ""
    attempts = facts["attempts"]
    prompt = "Call " + step + " to " + facts["tool"] + " " + what + " after " + str(attempts) + (" attempt" if attempts == 1 else " attempts") + ". " + check + recovery
    return {
        "trace_id": trace,
        "tool": facts["tool"],
        "failed_step": step,
        "queue": queue,
        "code": facts["verdict"],
        "summary": _text(v.get("summary"), s.redact),
        "reason": facts["reason"],
        "attempts": attempts,
        "retried": facts["retried"],
        "elapsed_ms": facts["elapsed_ms"],
        "idempotency_key": facts["key"],
        "side_effect_state": state,
        "safe_next_actions": _texts(v.get("safe_next_actions"), s.redact),
        "unsafe_next_actions": _texts(v.get("unsafe_next_actions"), s.redact),
        "suggested_prompt": s.redact(prompt),
    }
