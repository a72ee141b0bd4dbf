"""Ports of failbook-runtime's small pure pieces, bit for bit: the seeded random source
(mulberry32), the cyrb53 trace hash, RFC 8785 canonical JSON with ECMAScript's number
text, the idempotency key and the trace id (SPEC 4), globs, and JSON written as
JavaScript's JSON.stringify writes it (records byte for byte)."""

from __future__ import annotations

import hashlib
import json.encoder
import math
import re
import secrets
from collections.abc import Mapping
from typing import Any, Callable, Dict, List, Sequence, cast

Random = Callable[[], float]
"""A random source: uniform in [0, 1)."""

_M = 0xFFFFFFFF


def _imul(a: int, b: int) -> int:
    return (a * b) & _M


def _to_uint32(seed: float) -> int:
    if isinstance(seed, float):
        if seed != seed or seed in (math.inf, -math.inf):
            return 0
        seed = math.trunc(seed)
    return int(seed) & _M


def seeded_random(seed: float) -> Random:
    """mulberry32, exactly as failbook-runtime's seededRandom: the same seed gives the same draws in both languages."""
    state = [_to_uint32(seed)]

    def draw() -> float:
        a = (state[0] + 0x6D2B79F5) & _M
        state[0] = a
        t = a
        t = _imul(t ^ (t >> 15), t | 1)
        t ^= (t + _imul(t ^ (t >> 7), t | 61)) & _M
        return (t ^ (t >> 14)) / 4294967296

    return draw


def system_random() -> Random:
    """A seeded source whose seed comes from the operating system's generator (a fleet must not retry in step)."""
    return seeded_random(secrets.randbits(32))


def max_random() -> float:
    """Always the top of the range: the static worst case of a jittered schedule."""
    return 1.0


def _utf16_units(text: str) -> List[int]:
    data = text.encode("utf-16-le", "surrogatepass")
    return [data[i] | (data[i + 1] << 8) for i in range(0, len(data), 2)]


_HEX = "0123456789abcdef"


def tagged_hex48(tag: str, text: str) -> str:
    """cyrb53's 48 bits of `text` (its UTF-16 code units) as 12 hex digits after `tag`."""
    h1 = 0xDEADBEEF
    h2 = 0x41C6CE57
    for ch in _utf16_units(text) if not text.isascii() else (ord(c) for c in text):
        h1 = _imul(h1 ^ ch, 2654435761)
        h2 = _imul(h2 ^ ch, 1597334677)
    h1 = _imul(h1 ^ (h1 >> 16), 2246822507) ^ _imul(h2 ^ (h2 >> 13), 3266489909)
    h2 = _imul(h2 ^ (h2 >> 16), 2246822507) ^ _imul(h1 ^ (h1 >> 13), 3266489909)
    return tag + "".join(_HEX[(h2 >> s) & 15] for s in (12, 8, 4, 0)) + "".join(_HEX[(h1 >> s) & 15] for s in (28, 24, 20, 16, 12, 8, 4, 0))


def js_number(x: float) -> str:
    """A number as ECMAScript's Number::toString writes it (JSON.stringify's numbers)."""
    if type(x) is int and -9007199254740992 <= x <= 9007199254740992:
        return str(x)
    if isinstance(x, bool):
        raise TypeError("a boolean is no number")
    if isinstance(x, int):
        if abs(x) <= 2**53:
            return str(x)
        x = float(x)
    if x != x or x in (math.inf, -math.inf):
        raise ValueError("JSON has no representation for NaN or Infinity")
    if x == 0:
        return "0"
    if x < 0:
        return "-" + js_number(-x)
    mant, _, exp = repr(x).partition("e")
    e = int(exp) if exp else 0
    ip, _, fp = mant.partition(".")
    whole = ip + fp
    stripped = whole.lstrip("0")
    n = len(ip) - (len(whole) - len(stripped)) + e
    digits = stripped.rstrip("0")
    k = len(digits)
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    e2 = n - 1
    sign = "+" if e2 >= 0 else "-"
    return (digits if k == 1 else digits[0] + "." + digits[1:]) + "e" + sign + str(abs(e2))


_ascii_string: Callable[[str], str] = json.encoder.encode_basestring  # pyright: ignore[reportUnknownMemberType]
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_NEEDS_ESCAPE = re.compile("[\"\\\\\x00-\x1f\ud800-\udfff]")


def _escape(m: re.Match[str]) -> str:
    ch = m.group(0)
    return _ESCAPES.get(ch) or "\\u%04x" % ord(ch)


def js_string(text: str) -> str:
    """A string literal as JSON.stringify writes it (well-formed: a lone surrogate escaped)."""
    if text.isascii():
        # The json module's C encoder writes ASCII as JSON.stringify does (\b \f \n \r \t, \u00xx for other controls).
        return _ascii_string(text)
    return '"' + _NEEDS_ESCAPE.sub(_escape, text) + '"'


