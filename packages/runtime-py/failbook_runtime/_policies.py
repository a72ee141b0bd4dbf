"""The decisions of a retry, ported from failbook-runtime (engine/backoff.ts, retry-after.ts,
retry.ts, quota.ts, policies/retry-budget.ts, policies/retry-throttling.ts,
policies/attempt-timeout.ts): pure functions and small shared counters, the same
arithmetic in the same order, so the same seed gives the same delays."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Callable, Dict, List, Optional, Tuple, cast

from ._util import EMPTY, Random, glob_matches, js_round

MAX_SAFE_INTEGER = 9007199254740991
MAX_HINT_MS = 2592000000
DEFAULT_RETRY_AFTER_HEADERS = ("retry-after-ms", "retry-after")

HintValue = Optional[Tuple[str, int, bool]]

# ---------------------------------------------------------------------------------------
# Backoff (SPEC 3.1, 12, 18)
# ---------------------------------------------------------------------------------------


def retry_delay(action: Mapping[str, Any], n: int, previous: Optional[float], random: Random) -> int:
    """The delay of retry `n` (0 for the first retry), in whole milliseconds."""
    schedule = action.get("backoff_ms")
    if schedule is not None:
        return 0 if len(schedule) == 0 else schedule[min(n, len(schedule) - 1)]
    formula = action.get("backoff")
    if formula is not None:
        return formula_delay(formula, n, previous, random)
    return 0


def formula_delay(f: Mapping[str, Any], n: int, previous: Optional[float], random: Random) -> int:
    cap = f.get("cap_ms", MAX_SAFE_INTEGER)
    base = f["base_ms"]
    if f["strategy"] == "decorrelated":
        prev = base if previous is None else previous
        hi = max(base, prev * 3)
        d = min(cap, base + random() * (hi - base))
    else:
        d = _jittered(min(cap, _base_delay(f, n)), f.get("jitter"), random)
    return max(f.get("min_ms", 0), math.floor(d))


def _jittered(d: float, jitter: Any, random: Random) -> float:
    if isinstance(jitter, Mapping):
        j: Mapping[str, Any] = jitter  # pyright: ignore[reportUnknownVariableType]
        lo: float = d * j["min"]
        hi: float = d * j["max"]
        if hi <= lo:
            return lo
        if j.get("integer") is True:
            return min(hi, lo + math.floor(random() * (math.floor(hi - lo) + 1)))
        return lo + random() * (hi - lo)
    r = jitter_ratio(jitter)
    return d if r == 0 else d * (1 - r) + random() * r * d


def jitter_ratio(jitter: Any) -> float:
    if jitter is None or jitter == "none":
        return 0
    if jitter == "full":
        return 1
    if jitter == "equal":
        return 0.5
    return jitter


def _base_delay(f: Mapping[str, Any], n: int) -> float:
    base = f["base_ms"]
    if base == 0:
        return 0
    strategy = f["strategy"]
    if strategy == "exponential":
        factor = f.get("factor", 2)
        try:
            return base * math.pow(factor, n)
        except OverflowError:
            return math.inf
    if strategy == "linear":
        return base * (n + 1)
    return base


# ---------------------------------------------------------------------------------------
# Retry-After (SPEC 12, 18, 21)
# ---------------------------------------------------------------------------------------


def header_value(headers: Mapping[str, Any], name: str) -> Optional[str]:
    wanted = name.lower()
    for key, value in headers.items():
        if str(key).lower() == wanted and isinstance(value, str):
            return value
    return None


def is_millisecond_header(name: str, policy: Optional[Mapping[str, Any]]) -> bool:
    lower = name.lower()
    return lower.endswith("-ms") or any(str(h).lower() == lower for h in (policy or EMPTY).get("ms_headers", []))


def listed_forms(policy: Optional[Mapping[str, Any]]) -> List[Tuple[str, str]]:
    out: List[Tuple[str, str]] = []
    for h in (policy or EMPTY).get("headers", DEFAULT_RETRY_AFTER_HEADERS):
        if isinstance(h, str):
            out.append((h.lower(), "delay"))
        else:
            entry: Mapping[str, Any] = h
            form = "duration" if entry.get("duration") is True else "epoch_ms" if entry.get("epoch") == "ms" else "epoch_seconds"
            out.append((str(entry["name"]).lower(), form))
    return out


def _listed_headers(headers: Mapping[str, Any], policy: Optional[Mapping[str, Any]]) -> List[Tuple[str, str, str]]:
    listed = listed_forms(policy)
    if (policy or EMPTY).get("order") != "response":
        out: List[Tuple[str, str, str]] = []
        for name, form in listed:
            value = header_value(headers, name)
            if value is not None:
                out.append((name, value, form))
        return out
    found: List[Tuple[str, str, str]] = []
    for key, value in headers.items():
        name = str(key).lower()
        entry = next((e for e in listed if e[0] == name), None)
        if isinstance(value, str) and entry is not None and not any(n == name for n, _, _ in found):
            found.append((name, value, entry[1]))
    return found


def _clamp_hint(ms: float) -> int:
    return min(MAX_HINT_MS, max(0, math.floor(ms)))


class RetryAfterReading:
    __slots__ = ("hint_ms", "unreadable", "invalid")

    def __init__(self, hint_ms: Optional[int], unreadable: List[Tuple[str, str]], invalid: bool = False) -> None:
        self.hint_ms = hint_ms
        self.unreadable = unreadable
        self.invalid = invalid


class HintReaders:
    """The generated module's own hint readers (PROJECT's hint_value, field_hint, http_date)."""

    def __init__(self, hint_value: Callable[[str, bool, str, str], HintValue], field_hint: Callable[[object], HintValue], http_date: Callable[[str], Optional[int]]) -> None:
        self.hint_value = hint_value
        self.field_hint = field_hint
        self.http_date = http_date


def read_retry_after(readers: HintReaders, error: Optional[Mapping[str, Any]], policy: Optional[Mapping[str, Any]], now_ms: float) -> RetryAfterReading:
    unreadable: List[Tuple[str, str]] = []
    if error is None:
        return RetryAfterReading(None, unreadable)
    p: Mapping[str, Any] = policy or EMPTY
    give_up = p.get("invalid") == "give_up"
    zero_absent = p.get("zero") == "absent"
    parse = p.get("parse", "strict")
    raw_headers = error.get("headers")
    headers: Optional[Mapping[str, Any]] = cast(Mapping[str, Any], raw_headers) if type(raw_headers) is dict or (raw_headers is not None and isinstance(raw_headers, Mapping)) else None

    def now() -> float:
        if p.get("clock") == "local" or headers is None:
            return now_ms
        date = header_value(headers, "date")
        at = None if date is None else readers.http_date(date)
        return now_ms if at is None else at

    sources: List[Tuple[str, HintValue, str, bool]] = []
    if headers is not None:
        for name, value, form in _listed_headers(headers, policy):
            sources.append((name, readers.hint_value(value, is_millisecond_header(name, policy), parse, form), value, True))
    raw_fields = error.get("fields")
    fields: Optional[Mapping[str, Any]] = cast(Mapping[str, Any], raw_fields) if type(raw_fields) is dict or (raw_fields is not None and isinstance(raw_fields, Mapping)) else None
    for name in p.get("fields", []):
        value = None if fields is None else fields.get(name)
        if value is not None:
            sources.append((name, readers.field_hint(value), str(value), False))
    for name, hint, value, header in sources:
        if hint is None or hint[0] == "negative":
            if give_up:
                return RetryAfterReading(None, unreadable, True)
            if hint is None:
                if header:
                    unreadable.append((name, value))
                continue
        ms = 0 if hint[0] == "negative" else _clamp_hint(hint[1] - now()) if hint[0] == "date" else hint[1]
        zero = hint[2] if hint[0] == "delay" else ms == 0
        if zero and zero_absent:
            continue
        return RetryAfterReading(ms, unreadable)
    own = error.get("retry_after_ms")
    own_ms = _clamp_hint(own) if isinstance(own, (int, float)) and not isinstance(own, bool) and math.isfinite(own) else None
    return RetryAfterReading(None if own_ms == 0 and zero_absent else own_ms, unreadable)


def apply_retry_after(backoff_ms: int, hint_ms: Optional[int], policy: Optional[Mapping[str, Any]]) -> Tuple[str, int]:
    """("delay", ms) or ("give_up", hint)."""
    if hint_ms is None:
        return ("delay", backoff_ms)
    p: Mapping[str, Any] = policy or EMPTY
    if p.get("mode") == "exact":
        return ("delay", hint_ms)
    hint = hint_ms
    if p.get("max_over_backoff_ms") is not None:
        hint = min(hint, backoff_ms + p["max_over_backoff_ms"])
    max_ms = p.get("max_ms")
    if max_ms is not None and hint > max_ms:
        above = p.get("above_max", "cap")
        if above == "ignore":
            return ("delay", backoff_ms)
        if above == "give_up":
            return ("give_up", hint)
        hint = max_ms
    return ("delay", hint if p.get("mode", "max") == "replace" else max(backoff_ms, hint))


def retry_after_policy_of(playbook: Mapping[str, Any], action: Mapping[str, Any]) -> Optional[Mapping[str, Any]]:
    own = action.get("retry_after")
    return own if own is not None else playbook.get("retry_after")


# ---------------------------------------------------------------------------------------
# Shared counters: the retry quota (SPEC 12), the retry budget and retry throttling (SPEC 18)
# ---------------------------------------------------------------------------------------


class RetryQuota:
    """The AWS SDK's standard-mode token bucket, shared by every dispatch of a dispatcher."""

    def __init__(self, policy: Mapping[str, Any], tokens: Optional[float] = None) -> None:
        self.policy = policy
        self.capacity = policy["capacity"]
        self.tokens = min(self.capacity, max(0, self.capacity if tokens is None else tokens))

    def cost_of(self, verdict_class: Optional[str], error_kind: Optional[str]) -> float:
        by_class = self.policy.get("cost_by_class")
        if verdict_class is not None and by_class is not None and verdict_class in by_class:
            return by_class[verdict_class]
        by_kind = self.policy.get("cost_by_kind")
        if error_kind is not None and by_kind is not None and error_kind in by_kind:
            return by_kind[error_kind]
        return self.policy.get("cost", 5)

    def can_take(self, cost: float) -> bool:
        return cost <= self.tokens

    def take(self, cost: float) -> None:
        self.tokens -= cost

    def settle(self, costs: List[float]) -> None:
        if len(costs) == 0:
            back = self.policy.get("refund", 1)
        else:
            how = self.policy.get("refund_on_recovery", "last")
            back = costs[-1] if how == "last" else sum(costs) if how == "all" else 0
        self.tokens = min(self.capacity, self.tokens + back)


