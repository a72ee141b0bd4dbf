"""Rate limits (SPEC 22), ported from failbook-runtime's engine/policies/rate-limits.ts and
adaptive-aws.ts decision for decision: token buckets over the tools each limit names, taken
before every attempt, reservable below zero, corrected by `from_headers`; `adaptive: aws`,
the AWS SDK's own limiter (CUBIC), exactly."""

from __future__ import annotations

import datetime
import math
import re
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Callable, Dict, Generator, List, Mapping, Optional, Tuple, Union

from ._util import glob_matches

Json = Dict[str, Any]
HintReader = Callable[[str, bool, str, str], Optional[Tuple[str, int, bool]]]


def rate_limited_error(name: str) -> Json:
    """What an attempt that found no token fails as: classified like `circuit_open`."""
    return {"kind": "rate_limited", "message": "rate limit " + name + " is empty", "side_effect_state": "none"}


AWS_THROTTLING_KINDS = frozenset(
    (
        "BandwidthLimitExceeded",
        "EC2ThrottledException",
        "LimitExceededException",
        "PriorRequestNotComplete",
        "ProvisionedThroughputExceededException",
        "RequestLimitExceeded",
        "RequestThrottled",
        "RequestThrottledException",
        "SlowDown",
        "ThrottledException",
        "Throttling",
        "ThrottlingException",
        "TooManyRequestsException",
        "TransactionInProgressException",
    )
)


def is_throttling(verdict_class: Optional[str], error: Optional[Mapping[str, Any]]) -> bool:
    """A response that slows an adaptive limiter: its verdict's class is `throttling`, a 429, or a name the AWS SDK throttles on."""
    if verdict_class == "throttling":
        return True
    if error is None:
        return False
    status = error.get("http_status")
    kind = error.get("kind")
    return (isinstance(status, (int, float)) and not isinstance(status, bool) and status == 429) or (isinstance(kind, str) and kind in AWS_THROTTLING_KINDS)


class HeaderSpec:
    __slots__ = ("remaining", "reset", "limit", "ietf")

    def __init__(self, remaining: str, reset: Optional[Tuple[str, str]], limit: Optional[str], ietf: bool = False) -> None:
        self.remaining = remaining
        self.reset = reset
        self.limit = limit
        self.ietf = ietf


DIALECTS: Dict[str, HeaderSpec] = {
    "github": HeaderSpec("x-ratelimit-remaining", ("x-ratelimit-reset", "epoch_seconds"), "x-ratelimit-limit"),
    "openai": HeaderSpec("x-ratelimit-remaining-requests", ("x-ratelimit-reset-requests", "duration"), "x-ratelimit-limit-requests"),
    "anthropic": HeaderSpec("anthropic-ratelimit-requests-remaining", ("anthropic-ratelimit-requests-reset", "delay"), "anthropic-ratelimit-requests-limit"),
    "ietf": HeaderSpec("ratelimit", None, "ratelimit-policy", True),
}


def header_spec_of(source: Union[str, Mapping[str, Any]]) -> HeaderSpec:
    if isinstance(source, str):
        return DIALECTS[source]
    reset = source.get("reset")
    spec_reset: Optional[Tuple[str, str]] = None
    if isinstance(reset, str):
        spec_reset = (reset.lower(), "delay")
    elif reset is not None:
        r: Mapping[str, Any] = reset
        spec_reset = (r["name"].lower(), "duration" if "duration" in r else "epoch_ms" if r.get("epoch") == "ms" else "epoch_seconds")
    limit = source.get("limit")
    return HeaderSpec(source["remaining"].lower(), spec_reset, None if limit is None else limit.lower())


FARTHEST_RESET_MS = 86_400_000
"""A reset further off than this is not believed: a day."""

_RFC3339 = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]+))?)?(Z|[+-][0-9]{2}:[0-9]{2})")
_JS_SPACE = " \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_S = "[" + _JS_SPACE + "]"
"""JavaScript's \\s (Python's differs)."""
_REMAINING = re.compile(_S + "*[0-9]{1,15}" + _S + "*")


