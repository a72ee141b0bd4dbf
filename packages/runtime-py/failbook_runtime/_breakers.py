"""Circuit breakers (SPEC 18), ported from failbook-runtime's engine/policies/circuit.ts and
breakers.ts decision for decision: one circuit's state machine and window (pure, the time
passed in), and the playbook's breakers shared by every dispatch of a dispatcher."""

from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from ._util import glob_matches

Json = Dict[str, Any]
Emit = Callable[[Json], None]

BREAKER_DEFAULTS: Mapping[str, float] = {"failure_ratio": 0.1, "minimum_throughput": 100, "sampling_ms": 30_000, "break_ms": 5_000, "half_open_probes": 1}
"""Polly v8's defaults: 10 % of at least 100 attempts in 30 s opens it for 5 s."""


def circuit_open_error(breaker: str) -> Json:
    """The error of an attempt a breaker did not let through."""
    return {"kind": "circuit_open", "message": "circuit " + breaker + " is open", "side_effect_state": "none"}


def _setting(policy: Mapping[str, Any], name: str) -> Any:
    value = policy.get(name)
    return BREAKER_DEFAULTS[name] if value is None else value


class _ExactWindow:
    """Every counted attempt within the last `sampling_ms` (and, when set, only the last `max_attempts`)."""

    def __init__(self, sampling_ms: float, max_attempts: Optional[float]) -> None:
        self.sampling_ms = sampling_ms
        self.max_attempts = math.inf if max_attempts is None else max_attempts
        self.total = 0
        self.failures = 0
        self.entries: List[List[Any]] = []  # [time, failed, count]
        self.head = 0

    def add(self, now: float, failed: bool) -> None:
        self._evict_before(now - self.sampling_ms)
        entries = self.entries
        if len(entries) > self.head and entries[-1][0] == now and entries[-1][1] == failed:
            entries[-1][2] += 1
        else:
            entries.append([now, failed, 1])
        self.total += 1
        if failed:
            self.failures += 1
        while self.total > self.max_attempts:
            self._drop(1)

    def clear(self) -> None:
        self.entries = []
        self.head = 0
        self.total = 0
        self.failures = 0

    def _evict_before(self, t: float) -> None:
        while self.head < len(self.entries) and self.entries[self.head][0] <= t:
            self._drop(self.entries[self.head][2])

    def _drop(self, n: int) -> None:
        entry = self.entries[self.head]
        entry[2] -= n
        self.total -= n
        if entry[1]:
            self.failures -= n
        if entry[2] > 0:
            return
        self.head += 1
        if self.head >= 1024 and self.head * 2 >= len(self.entries):
            self.entries = self.entries[self.head :]
            self.head = 0


class _BucketWindow:
    """The window as `buckets` buckets of `sampling_ms / buckets`, aligned to the breaker's origin."""

    def __init__(self, sampling_ms: float, buckets: int, origin: float) -> None:
        self.sampling_ms = sampling_ms
        self.buckets = buckets
        self.origin = origin
        self.total = 0
        self.failures = 0
        self.successes_in = [0] * buckets
        self.failures_in = [0] * buckets
        self.current = 0

    def add(self, now: float, failed: bool) -> None:
        index = math.floor(((now - self.origin) * self.buckets) / self.sampling_ms)
        if index > self.current:
            self._rotate_to(index)
        slot = self.current % self.buckets
        if failed:
            self.failures_in[slot] += 1
            self.failures += 1
        else:
            self.successes_in[slot] += 1
        self.total += 1

    def clear(self) -> None:
        self.successes_in = [0] * self.buckets
        self.failures_in = [0] * self.buckets
        self.total = 0
        self.failures = 0

    def _rotate_to(self, index: int) -> None:
        for i in range(max(self.current + 1, index - self.buckets + 1), index + 1):
            slot = i % self.buckets
            self.total -= self.successes_in[slot] + self.failures_in[slot]
            self.failures -= self.failures_in[slot]
            self.successes_in[slot] = 0
            self.failures_in[slot] = 0
        self.current = index


