/**
 * The fixed parts of the module `failbook gen py` writes: types that do not depend on the
 * registry, the lookup over the classifier tables, and the envelope constructor. Standard
 * library only, Python 3.9+, clean under `pyright --strict`.
 *
 * The lookup reads tables printed from the one classifier's compiled index
 * (src/engine/classifier.ts: the rules' compiled conditions, the buckets, the residual list)
 * and decides as its `classifyIndex` does: candidates from the error's buckets, the earliest
 * rule that holds wins. Where JavaScript and Python differ it follows JavaScript: statuses
 * must be integers (not booleans), field values compare by type (1 is not true), tools and
 * non-`u` patterns see UTF-16 code units, arrays stand for objects keyed "0", "1", ...
 */

/** Names the fixed parts bind at module level; names derived from codes must avoid them. */
export const PYTHON_FIXED_NAMES: ReadonlySet<string> = new Set([
  "annotations", "json", "re", "Any", "Dict", "Final", "FrozenSet", "List", "Literal", "Mapping", "NamedTuple", "Optional", "Sequence",
  "Tuple", "TypedDict", "Union", "cast", "get_args", "REGISTRY_NAME", "REGISTRY_REVISION", "FALLBACK_VERDICT", "FailureVerdict", "VERDICTS",
  "ReservedVerdict", "RESERVED_VERDICTS", "FailureClass", "FAILURE_CLASSES", "ErrorKind", "ERROR_KINDS", "ERROR_FIELDS",
  "SideEffectState", "AdapterErrorFields", "AdapterErrorLike", "AdapterError", "VerdictInfo", "VERDICT_INFO", "Jitter",
  "BackoffFormula", "CompensationAction", "PLAYBOOK", "classify", "is_failure_verdict", "is_error_kind", "CAUSE_DEPTH",
  "EnvelopeOptions", "FailureEnvelope", "make_envelope", "_envelope_of", "EnvelopeError", "Envelope", "RecoveryPacket", "OutcomeKind",
  "RetryWithBackoff", "RetryWithHint", "RefreshEvidence", "RestoreCheckpoint", "EscalateToHuman", "IssueReversal",
  "DeprecateToolCall", "Fallback", "Fail", "DeadLetter", "JitterRange", "RefreshCredentials", "ToolGlobs", "CircuitBreakerPolicy",
  "RetryBudgetPolicy", "RetryThrottlingPolicy", "HedgingPolicy", "ToolDeclaration", "PlaybookPolicies", "POLICIES",
  "RateLimitDialect", "RateLimitWindow", "RateLimitResetEpoch", "RateLimitResetDuration", "RateLimitHeaders", "RateLimitPolicy",
]);

/** The optional fields of AdapterErrorLike and AdapterError (which differ only in kind): written once for both. */
const ADAPTER_ERROR_FIELDS = ["message: str", "http_status: int", "provider_code: str", "side_effect_state: SideEffectState", "retry_after_ms: float", "headers: Mapping[str, str]", "fields: AdapterErrorFields", "cause: AdapterErrorLike"]
  .map((field) => `    ${field}`)
  .join("\n");

export const PY_ERROR_TYPES = String.raw`
SideEffectState = Literal["none", "unknown", "committed"]


class _AdapterErrorLikeRequired(TypedDict):
    kind: str


class AdapterErrorLike(_AdapterErrorLikeRequired, total=False):
    """An adapter error from outside the type system (parsed JSON, another adapter): any kind."""

${ADAPTER_ERROR_FIELDS}


class _AdapterErrorRequired(TypedDict):
    kind: ErrorKind


class AdapterError(_AdapterErrorRequired, total=False):
    """What an adapter reports for one failed attempt, in the registry's vocabulary (kind: ErrorKind)."""

${ADAPTER_ERROR_FIELDS}
`;