class RetryBudget:
    """Envoy's retry budget: retries in progress below max(min_concurrency, floor(percent% of calls in progress))."""

    def __init__(self, policy: Mapping[str, Any]) -> None:
        self.percent = policy.get("percent", 20)
        self.min_concurrency = policy.get("min_concurrency", 3)
        self.calls = 0
        self.retries = 0

    def limit(self) -> int:
        return max(self.min_concurrency, math.floor(self.percent * self.calls / 100))

    def call_started(self) -> None:
        self.calls += 1

    def call_ended(self, retrying: bool) -> None:
        self.calls -= 1
        if retrying:
            self.retries -= 1

    def allows(self, retrying: bool) -> bool:
        return self.retries - (1 if retrying else 0) < self.limit()

    def retry_started(self) -> None:
        self.retries += 1


class RetryThrottle:
    """gRPC's retryThrottling (A6), in thousandths of a token."""

    def __init__(self, policy: Mapping[str, Any], tokens: Optional[float] = None) -> None:
        self.max_milli = js_round(policy["max_tokens"] * 1000)
        self.ratio_milli = js_round(policy["token_ratio"] * 1000)
        self.milli = self.max_milli if tokens is None else min(self.max_milli, max(0, js_round(tokens * 1000)))

    @property
    def tokens(self) -> float:
        return _thousandths(self.milli)

    @property
    def threshold(self) -> float:
        return _thousandths(self.max_milli / 2)

    def failed(self) -> None:
        self.milli = max(0, self.milli - 1000)

    def succeeded(self) -> None:
        self.milli = min(self.max_milli, self.milli + self.ratio_milli)

    def allows_retry(self) -> bool:
        return self.milli * 2 > self.max_milli