class Circuit:
    """One circuit: closed, open for a break, then half-open for `half_open_probes` probes."""

    def __init__(self, policy: Mapping[str, Any], origin: float, start: str = "closed") -> None:
        self.policy = policy
        self.ratio: float = _setting(policy, "failure_ratio")
        self.minimum: float = _setting(policy, "minimum_throughput")
        self.probes: float = _setting(policy, "half_open_probes")
        self.break_ms: float = _setting(policy, "break_ms")
        sampling_ms: float = _setting(policy, "sampling_ms")
        buckets = policy.get("buckets")
        self.window = _ExactWindow(sampling_ms, policy.get("sampling_attempts")) if buckets is None else _BucketWindow(sampling_ms, buckets, origin)
        self.state = start
        self.opened_at = origin
        self.probes_out = 0
        self.probes_passed = 0

    def state_at(self, now: float) -> str:
        return "half_open" if self.state == "open" and now - self.opened_at >= self.break_ms else self.state

    def refuses(self, now: float) -> bool:
        """Would `admit` refuse an attempt now? Changes nothing: a rate limit asks before it spends a token."""
        if self.state == "closed":
            return False
        if self.state == "open" and now - self.opened_at < self.break_ms:
            return True
        # An open circuit whose break is over turns half-open at its next admission, with no probe taken yet.
        return not self._probe_free(0 if self.state == "open" else self.probes_out + self.probes_passed)

    def _probe_free(self, taken: float) -> bool:
        """Half-open with `taken` probes out or passed: may one more go?"""
        return taken < self.probes

    def admit(self, now: float, emit: Emit) -> str:
        """'closed' (an ordinary attempt), 'probe' (half-open) or 'rejected'; `emit` hears the move to half-open."""
        if self.state == "closed":
            return "closed"
        if self.state == "open":
            if now - self.opened_at < self.break_ms:
                return "rejected"
            self.state = "half_open"
            self.probes_out = 0
            self.probes_passed = 0
            emit({"type": "half_open"})
        return "probe" if self._probe_free(self.probes_out + self.probes_passed) else "rejected"

    def record(self, now: float, admitted: str, outcome: str, emit: Emit) -> None:
        if admitted == "probe":
            if self.state != "half_open":
                return
            self.probes_out -= 1
            if outcome == "failure":
                self._open(now, True, emit)
            elif outcome == "success":
                self.probes_passed += 1
                if self.probes_passed >= self.probes:
                    self.state = "closed"
                    self.break_ms = _setting(self.policy, "break_ms")
                    self.window.clear()
                    emit({"type": "closed"})
            return
        if admitted != "closed" or self.state != "closed" or outcome == "ignored":
            return
        failed = outcome == "failure"
        window = self.window
        window.add(now, failed)
        if failed and window.total >= self.minimum and window.failures >= self.ratio * window.total:
            self._open(now, False, emit)

    def _open(self, now: float, again: bool, emit: Emit) -> None:
        failures = 1 if again else self.window.failures
        attempts = self.probes_passed + 1 if again else self.window.total
        max_break = self.policy.get("max_break_ms")
        if again and max_break is not None:
            self.break_ms = min(max_break, self.break_ms * 2)
        self.state = "open"
        self.opened_at = now
        emit({"type": "opened", "failures": failures, "attempts": attempts, "break_ms": self.break_ms})


class _Breaker:
    __slots__ = ("name", "policy", "globs", "circuit", "circuits", "start")

    def __init__(self, name: str, policy: Mapping[str, Any], origin: float, start: str) -> None:
        tools = policy["tools"]
        self.name = name
        self.policy = policy
        self.globs: List[str] = [tools] if isinstance(tools, str) else list(tools)
        self.circuit: Optional[Circuit] = None if policy.get("per") == "tool" else Circuit(policy, origin, start)
        self.circuits: Dict[str, Circuit] = {}
        self.start = start


Guard = Tuple[_Breaker, Circuit]


class Admission:
    """What the breakers said to one attempt: let through (each guard's admission), or stopped by one."""

    __slots__ = ("blocked_by", "guards", "admitted")

    def __init__(self, blocked_by: Optional[str], guards: List[Guard], admitted: List[str]) -> None:
        self.blocked_by = blocked_by
        self.guards = guards
        self.admitted = admitted