export const PY_ACTION_TYPES = String.raw`
class _JitterRangeRequired(TypedDict):
    min: float
    max: float


class JitterRange(_JitterRangeRequired, total=False):
    """The delay times a uniform draw from [min, max]; whole milliseconds when integer."""

    integer: bool


Jitter = Union[Literal["none", "full", "equal"], float, JitterRange]


class _BackoffRequired(TypedDict):
    strategy: Literal["exponential", "linear", "constant", "decorrelated"]
    base_ms: float


class BackoffFormula(_BackoffRequired, total=False):
    """A retry delay formula (retry number n from 0)."""

    factor: float
    cap_ms: float
    jitter: Jitter
    min_ms: float


class _RetryWithBackoffRequired(TypedDict):
    action: Literal["retry_with_backoff"]
    max_retries: int


class RetryWithBackoff(_RetryWithBackoffRequired, total=False):
    backoff_ms: Sequence[float]
    backoff: BackoffFormula


class _RetryWithHintRequired(TypedDict):
    action: Literal["retry_with_hint"]
    max_retries: int
    hint: str


class RetryWithHint(_RetryWithHintRequired, total=False):
    backoff_ms: Sequence[float]
    backoff: BackoffFormula


class RefreshEvidence(TypedDict):
    action: Literal["refresh_evidence"]
    then: Literal["retry", "abort"]


class RestoreCheckpoint(TypedDict):
    action: Literal["restore_checkpoint"]
    then: Literal["retry", "abort"]


class RefreshCredentials(TypedDict):
    action: Literal["refresh_credentials"]
    then: Literal["retry", "abort"]


class EscalateToHuman(TypedDict):
    action: Literal["escalate_to_human"]
    queue: str


class IssueReversal(TypedDict):
    action: Literal["issue_reversal"]
    reason: str


class DeprecateToolCall(TypedDict):
    action: Literal["deprecate_tool_call"]
    reason: str
    replan: bool


class Fallback(TypedDict):
    action: Literal["fallback"]
    tool: str


class _FailRequired(TypedDict):
    action: Literal["fail"]


class Fail(_FailRequired, total=False):
    message: str


class DeadLetter(TypedDict):
    action: Literal["dead_letter"]
    queue: str


CompensationAction = Union[
    RetryWithBackoff, RetryWithHint, RefreshEvidence, RestoreCheckpoint, RefreshCredentials,
    EscalateToHuman, IssueReversal, DeprecateToolCall, Fallback, Fail, DeadLetter,
]
"""The closed set of compensation actions, discriminated by "action"."""


ToolGlobs = Union[str, Sequence[str]]


class _CircuitBreakerRequired(TypedDict):
    tools: ToolGlobs


class CircuitBreakerPolicy(_CircuitBreakerRequired, total=False):
    """A circuit breaker: counts the attempts to the tools it guards; while open, fails them at once as circuit_open."""

    per: Literal["breaker", "tool"]
    failure_ratio: float
    minimum_throughput: int
    sampling_ms: float
    sampling_attempts: int
    buckets: int
    break_ms: float
    max_break_ms: float
    half_open_probes: int
    counts: Sequence[str]


class RetryBudgetPolicy(TypedDict, total=False):
    """Envoy's retry budget: retries in progress below max(min_concurrency, percent % of the calls in progress)."""

    percent: float
    min_concurrency: int


class RetryThrottlingPolicy(TypedDict):
    """gRPC's retryThrottling: retries only while the tokens are above max_tokens / 2."""

    max_tokens: float
    token_ratio: float


class _HedgingRequired(TypedDict):
    tools: ToolGlobs
    max_attempts: int


class HedgingPolicy(_HedgingRequired, total=False):
    """gRPC's hedgingPolicy: up to max_attempts in flight, one every delay_ms."""

    delay_ms: float
    non_fatal: Sequence[str]


RateLimitDialect = Literal["github", "openai", "anthropic", "ietf"]
"""The response headers a rate limit reads by a dialect's name: GitHub's, OpenAI's, Anthropic's, the IETF draft's."""


class RateLimitWindow(TypedDict):
    """requests tokens every per_ms."""

    requests: int
    per_ms: int


class RateLimitResetEpoch(TypedDict):
    name: str
    epoch: Literal["seconds", "ms"]


class RateLimitResetDuration(TypedDict):
    name: str
    duration: Literal[True]


class _RateLimitHeadersRequired(TypedDict):
    remaining: str


class RateLimitHeaders(_RateLimitHeadersRequired, total=False):
    """A rate limit's own headers: requests left, when the window resets (a delay in seconds, a Unix time, or a duration), the window's size."""

    reset: Union[str, RateLimitResetEpoch, RateLimitResetDuration]
    limit: str


class _RateLimitRequired(TypedDict):
    tools: ToolGlobs


class RateLimitPolicy(_RateLimitRequired, total=False):
    """A rate limit: a token bucket taken before every attempt of its tools (retries included; a hedge never waits)."""

    limit: RateLimitWindow
    burst: int
    from_headers: Union[RateLimitDialect, RateLimitHeaders]
    when_empty: Literal["wait", "fail"]
    max_wait_ms: int
    adaptive: Literal["aws"]


class ToolDeclaration(TypedDict, total=False):
    """What the playbook declares about the tools a glob matches."""

    idempotent: bool
    attempt_timeout_ms: float


class PlaybookPolicies(TypedDict, total=False):
    """The playbook's policies that every dispatch of a dispatcher shares."""

    attempt_timeout_ms: float
    tools: Mapping[str, ToolDeclaration]
    circuit_breakers: Mapping[str, CircuitBreakerPolicy]
    rate_limits: Mapping[str, RateLimitPolicy]
    retry_budget: RetryBudgetPolicy
    retry_throttling: RetryThrottlingPolicy
    hedging: HedgingPolicy
`;