def _thousandths(milli: float) -> float:
    """milli / 1000 as JavaScript shows it: an integer stays one."""
    value = milli / 1000
    return int(value) if value.is_integer() else value


class AttemptTimeouts:
    """Which attempt timeout applies to a tool: its first `tools:` entry that sets one, else the playbook's."""

    def __init__(self, fallback: Optional[float], entries: List[Tuple[str, float]]) -> None:
        self.fallback = fallback
        self.entries = entries
        self.by_tool: Dict[str, Optional[float]] = {}

    @staticmethod
    def of(playbook: Mapping[str, Any]) -> Optional["AttemptTimeouts"]:
        entries: List[Tuple[str, float]] = []
        for glob, entry in (playbook.get("tools") or EMPTY).items():
            if entry.get("attempt_timeout_ms") is not None:
                entries.append((glob, entry["attempt_timeout_ms"]))
        if playbook.get("attempt_timeout_ms") is None and len(entries) == 0:
            return None
        return AttemptTimeouts(playbook.get("attempt_timeout_ms"), entries)

    def for_tool(self, tool: str) -> Optional[float]:
        if tool in self.by_tool:
            return self.by_tool[tool]
        ms = next((ms for glob, ms in self.entries if glob_matches(glob, tool)), self.fallback)
        if len(self.by_tool) >= 4096:
            self.by_tool.clear()
        self.by_tool[tool] = ms
        return ms