UNGUARDED = Admission(None, [], [])


class CircuitBreakers:
    """The playbook's `circuit_breakers`, starting at `origin` in `start` (a fixture's `state: { breakers }`)."""

    def __init__(self, policies: Mapping[str, Any], origin: float, start: Optional[Mapping[str, str]] = None) -> None:
        self.origin = origin
        self.breakers = [_Breaker(name, policy, origin, (start or {}).get(name, "closed")) for name, policy in policies.items()]
        self.guards_by_tool: Dict[str, List[Guard]] = {}

    def state_of(self, name: str, now: float, tool: Optional[str] = None) -> Optional[str]:
        for b in self.breakers:
            if b.name == name:
                circuit = b.circuit if b.circuit is not None else (None if tool is None else b.circuits.get(tool))
                return b.start if circuit is None else circuit.state_at(now)
        return None

    def refuses(self, tool: str, now: float) -> bool:
        """Would `admit` refuse an attempt to `tool` now (a breaker guarding it open)? Changes nothing."""
        return any(circuit.refuses(now) for _, circuit in self._guards_of(tool))

    def admit(self, tool: str, shown_tool: str, now: float, emit: Emit) -> Admission:
        """May an attempt to `tool` be sent now? Every breaker guarding it must let it through."""
        guards = self._guards_of(tool)
        if not guards:
            return UNGUARDED
        admitted: List[str] = []
        for breaker, circuit in guards:
            said = circuit.admit(now, _emitter(emit, breaker, shown_tool))
            if said == "rejected":
                return Admission(breaker.name, [], [])
            admitted.append(said)
        for (_, circuit), said in zip(guards, admitted):
            if said == "probe":
                circuit.probes_out += 1
        return Admission(None, guards, admitted)

    def record(self, admission: Admission, shown_tool: str, now: float, failure: Optional[Json], emit: Emit) -> None:
        for (breaker, circuit), admitted in zip(admission.guards, admission.admitted):
            circuit.record(now, admitted, outcome_for(breaker.policy, failure), _emitter(emit, breaker, shown_tool))

    def abandon(self, admission: Admission, now: float) -> None:
        """The attempt never answered: give back any probe it held."""
        for (_, circuit), admitted in zip(admission.guards, admission.admitted):
            circuit.record(now, admitted, "ignored", _ignore)

    def _guards_of(self, tool: str) -> List[Guard]:
        known = self.guards_by_tool.get(tool)
        if known is not None:
            return known
        guards: List[Guard] = []
        for breaker in self.breakers:
            if any(glob_matches(glob, tool) for glob in breaker.globs):
                circuit = breaker.circuit
                if circuit is None:
                    circuit = breaker.circuits.get(tool)
                    if circuit is None:
                        circuit = breaker.circuits[tool] = Circuit(breaker.policy, self.origin, breaker.start)
                guards.append((breaker, circuit))
        if len(self.guards_by_tool) >= 4096:
            self.guards_by_tool.clear()
        self.guards_by_tool[tool] = guards
        return guards


def _ignore(_: Json) -> None:
    pass


def outcome_for(policy: Mapping[str, Any], failure: Optional[Json]) -> str:
    """A success always counts; a failure whose class is in `counts`, or by default one whose verdict is retryable or that is an attempt timeout."""
    if failure is None:
        return "success"
    counts = policy.get("counts")
    if counts is not None:
        return "failure" if failure["class"] is not None and failure["class"] in counts else "ignored"
    return "failure" if failure["retryable"] or failure["kind"] == "attempt_timeout" else "ignored"


def _emitter(emit: Emit, breaker: _Breaker, shown_tool: str) -> Emit:
    def event(t: Json) -> None:
        which: Json = {"breaker": breaker.name, "tool": shown_tool} if breaker.policy.get("per") == "tool" else {"breaker": breaker.name}
        kind = t["type"]
        if kind == "opened":
            emit({"type": "breaker_opened", **which, "failures": t["failures"], "attempts": t["attempts"], "break_ms": t["break_ms"]})
        elif kind == "half_open":
            emit({"type": "breaker_half_open", **which})
        else:
            emit({"type": "breaker_closed", **which})

    return event