/** The classifier's table types; the tables follow them, then PY_CLASSIFY. */
export const PY_CLASSIFIER_TYPES = String.raw`
# ---------------------------------------------------------------------------------------
# The classifier: tables printed from failbook's compiled index (src/engine/classifier.ts),
# and the same first-match lookup, so classify() decides as failbook classify does.
# ---------------------------------------------------------------------------------------

CAUSE_DEPTH: Final = 8
"""Causes are followed this deep, no deeper."""

_FieldKey = Tuple[str, Union[str, float, bool]]
"""A field value tagged by its JSON type ("s", "n" or "b"), so that 1 and True differ."""


class _Glob(NamedTuple):
    parts: Tuple[Tuple[int, ...], ...]
    """The literal runs between *s, as UTF-16 code units; -1 stands for ?."""
    star: bool


class _Pattern(NamedTuple):
    source: str
    """A Python re pattern, translated from the rule's JavaScript one; compiled at first use."""
    unicode: bool
    """False: the pattern runs over the message's UTF-16 code units, as JavaScript's does without u."""


class _Hint(NamedTuple):
    headers: Tuple[Tuple[str, bool, str], ...]
    """Lower-case header names in the policy's order, each with whether it is read as milliseconds and its form (delay, epoch_seconds, epoch_ms, duration)."""
    fields: Tuple[str, ...]
    parse: str
    """strict, number (JavaScript's Number) or float (parseFloat's numeric prefix)."""
    zero_absent: bool


class _Conditions(NamedTuple):
    kinds: Optional[Tuple[str, ...]] = None
    statuses: Optional[Tuple[int, ...]] = None
    ranges: Tuple[Tuple[int, int], ...] = ()
    provider_codes: Optional[Tuple[str, ...]] = None
    texts: Optional[Tuple[str, ...]] = None
    patterns: Optional[Tuple[_Pattern, ...]] = None
    globs: Optional[Tuple[_Glob, ...]] = None
    states: Optional[Tuple[str, ...]] = None
    headers: Optional[Tuple[Tuple[str, Optional[Tuple[str, ...]]], ...]] = None
    fields: Optional[Tuple[Tuple[str, Tuple[_FieldKey, ...]], ...]] = None
    cause: Optional[_Conditions] = None
    not_: Optional[_Conditions] = None
    """Holds when this inner rule does not."""
    hint: Optional[_Hint] = None
    """retry_after: present, with the retry_after policy it reads."""


class _Rule(NamedTuple):
    verdict: FailureVerdict
    test: _Conditions


def _tuple(values: Any) -> Any:
    return None if values is None else tuple(values)


def _conditions(c: Any) -> _Conditions:
    """A rule's conditions from their JSON in the rule table: the fields it tests, as lists."""
    patterns: Any = c.get("patterns")
    globs: Any = c.get("globs")
    headers: Any = c.get("headers")
    fields: Any = c.get("fields")
    cause: Any = c.get("cause")
    not_: Any = c.get("not_")
    hint: Any = c.get("hint")
    return _Conditions(
        kinds=_tuple(c.get("kinds")),
        statuses=_tuple(c.get("statuses")),
        ranges=tuple((lo, hi) for lo, hi in c.get("ranges", ())),
        provider_codes=_tuple(c.get("provider_codes")),
        texts=_tuple(c.get("texts")),
        patterns=None if patterns is None else tuple(_Pattern(source, unicode) for source, unicode in patterns),
        globs=None if globs is None else tuple(_Glob(tuple(tuple(part) for part in parts), star) for parts, star in globs),
        states=_tuple(c.get("states")),
        headers=None if headers is None else tuple((name, _tuple(values)) for name, values in headers),
        # A number is a float, as JavaScript's are: 1 and 1.0 are one field value ("inf", "nan" as text).
        fields=None if fields is None else tuple((name, tuple((tag, float(v) if tag == "n" else v) for tag, v in values)) for name, values in fields),
        cause=None if cause is None else _conditions(cause),
        not_=None if not_ is None else _conditions(not_),
        hint=None if hint is None else _Hint(tuple((name, ms, form) for name, ms, form in hint[0]), tuple(hint[1]), hint[2], hint[3]),
    )


def _buckets(text: str) -> Dict[str, Tuple[int, ...]]:
    """An index of rules by a string value from its JSON: value -> rule positions."""
    table: Dict[str, List[int]] = json.loads(text)
    return {key: tuple(positions) for key, positions in table.items()}


def _rule_table(text: str) -> Tuple[_Rule, ...]:
    """The rules from their JSON, one [verdict, conditions] a line: a type checker reads one string, not 20,000 calls."""
    return tuple(_Rule(verdict, _conditions(test)) for verdict, test in json.loads(text))
`;