def _header(headers: Mapping[str, Any], name: str) -> Optional[str]:
    for key, value in headers.items():
        if key.lower() == name and isinstance(value, str):
            return value
    return None


def _rfc3339(text: str) -> Optional[float]:
    """Date.parse of an RFC 3339 time with a zone (what Anthropic's reset is); None when it does not read."""
    m = _RFC3339.fullmatch(text)
    if m is None:
        return None
    year, month, day, hour, minute = (int(m.group(i)) for i in range(1, 6))
    second = int(m.group(6) or 0)
    ms = int((m.group(7) or "0")[:3].ljust(3, "0"))
    zone = m.group(8)
    try:
        at = datetime.datetime(year, month, day, hour, minute, second, tzinfo=datetime.timezone.utc)
    except ValueError:
        return None
    offset = 0 if zone.upper() == "Z" else (1 if zone[0] == "+" else -1) * (int(zone[1:3]) * 60 + int(zone[4:6]))
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    return ((at - epoch) // datetime.timedelta(milliseconds=1)) + ms - offset * 60_000


def read_quota(spec: HeaderSpec, headers: Mapping[str, Any], now_epoch_ms: float, hint_value: HintReader) -> Optional[Json]:
    """A response's remaining quota ({"remaining", "reset_in_ms"}), a header ignored ({"ignored", "value"}), or None."""
    if spec.ietf:
        return _read_ietf(headers)
    remaining_text = _header(headers, spec.remaining)
    if remaining_text is None:
        return None
    if _REMAINING.fullmatch(remaining_text) is None:
        return {"ignored": spec.remaining, "value": remaining_text}
    remaining = int(remaining_text.strip(_JS_SPACE))
    reset_in_ms: Optional[float] = None
    if spec.reset is not None:
        text = _header(headers, spec.reset[0])
        if text is not None:
            form = spec.reset[1]
            trimmed = text.strip(_JS_SPACE)
            at = _rfc3339(trimmed) if form == "delay" and re.match(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T", trimmed) is not None else None
            hint = hint_value(text, False, "strict", form) if at is None else ("date", at, False)
            ms: Optional[float] = None
            if hint is not None and hint[0] != "negative":
                ms = max(0, hint[1] - now_epoch_ms) if hint[0] == "date" else hint[1]
            if ms is None or ms > FARTHEST_RESET_MS:
                return {"ignored": spec.reset[0], "value": text}
            reset_in_ms = ms
    return {"remaining": remaining, "reset_in_ms": reset_in_ms}


def _read_ietf(headers: Mapping[str, Any]) -> Optional[Json]:
    text = _header(headers, "ratelimit")
    if text is None:
        return None
    if len(text.encode("utf-16-le", "surrogatepass")) // 2 > 1000:
        return {"ignored": "ratelimit", "value": text[:100]}

    def param(names: List[str]) -> Optional[int]:
        for name in names:
            m = re.search("(?:^|[;," + _JS_SPACE + "])" + name + "=([0-9]{1,15})(?=\\Z|[;," + _JS_SPACE + "])", text)
            if m is not None:
                return int(m.group(1))
        return None

    remaining = param(["r", "remaining"])
    if remaining is None:
        return {"ignored": "ratelimit", "value": text}
    reset = param(["t", "reset"])
    if reset is not None and reset * 1000 > FARTHEST_RESET_MS:
        return {"ignored": "ratelimit", "value": text}
    return {"remaining": remaining, "reset_in_ms": None if reset is None else reset * 1000}


class TokenBucket:
    """A token bucket of `capacity`, refilled at `rate` tokens a millisecond, reservable below zero."""

    def __init__(self, capacity: float, rate: float, now: float) -> None:
        self.capacity = capacity
        self.rate = rate
        self.tokens: float = capacity
        self.last = now
        self.reset_at: Optional[float] = None

    def refill(self, now: float) -> None:
        if self.reset_at is not None:
            if now < self.reset_at:
                return
            self.tokens = self.capacity + min(0, self.tokens)
            self.last = self.reset_at
            self.reset_at = None
        if now > self.last:
            self.tokens = min(self.capacity, self.tokens + (now - self.last) * self.rate)
        self.last = max(self.last, now)

    def reserve(self, now: float) -> float:
        self.refill(now)
        self.tokens -= 1
        if self.tokens >= 0:
            return 0
        if self.reset_at is not None:
            return math.ceil(self.reset_at - now + max(0, -self.tokens - self.capacity) / self.rate)
        return math.ceil(-self.tokens / self.rate)

    def try_take(self, now: float) -> bool:
        self.refill(now)
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def release(self) -> None:
        self.tokens += 1

    def correct(self, reading: Json, now: float) -> None:
        self.refill(now)
        self.tokens = min(self.tokens, reading["remaining"])
        if reading["reset_in_ms"] is not None and reading["remaining"] < self.capacity:
            self.reset_at = now + reading["reset_in_ms"]


# adaptive: aws -----------------------------------------------------------------------------

_BETA = 0.7
_MIN_CAPACITY = 1
_MIN_FILL_RATE = 0.5
_SCALE_CONSTANT = 0.4
_SMOOTH = 0.8
_EIGHT_PLACES = Decimal("1e-8")


def _precise(n: float) -> float:
    """parseFloat(n.toFixed(8)): the exact binary value rounded half away from zero, as toFixed does."""
    if not math.isfinite(n) or abs(n) >= 1e21:
        return n
    return float(Decimal(n).quantize(_EIGHT_PLACES, rounding=ROUND_HALF_UP))


class AwsAdaptiveLimiter:
    """The AWS SDK's DefaultRateLimiter (@smithy/util-retry), on the dispatcher's clock read as seconds."""

    def __init__(self, seconds: Callable[[], float]) -> None:
        self.seconds = seconds
        self.enabled = False
        self.available_tokens: float = 0
        self.last_max_rate: float = 0
        self.measured_tx_rate: float = 0
        self.request_count = 0
        self.fill_rate: float = _MIN_FILL_RATE
        self.last_throttle_time = seconds()
        self.last_timestamp: float = 0
        self.last_tx_rate_bucket: float = math.floor(seconds())
        self.max_capacity: float = _MIN_CAPACITY
        self.time_window: float = 0

    def acquire(self) -> Generator[float, None, float]:
        """The SDK's getSendToken: yields each wait (ms) its loop makes, returns the total; the token is taken after the last."""
        if not self.enabled:
            return 0
        self._refill()
        waited: float = 0
        while 1 > self.available_tokens:
            delay = ((1 - self.available_tokens) / self.fill_rate) * 1000
            waited += delay
            yield delay
            self._refill()
        self.available_tokens -= 1
        return waited

    def next_wait(self) -> float:
        if not self.enabled:
            return 0
        self._refill()
        return ((1 - self.available_tokens) / self.fill_rate) * 1000 if 1 > self.available_tokens else 0

    def try_acquire(self) -> bool:
        if not self.enabled:
            return True
        self._refill()
        if 1 > self.available_tokens:
            return False
        self.available_tokens -= 1
        return True

    def update(self, throttling: bool) -> None:
        self._update_measured_rate()
        if throttling:
            rate_to_use = self.measured_tx_rate if not self.enabled else min(self.measured_tx_rate, self.fill_rate)
            self.last_max_rate = rate_to_use
            self._calculate_time_window()
            self.last_throttle_time = self.seconds()
            calculated = _precise(rate_to_use * _BETA)
            self.enabled = True
        else:
            self._calculate_time_window()
            calculated = _precise(_SCALE_CONSTANT * math.pow(self.seconds() - self.last_throttle_time - self.time_window, 3) + self.last_max_rate)
        new_rate = min(calculated, 2 * self.measured_tx_rate)
        self._refill()
        self.fill_rate = max(new_rate, _MIN_FILL_RATE)
        self.max_capacity = max(new_rate, _MIN_CAPACITY)
        self.available_tokens = min(self.available_tokens, self.max_capacity)

    def _refill(self) -> None:
        timestamp = self.seconds()
        if not self.last_timestamp:
            self.last_timestamp = timestamp
            return
        fill = (timestamp - self.last_timestamp) * self.fill_rate
        self.available_tokens = min(self.max_capacity, self.available_tokens + fill)
        self.last_timestamp = timestamp

    def _calculate_time_window(self) -> None:
        self.time_window = _precise(math.pow((self.last_max_rate * (1 - _BETA)) / _SCALE_CONSTANT, 1 / 3))

    def _update_measured_rate(self) -> None:
        t = self.seconds()
        bucket = math.floor(t * 2) / 2
        self.request_count += 1
        if bucket > self.last_tx_rate_bucket:
            current = self.request_count / (bucket - self.last_tx_rate_bucket)
            self.measured_tx_rate = _precise(current * _SMOOTH + self.measured_tx_rate * (1 - _SMOOTH))
            self.request_count = 0
            self.last_tx_rate_bucket = bucket


# The playbook's limits ---------------------------------------------------------------------------


class Limit:
    __slots__ = ("name", "policy", "globs", "bucket", "adaptive", "headers")

    def __init__(self, name: str, policy: Mapping[str, Any], now: float, seconds: Callable[[], float]) -> None:
        tools = policy["tools"]
        limit = policy.get("limit")
        source = policy.get("from_headers")
        self.name = name
        self.policy = policy
        self.globs: List[str] = [tools] if isinstance(tools, str) else list(tools)
        burst = policy.get("burst")
        self.bucket = None if limit is None else TokenBucket(limit["requests"] if burst is None else burst, limit["requests"] / limit["per_ms"], now)
        self.adaptive = AwsAdaptiveLimiter(seconds) if policy.get("adaptive") == "aws" else None
        self.headers = None if source is None else header_spec_of(source)


class RateLimits:
    def __init__(self, policies: Mapping[str, Any], now: float, seconds: Callable[[], float]) -> None:
        self.limits = [Limit(name, policy, now, seconds) for name, policy in policies.items()]
        self.by_tool: Dict[str, List[Limit]] = {}

    def of(self, tool: str) -> List[Limit]:
        limits = self.by_tool.get(tool)
        if limits is None:
            limits = [lim for lim in self.limits if any(glob_matches(g, tool) for g in lim.globs)]
            if len(self.by_tool) >= 4096:
                self.by_tool.clear()
            self.by_tool[tool] = limits
        return limits

    def pace(self, tool: str, now: float, until_ms: Optional[float], wait: bool = True) -> Json:
        """Reserve a token of each limit over the tool: {"kind": "go", "wait_ms", "limit"} or {"kind": "refused", "limit"}."""
        limits = self.of(tool)
        wait_ms: float = 0
        on: Optional[str] = None
        reserved: List[TokenBucket] = []
        for lim in limits:
            bucket = lim.bucket
            if bucket is None:
                continue
            ms = bucket.reserve(now)
            reserved.append(bucket)
            if ms <= 0:
                continue
            max_wait = lim.policy.get("max_wait_ms")
            bound = min(math.inf if max_wait is None else max_wait, math.inf if until_ms is None else until_ms - now)
            if not wait or lim.policy.get("when_empty") == "fail" or ms > bound:
                for b in reserved:
                    b.release()
                return {"kind": "refused", "limit": lim.name}
            if ms > wait_ms:
                wait_ms = ms
                on = lim.name
        return {"kind": "go", "wait_ms": wait_ms, "limit": on}

    def adaptive_of(self, tool: str) -> List[Limit]:
        return [lim for lim in self.of(tool) if lim.adaptive is not None]

    def answered(self, tool: str, headers: Optional[Mapping[str, Any]], throttling: bool, now: float, now_epoch_ms: float, hint_value: HintReader, ignored: Callable[[str, str, str], None]) -> None:
        for lim in self.of(tool):
            if lim.adaptive is not None:
                lim.adaptive.update(throttling)
            if lim.headers is not None and lim.bucket is not None and headers is not None:
                reading = read_quota(lim.headers, headers, now_epoch_ms, hint_value)
                if reading is None:
                    continue
                if "ignored" in reading:
                    ignored(lim.name, reading["ignored"], reading["value"])
                else:
                    lim.bucket.correct(reading, now)

    def listens(self, tool: str) -> bool:
        return any(lim.headers is not None or lim.adaptive is not None for lim in self.of(tool))