def js_json(value: object) -> str:
    """`JSON.stringify(value)`: no white space, keys in insertion order, ECMAScript's numbers."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return js_string(value)
    if isinstance(value, (int, float)):
        try:
            return js_number(value)
        except ValueError:
            return "null"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(js_json(v) for v in cast(Sequence[object], value)) + "]"
    if isinstance(value, Mapping):
        items: Mapping[Any, Any] = value  # pyright: ignore[reportUnknownVariableType]
        return "{" + ",".join(js_string(str(k)) + ":" + js_json(v) for k, v in items.items()) + "}"
    raise TypeError("no JSON form for a " + type(value).__name__)


def _utf16_key(key: str) -> List[int]:
    return _utf16_units(key)


def canonical_json(value: object) -> str:
    """RFC 8785 canonical JSON: keys sorted by UTF-16 code units, ECMAScript's numbers. NaN and Infinity raise."""
    kind = type(value)
    if kind is str:
        return js_string(cast(str, value))
    if kind is int:
        return js_number(cast(int, value))
    if kind is dict:
        # The common arguments: a plain dict with ASCII keys, whose code-point order is their UTF-16 order.
        plain: Dict[Any, Any] = cast(Any, value)
        for k in plain:
            if type(k) is not str or not k.isascii():
                break
        else:
            parts: List[str] = []
            for k in sorted(plain):
                v: object = plain[k]
                # A string or a safe integer written here, as the branches above write them, without a call each.
                if type(v) is str:
                    text = _ascii_string(v) if v.isascii() else js_string(v)
                elif type(v) is int and -9007199254740992 <= v <= 9007199254740992:
                    text = str(v)
                else:
                    text = canonical_json(v)
                parts.append(_ascii_string(k) + ":" + text)
            return "{" + ",".join(parts) + "}"
    if isinstance(value, str) or value is None or isinstance(value, bool):
        return js_json(value)
    if isinstance(value, (int, float)):
        return js_number(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(canonical_json(v) for v in cast(Sequence[object], value)) + "]"
    if isinstance(value, Mapping):
        items: Mapping[str, Any] = value  # pyright: ignore[reportUnknownVariableType]
        keys = sorted(items.keys(), key=_utf16_key)
        return "{" + ",".join(js_string(k) + ":" + canonical_json(items[k]) for k in keys) + "}"
    raise TypeError("canonical JSON has no representation for a " + type(value).__name__)


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def idempotency_key(run_id: str, call: Mapping[str, Any]) -> str:
    """The call's idempotency key: its own when it gives one, else SHA-256 of run, id, tool and canonical arguments (SPEC 4)."""
    own = call.get("idempotency_key")
    if own is not None:
        return str(own)
    args = call.get("args")
    return sha256_hex(run_id + "\n" + str(call["id"]) + "\n" + str(call["tool"]) + "\n" + canonical_json({} if args is None else args))


_HEX_LOWER = frozenset("0123456789abcdef")
_HEX_ANY = frozenset("0123456789abcdefABCDEF")


_TRACE_IDS: Dict[str, str] = {}
"""Trace ids by key, remembered: the calls of a service bring the same keys again (bounded: emptied at 4096)."""


def trace_id(key: str) -> str:
    """`fb_` and the key's first 12 hex digits; a key that does not start with 12 gets 12 of a cyrb53 hash."""
    known = _TRACE_IDS.get(key)
    if known is not None:
        return known
    head = key[:12]
    if len(head) == 12 and _HEX_ANY.issuperset(head):
        made = "fb_" + (head if _HEX_LOWER.issuperset(head) else head.lower())
    else:
        made = tagged_hex48("fb_", key)
    if len(_TRACE_IDS) >= 4096:
        _TRACE_IDS.clear()
    if len(key) <= 256:
        _TRACE_IDS[key] = made
    return made


def checked_trace_id(value: object) -> str:
    """A caller's W3C trace-id (SPEC 21): 32 lower-case hex digits, not all zero."""
    if isinstance(value, str) and len(value) == 32 and all(c in _HEX_LOWER for c in value) and value != "0" * 32:
        return value
    raise TypeError("failbook: trace_id must be a W3C trace-id: 32 lower-case hex digits, not all zero (an OpenTelemetry span's trace_id, formatted '032x')")


_GLOBS: Dict[str, "re.Pattern[str]"] = {}


def glob_matches(glob: str, text: str) -> bool:
    """`*` is any run of characters (dots included), `?` one character; all else is literal."""
    compiled = _GLOBS.get(glob)
    if compiled is None:
        compiled = re.compile("".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in glob), re.DOTALL)
        if len(_GLOBS) < 10000:
            _GLOBS[glob] = compiled
    return compiled.fullmatch(text) is not None


def js_round(x: float) -> int:
    """JavaScript's Math.round: half up."""
    return math.floor(x + 0.5)


EMPTY: Mapping[str, Any] = {}
"""An empty mapping for `value or EMPTY` (never written to)."""
NOTHING: "tuple[Any, ...]" = ()