/**
 * What each verdict's constructor calls: its code as a plain string. Passed straight to
 * make_envelope, each of 10,000 literals was checked against the FailureVerdict union of
 * 10,000 members, and pyright --strict did not finish.
 */
export const PY_ENVELOPE_OF = String.raw`
def _envelope_of(code: str, error: Optional[AdapterErrorLike], options: Optional[EnvelopeOptions]) -> FailureEnvelope:
    return make_envelope(cast(FailureVerdict, code), error, options)
`.trim();

/** The redaction functions, after the pattern tables that python.ts writes. */
export const PY_REDACT = String.raw`
def _from_utf16(units: str) -> str:
    """The text of JavaScript code units, surrogate pairs joined again (lone surrogates stay)."""
    return units.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _keep_label(m: re.Match[str]) -> str:
    return m.group(1) + _REDACTED


def _own(m: re.Match[str]) -> str:
    # A zero-length match would wedge [REDACTED] between every character: lint reports such a pattern.
    return "" if m.group(0) == "" else _REDACTED


def _redact(text: str) -> str:
    """Every secret in the text replaced by [REDACTED], exactly as failbook redacts (redactSecrets)."""
    out = text
    units = text if text.isascii() else _utf16(text)
    if len(units) >= _SHORTEST_SECRET:
        lowered = units.lower()
        if _SECRET_HINT.search(lowered) is not None:
            families = [(pattern, keep) for pattern, keep, words in _SECRET_FAMILIES if words.search(lowered) is not None]
            # The exact scan only where a family may match, or where the text is written back from its code units.
            if (families or units is not text) and _SECRET_TRIGGER.search(units) is not None:
                for pattern, keep in families:
                    units = pattern.sub(_keep_label, units) if keep else pattern.sub(_REDACTED, units)
                out = units if units is text else _from_utf16(units)
    for pattern in _REDACT_PATTERNS:
        out = pattern.sub(_own, out)
    return out


def _redact_details(value: object) -> object:
    """Secrets in an adapter's details (strings at any depth) are redacted like its message; keys stay."""
    if isinstance(value, str):
        return _redact(value)
    if isinstance(value, (list, tuple)):
        return [_redact_details(item) for item in cast(Sequence[object], value)]
    if isinstance(value, Mapping):
        return {key: _redact_details(item) for key, item in cast(Mapping[str, object], value).items()}
    return value
`;

