"""Hedging (SPEC 18, gRPC's hedgingPolicy, A6), ported from failbook-runtime's
engine/policies/hedging.ts: for an idempotent call to a hedged tool, the first attempt goes at
once and each `delay_ms` without an answer sends the next, up to `max_attempts` in all, the
first included. The first success wins and the others are cancelled (their signal is set). A
failure whose class or code is in `non_fatal` sends the next hedge at once; any other failure
cancels the rest and ends the race. Retry throttling may refuse a hedge after the first: then
no more are sent, and the race waits for those in flight.

The race is a generator, like the run (./_engine.py), in one of three modes:
- `virtual` (a virtual clock, both drivers): each hedge is measured aside when it is sent (its
  answer and latency known at once, the clock put back), and the answers are taken in time
  order (send order on a tie), as the TypeScript runtime does: the differential test holds them
  to it.
- `concurrent` (a real clock, `adispatch`): each hedge is a task raced against the next
  hedge's timer.
- `sequential` (a real clock, blocking `dispatch`, which does not hedge: SPEC 25): one attempt
  at a time, the next only after a non-fatal failure, never on a timer."""

from __future__ import annotations

from typing import Any, Callable, Dict, FrozenSet, Generator, List, NamedTuple, Optional

from ._util import glob_matches

VIRTUAL = "virtual"
CONCURRENT = "concurrent"
SEQUENTIAL = "sequential"

WON = "won"
NON_FATAL = "non_fatal"
FATAL = "fatal"


class Hedging:
    """Which tools the playbook hedges, and how."""

    def __init__(self, policy: Any) -> None:
        self.max_attempts: int = policy["max_attempts"]
        self.delay_ms: float = policy.get("delay_ms", 0)
        tools = policy["tools"]
        self.globs: List[str] = [tools] if isinstance(tools, str) else list(tools)
        self.non_fatal: FrozenSet[str] = frozenset(policy.get("non_fatal") or ())
        self.by_tool: Dict[str, bool] = {}

    def hedges(self, tool: str) -> bool:
        """Is a call to `tool` hedged (when it is idempotent)?"""
        hedged = self.by_tool.get(tool)
        if hedged is None:
            hedged = any(glob_matches(glob, tool) for glob in self.globs)
            if len(self.by_tool) >= 4096:
                self.by_tool.clear()
            self.by_tool[tool] = hedged
        return hedged

    def is_non_fatal(self, verdict_class: Optional[str], code: str) -> bool:
        """Does a failure of this verdict send the next hedge at once (rather than end the race)?"""
        return code in self.non_fatal or (verdict_class is not None and verdict_class in self.non_fatal)


class Flight:
    """One hedge sent: its answer when known (`ready`), when it answers on a virtual clock, its driver's handle on a real one."""

    __slots__ = ("i", "sent_at", "answer_at", "value", "ready", "handle")

    def __init__(self, i: int, sent_at: float) -> None:
        self.i = i
        self.sent_at = sent_at
        self.answer_at: float = 0
        self.value: Any = None
        self.ready = False
        self.handle: Any = None


class Wait:
    """Asked of the asyncio driver: the first of `flights` to answer (its `value` set), or None when `ms` passed first (None: no timer)."""

    __slots__ = ("flights", "ms")

    def __init__(self, flights: List[Flight], ms: Optional[float]) -> None:
        self.flights = flights
        self.ms = ms


class RaceEnd(NamedTuple):
    """How a race ended: the answer that ended it (the winner, a fatal failure, or the last non-fatal one) and its hedge."""

    value: Any
    i: int
    how: str
    sent: int
    """Hedges sent, the first included."""
    throttled: bool
    """The race ran out of hedges because retry throttling refused one."""


class Hooks:
    """What the race asks of the run: send hedge i (a generator returning its Flight), judge an answer, ask the throttle, hear of a cancel."""

    send: Callable[[int], Generator[Any, Any, Flight]]
    judge: Callable[[Flight], str]
    may_hedge: Callable[[], bool]
    cancelled: Callable[[Flight], None]


def _abort(flight: Flight) -> None:
    handle = flight.handle
    if handle is not None:
        handle.cancel()


def race(clock: Any, hedging: Hedging, hooks: Hooks, mode: str, sleep: Callable[[float], Any]) -> Generator[Any, Any, RaceEnd]:
    """Run one hedged call's race to its end (`sleep(ms)`: the run's request to wait). An
    exception from a hedge cancels the rest and propagates."""
    flying: List[Flight] = []
    sent = 0
    due_at: Optional[float] = clock.now()
    refused = False
    last: Optional[Flight] = None
    try:
        while True:
            # Every hedge that is due goes now (with delay_ms 0, all of them).
            while due_at is not None and due_at <= clock.now():
                if sent > 0 and not hooks.may_hedge():
                    refused = True
                    due_at = None
                    break
                sent += 1
                flight = yield from hooks.send(sent)
                flying.append(flight)
                due_at = clock.now() + hedging.delay_ms if sent < hedging.max_attempts and mode != SEQUENTIAL else None
            if not flying:
                assert last is not None
                return RaceEnd(last.value, last.i, NON_FATAL, sent, refused)
            # An answer given at once is taken before any wait.
            nxt: Optional[Flight] = None
            for f in flying:
                if f.ready:
                    nxt = f
                    break
            if nxt is None:
                if mode == VIRTUAL:
                    first = flying[0]
                    for f in flying:
                        if f.answer_at < first.answer_at:
                            first = f
                    # An answer at the very moment the next hedge is due comes first: that hedge is not needed.
                    if due_at is not None and due_at < first.answer_at:
                        yield sleep(due_at - clock.now())
                    else:
                        yield sleep(first.answer_at - clock.now())
                        nxt = first
                else:
                    nxt = yield Wait(flying, None if due_at is None else due_at - clock.now())
            if nxt is None:
                continue
            flying.remove(nxt)
            how = hooks.judge(nxt)
            if how != NON_FATAL:
                rest = flying[:]
                del flying[:]
                for f in rest:
                    _abort(f)
                    hooks.cancelled(f)
                return RaceEnd(nxt.value, nxt.i, how, sent, False)
            last = nxt
            if sent < hedging.max_attempts and not refused:
                due_at = clock.now()
    finally:
        # Only after an exception (or the dispatch stopping) are any left: nobody waits for them.
        for f in flying:
            _abort(f)