export const PY_CLASSIFY = String.raw`
def _object(value: object) -> Optional[Mapping[str, object]]:
    """An object of the error, as JavaScript sees one: a mapping, or a list keyed "0", "1", ..."""
    # None and a dict first: typing's Mapping answers isinstance through two more calls.
    if value is None:
        return None
    if type(value) is dict or isinstance(value, Mapping):
        return cast(Mapping[str, object], value)
    if isinstance(value, list):
        return {str(i): item for i, item in enumerate(cast(List[object], value))}
    return None


def _integer(value: object) -> Optional[int]:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _field_key(value: object) -> Optional[_FieldKey]:
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, (int, float)):
        try:
            return ("n", float(value))
        except OverflowError:
            return ("n", float("inf") if value > 0 else float("-inf"))
    if isinstance(value, str):
        return ("s", value)
    return None


def _utf16(text: str) -> str:
    """The text with each astral character split into its surrogate pair (JavaScript's code units)."""
    if text.isascii() or max(text) < "\U00010000":
        return text
    out: List[str] = []
    for ch in text:
        code = ord(ch)
        if code < 0x10000:
            out.append(ch)
        else:
            code -= 0x10000
            out.append(chr(0xD800 + (code >> 10)))
            out.append(chr(0xDC00 + (code & 0x3FF)))
    return "".join(out)


class _Probe:
    """One error being classified, its fields read once; absent or mistyped fields are None."""

    __slots__ = ("kind", "message", "status", "provider_code", "state", "headers", "fields", "cause", "tool",
                 "_lower_message", "_utf16_message", "_lower_headers", "_tool_units")

    def __init__(self, error: Mapping[str, object], tool: Optional[str]) -> None:
        kind = error.get("kind")
        message = error.get("message")
        provider_code = error.get("provider_code")
        state = error.get("side_effect_state")
        self.kind: Optional[str] = kind if isinstance(kind, str) else None
        self.message: str = message if isinstance(message, str) else ""
        self.status: Optional[int] = _integer(error.get("http_status"))
        self.provider_code: Optional[str] = provider_code if isinstance(provider_code, str) else None
        self.state: Optional[str] = state if isinstance(state, str) else None
        self.headers: Optional[Mapping[str, object]] = _object(error.get("headers"))
        self.fields: Optional[Mapping[str, object]] = _object(error.get("fields"))
        self.cause: Optional[Mapping[str, object]] = _object(error.get("cause"))
        self.tool: Optional[str] = tool if isinstance(tool, str) else None
        self._lower_message: Optional[str] = None
        self._utf16_message: Optional[str] = None
        self._lower_headers: Optional[Dict[str, str]] = None
        self._tool_units: Optional[List[int]] = None

    def lower_message(self) -> str:
        if self._lower_message is None:
            self._lower_message = self.message.lower()
        return self._lower_message

    def utf16_message(self) -> str:
        if self._utf16_message is None:
            self._utf16_message = _utf16(self.message)
        return self._utf16_message

    def lower_headers(self) -> Dict[str, str]:
        if self._lower_headers is None:
            lowered: Dict[str, str] = {}
            if self.headers is not None:
                for name, value in self.headers.items():
                    if isinstance(value, str):
                        lowered[name.lower()] = value
            self._lower_headers = lowered
        return self._lower_headers

    def tool_units(self) -> List[int]:
        if self._tool_units is None:
            self._tool_units = [ord(ch) for ch in _utf16(self.tool or "")]
        return self._tool_units


def _part_at(part: Tuple[int, ...], units: List[int], at: int) -> bool:
    for k, code in enumerate(part):
        if code != -1 and units[at + k] != code:
            return False
    return True


def _glob_holds(glob: _Glob, units: List[int]) -> bool:
    """A glob against a tool name: first part anchored at the start, last at the end, middle parts leftmost."""
    parts = glob.parts
    first = parts[0]
    if not glob.star:
        return len(first) == len(units) and _part_at(first, units, 0)
    last = parts[-1]
    end = len(units) - len(last)
    if end < len(first) or not _part_at(first, units, 0) or not _part_at(last, units, end):
        return False
    at = len(first)
    for part in parts[1:-1]:
        found = -1
        p = at
        while p + len(part) <= end:
            if _part_at(part, units, p):
                found = p
                break
            p += 1
        if found < 0:
            return False
        at = found + len(part)
    return True


_COMPILED: Dict[str, re.Pattern[str]] = {}


def _search(pattern: _Pattern, p: _Probe) -> bool:
    regex = _COMPILED.get(pattern.source)
    if regex is None:
        regex = _COMPILED[pattern.source] = re.compile(pattern.source, re.ASCII)
    return regex.search(p.message if pattern.unicode else p.utf16_message()) is not None


def _status_holds(c: _Conditions, status: int) -> bool:
    if c.statuses is not None and status in c.statuses:
        return True
    return any(lo <= status <= hi for lo, hi in c.ranges)


def _holds(c: _Conditions, p: _Probe, depth: int) -> bool:
    """Does every field of the rule hold for the error?"""
    if c.kinds is not None and (p.kind is None or p.kind not in c.kinds):
        return False
    if c.statuses is not None and (p.status is None or not _status_holds(c, p.status)):
        return False
    if c.provider_codes is not None and (p.provider_code is None or p.provider_code not in c.provider_codes):
        return False
    if c.states is not None and (p.state is None or p.state not in c.states):
        return False
    if c.texts is not None:
        message = p.lower_message()
        if not any(text in message for text in c.texts):
            return False
    if c.patterns is not None:
        if not any(_search(pattern, p) for pattern in c.patterns):
            return False
    if c.globs is not None:
        if p.tool is None:
            return False
        units = p.tool_units()
        if not any(_glob_holds(glob, units) for glob in c.globs):
            return False
    if c.headers is not None:
        headers = p.lower_headers()
        for name, values in c.headers:
            value = headers.get(name)
            if value is None or (values is not None and value not in values):
                return False
    if c.fields is not None:
        fields = p.fields
        for name, keys in c.fields:
            if fields is None or name not in fields:
                return False
            key = _field_key(fields[name])
            if key is None or key not in keys:
                return False
    if c.cause is not None:
        cause = p.cause
        d = depth
        found = False
        while not found and d < CAUSE_DEPTH and cause is not None:
            inner = _Probe(cause, p.tool)
            found = _holds(c.cause, inner, d + 1)
            cause = inner.cause
            d += 1
        if not found:
            return False
    if c.hint is not None and not _hint_present(c.hint, p):
        return False
    if c.not_ is not None and _holds(c.not_, p, depth):
        return False
    return True


# Server hints, read as failbook's hintValue reads them (JavaScript's whitespace, Number and
# parseFloat; decimals moved by their digits, never through binary floating point).
_JS_SPACE: Final = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_WS = "[" + _JS_SPACE + "]*"
_STRICT_NUMBER: Final = re.compile(_WS + r"([-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))" + _WS)
_JS_DECIMAL = r"[-+]?(?:Infinity|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)"
_JS_NUMBER: Final = re.compile(_JS_DECIMAL + r"|0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+")
_JS_FLOAT: Final = re.compile(_JS_DECIMAL)
_DECIMAL: Final = re.compile(r"([-+]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([-+]?[0-9]+))?")
_MAX_HINT_MS: Final = 2592000000
_HintValue = Optional[Tuple[str, int, bool]]
"""("delay", ms, exactly zero), ("date", ms since the epoch, False), ("negative", 0, False), or None."""
_MONTHS: Final = "JanFebMarAprMayJunJulAugSepOctNovDec"
_IMF_FIXDATE: Final = re.compile(r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), ([0-9]{2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) ([0-9]{4}) ([0-9]{2}):([0-9]{2}):([0-9]{2}) GMT")
_RFC_850: Final = re.compile(r"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), ([0-9]{2})-(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)-([0-9]{2}) ([0-9]{2}):([0-9]{2}):([0-9]{2}) GMT")
_ASCTIME: Final = re.compile(r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) ([ 0-9][0-9]) ([0-9]{2}):([0-9]{2}):([0-9]{2}) ([0-9]{4})")


def _finite(n: float) -> Optional[float]:
    return None if n in (float("inf"), float("-inf")) or n != n else n


def _js_number(value: str) -> Optional[float]:
    text = value.strip(_JS_SPACE)
    if text == "":
        return 0.0
    if _JS_NUMBER.fullmatch(text) is None:
        return None
    try:
        return _finite(float(int(text, 0)) if text[:2].lower() in ("0x", "0o", "0b") else float(text))
    except OverflowError:
        return None


def _js_float(value: str) -> Optional[float]:
    m = _JS_FLOAT.match(value.lstrip(_JS_SPACE))
    return None if m is None else _finite(float(m.group(0)))


def _decimal_hint(numeral: str, shift: int) -> _HintValue:
    m = _DECIMAL.fullmatch(numeral)
    if m is None:
        return None
    fraction = m.group(3) or ""
    digits = (m.group(2) + fraction).lstrip("0")
    if digits == "":
        return ("delay", 0, True)
    if m.group(1) == "-":
        return ("negative", 0, False)
    whole = len(digits) - len(fraction) + shift + (0 if m.group(4) is None else int(m.group(4)))
    if whole > 16:
        return ("delay", _MAX_HINT_MS, False)
    integer = 0 if whole <= 0 else int(digits[:whole] if len(digits) >= whole else digits + "0" * (whole - len(digits)))
    return ("delay", min(_MAX_HINT_MS, integer), False)


def _utc_ms(year: int, month_name: str, day: int, hour: int, minute: int, second: int) -> Optional[int]:
    month = _MONTHS.index(month_name) // 3 + 1
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = (29 if leap else 28) if month == 2 else 30 if month in (4, 6, 9, 11) else 31
    if day < 1 or day > days or hour > 23 or minute > 59 or second > 60:
        return None
    y = year - 1 if month <= 2 else year
    era = y // 400
    yoe = y - era * 400
    doy = (153 * ((month + 9) % 12) + 2) // 5 + day - 1
    epoch_days = era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468
    return ((epoch_days * 24 + hour) * 60 + minute) * 60000 + second * 1000


def _http_date(value: str) -> Optional[int]:
    text = value.strip(_JS_SPACE)
    m = _IMF_FIXDATE.fullmatch(text)
    if m is not None:
        return _utc_ms(int(m.group(3)), m.group(2), int(m.group(1)), int(m.group(4)), int(m.group(5)), int(m.group(6)))
    m = _RFC_850.fullmatch(text)
    if m is not None:
        year = int(m.group(3))
        return _utc_ms(year + (2000 if year < 50 else 1900), m.group(2), int(m.group(1)), int(m.group(4)), int(m.group(5)), int(m.group(6)))
    m = _ASCTIME.fullmatch(text)
    if m is not None:
        return _utc_ms(int(m.group(6)), m.group(1), int(m.group(2).strip()), int(m.group(3)), int(m.group(4)), int(m.group(5)))
    return None


_DURATION = re.compile(r"[-+]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:h|ms|m|s|us|\u00b5s|ns))+", re.ASCII)
_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(h|ms|m|s|us|\u00b5s|ns)", re.ASCII)
_DURATION_MS = {"h": 3600000.0, "m": 60000.0, "s": 1000.0, "ms": 1.0, "us": 0.001, "\u00b5s": 0.001, "ns": 0.000001}


def _duration_hint(value: str) -> _HintValue:
    """A duration as Go writes one (1m30.5s, 6m0s, 20ms), as failbook's durationHint reads it."""
    text = value.strip(_JS_SPACE)
    if _DURATION.fullmatch(text) is None:
        return None
    if text.startswith("-"):
        return ("negative", 0, False)
    total = 0.0
    for m in _DURATION_PART.finditer(text):
        total += float(m.group(1)) * _DURATION_MS[m.group(2)]
    # To the microsecond first, with JavaScript's Math.round (half up); int() floors what is not negative.
    return ("delay", min(_MAX_HINT_MS, int(int(total * 1000 + 0.5) / 1000)), total == 0)


def _hint_value(value: str, ms: bool, parse: str, form: str = "delay") -> _HintValue:
    if len(_utf16(value)) > 100:
        return None
    if form == "duration":
        return _duration_hint(value)
    if form != "delay":
        m = _STRICT_NUMBER.fullmatch(value)
        if m is None:
            return None
        n = float(m.group(1)) * (1000 if form == "epoch_seconds" else 1)
        return ("date", int(n), False) if _finite(n) is not None and n >= 0 else None
    numeral: Optional[str] = None
    if parse == "strict":
        m = _STRICT_NUMBER.fullmatch(value)
        if m is not None:
            numeral = m.group(1)
    else:
        n = _js_number(value) if parse == "number" else _js_float(value)
        if n is not None:
            numeral = repr(n)
    if numeral is not None:
        return _decimal_hint(numeral, 0 if ms else 3)
    if ms:
        return None
    at = _http_date(value)
    return None if at is None else ("date", at, False)


def _field_hint(value: object) -> _HintValue:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        n = float(value)
    except OverflowError:
        return None
    return None if _finite(n) is None else _decimal_hint(repr(value), 0)


def _hint_present(h: _Hint, p: _Probe) -> bool:
    """Does a header or field of the policy yield a valid hint? An HTTP date does, whatever the time."""
    if p.headers is not None:
        headers = p.lower_headers()
        for name, ms, form in h.headers:
            value = headers.get(name)
            if value is None:
                continue
            hint = _hint_value(value, ms, h.parse, form)
            if hint is not None and hint[0] != "negative" and not (hint[0] == "delay" and hint[2] and h.zero_absent):
                return True
    fields = p.fields
    for name in h.fields:
        if fields is None or name not in fields:
            continue
        hint = _field_hint(fields[name])
        if hint is not None and hint[0] == "delay" and not (hint[2] and h.zero_absent):
            return True
    return False


def _candidates(p: _Probe) -> List[Tuple[int, ...]]:
    """The rules whose bucket the error's values select, plus the residual rules."""
    lists: List[Tuple[int, ...]] = [_RESIDUAL]
    if p.kind is not None and p.kind in _KIND_INDEX:
        lists.append(_KIND_INDEX[p.kind])
    if p.provider_code is not None and p.provider_code in _PROVIDER_CODE_INDEX:
        lists.append(_PROVIDER_CODE_INDEX[p.provider_code])
    if p.status is not None:
        if p.status in _STATUS_INDEX:
            lists.append(_STATUS_INDEX[p.status])
        if p.status // 100 in _STATUS_CLASS_INDEX:
            lists.append(_STATUS_CLASS_INDEX[p.status // 100])
    if p.state is not None and p.state in _STATE_INDEX:
        lists.append(_STATE_INDEX[p.state])
    if p.tool is not None and p.tool in _TOOL_INDEX:
        lists.append(_TOOL_INDEX[p.tool])
    if p.headers is not None and (_HEADER_INDEX or _HEADER_ANY_INDEX):
        for name, value in p.lower_headers().items():
            by_value = _HEADER_INDEX.get(name)
            if by_value is not None and value in by_value:
                lists.append(by_value[value])
            if name in _HEADER_ANY_INDEX:
                lists.append(_HEADER_ANY_INDEX[name])
    if _TEXT_INDEX and len(p.message) >= 3:
        message = p.lower_message()
        seen: Dict[str, bool] = {}
        for i in range(len(message) - 2):
            trigram = message[i:i + 3]
            if trigram in _TEXT_INDEX and trigram not in seen:
                seen[trigram] = True
                lists.append(_TEXT_INDEX[trigram])
    if p.fields is not None and _FIELD_INDEX:
        for name, value in p.fields.items():
            by_key = _FIELD_INDEX.get(name)
            key = _field_key(value)
            if by_key is not None and key is not None and key in by_key:
                lists.append(by_key[key])
    return lists


def classify(error: Optional[Mapping[str, object]], tool: Optional[str] = None) -> FailureVerdict:
    """The verdict for one failed attempt: the first rule that holds wins, in registry order;
    no rule holding, or no error at all (None), gives FALLBACK_VERDICT. Reserved verdicts
    have no rules here, so they never match."""
    mapping: Optional[Mapping[str, object]] = _object(error)
    if mapping is None:
        # Not an object: as failbook does, a falsy value is no error at all, another one an error with no fields.
        if not error:
            return FALLBACK_VERDICT
        mapping = {}
    probe = _Probe(mapping, tool)
    lists = _candidates(probe)
    # Shortest lists first: what they find bounds the scan of the long ones.
    if len(lists) <= 16:
        lists.sort(key=len)
    best = len(_RULES)
    for candidates in lists:
        for at in candidates:
            if at >= best:
                break
            if _holds(_RULES[at].test, probe, 0):
                best = at
                break
    return _RULES[best].verdict if best < len(_RULES) else FALLBACK_VERDICT
`;

/**
 * The fields a failure envelope shares with the dispatcher's envelope error (after code and
 * class, whose class is optional in the latter): written once for both TypedDicts.
 */
const ENVELOPE_ERROR_FIELDS = [
  '"retryable": bool',
  '"side_effect_state": SideEffectState',
  '"human_action_required": bool',
  '"retry_after_ms": Optional[float]',
  '"summary": Optional[str]',
  '"message": Optional[str]',
  '"recovery_hint": Optional[str]',
  '"safe_next_actions": List[str]',
  '"unsafe_next_actions": List[str]',
]
  .map((field) => `    ${field},`)
  .join("\n");

export const PY_ENVELOPE = String.raw`
class EnvelopeOptions(TypedDict, total=False):
    """What an adapter adds to the registry's facts when it builds an envelope."""

    message: str
    """Overrides the error's message."""
    side_effect_state: SideEffectState
    """Overrides the error's side_effect_state; default: the verdict's side_effect."""
    retry_after_ms: float
    idempotent: bool
    """False when the call must not be repeated (a non-idempotent tool): the envelope is then not retryable."""
    trace_id: str
    details: Mapping[str, object]


FailureEnvelope = TypedDict("FailureEnvelope", {
    "code": FailureVerdict,
    "class": FailureClass,
${ENVELOPE_ERROR_FIELDS}
    "boundary": Optional[str],
    "trace_id": Optional[str],
    "details": Optional[Mapping[str, object]],
})
"""What the agent is shown for one failure: the dispatcher's envelope error, plus boundary, trace_id and details."""


def make_envelope(code: FailureVerdict, error: Optional[AdapterErrorLike] = None, options: Optional[EnvelopeOptions] = None) -> FailureEnvelope:
    """The envelope for one failure of verdict code, from the registry's facts and the adapter error."""
    info = VERDICT_INFO[code]
    opts: EnvelopeOptions = options if options is not None else {}
    err: AdapterErrorLike = error if error is not None else {"kind": ""}
    state: SideEffectState = opts.get("side_effect_state", err.get("side_effect_state", info["side_effect"]))
    retry_after = opts.get("retry_after_ms", err.get("retry_after_ms"))
    message = opts.get("message", err.get("message"))
    trace_id = opts.get("trace_id")
    details = opts.get("details")
    return {
        "code": code,
        "class": info["class"],
        "retryable": info["retryable"] and state != "committed" and opts.get("idempotent", True),
        "side_effect_state": state,
        "human_action_required": info["human_action_required"],
        "retry_after_ms": retry_after,
        "summary": info["summary"],
        "message": None if message is None else _redact(message),
        "recovery_hint": info["recovery"],
        "safe_next_actions": list(info["safe_next_actions"]),
        "unsafe_next_actions": list(info["unsafe_next_actions"]),
        "boundary": info["boundary"],
        "trace_id": None if trace_id is None else _redact(trace_id),
        "details": cast(Mapping[str, object], _redact_details(details)) if details is not None else None,
    }


OutcomeKind = Literal["succeeded", "recovered", "deprecated", "escalated", "reversed", "exhausted", "failed", "dead_lettered", "needs_input", "compensated"]

EnvelopeError = TypedDict("EnvelopeError", {
    "code": FailureVerdict,
    "class": Optional[FailureClass],
${ENVELOPE_ERROR_FIELDS}
})
"""The last failure in a dispatcher's envelope, as the registry describes it."""


class Envelope(TypedDict):
    """What failbook's dispatcher shows the agent at the end of a call."""

    ok: bool
    tool: str
    outcome: OutcomeKind
    reason: Optional[str]
    replan: bool
    trace_id: str
    attempts: int
    retried: int
    error: Optional[EnvelopeError]


class RecoveryPacket(TypedDict):
    """What failbook's dispatcher shows a person when a call escalates."""

    trace_id: str
    tool: str
    failed_step: str
    queue: str
    code: Optional[FailureVerdict]
    summary: Optional[str]
    reason: Optional[str]
    attempts: int
    retried: int
    elapsed_ms: float
    idempotency_key: str
    side_effect_state: Optional[SideEffectState]
    safe_next_actions: List[str]
    unsafe_next_actions: List[str]
    suggested_prompt: str
`;
