"""Redaction as the dispatcher applies it (failbook-runtime's engine/redact.ts and
adapter-error.ts): the generated module's own redaction of text, remembered; values from
outside made plain JSON data, every string redacted and a string under a secret-named key
replaced whole; an adapter error kept in its schema shape only."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, Callable, Dict, List, Optional, Sequence, cast

REDACTED = "[REDACTED]"
CAUSE_DEPTH = 8
MAX_HINT_MS = 2592000000
JSON_SAFE_DEPTH = 16
JSON_SAFE_WIDTH = 1000

SECRET_KEY = re.compile(
    "(?:[Tt][Oo][Kk][Ee][Nn]|[Ss][Ee][Cc][Rr][Ee][Tt]|[Pp][Aa][Ss][Ss][Ww](?:[Oo][Rr])?[Dd]|[Aa][Pp][Ii][_-]?[Kk][Ee][Yy]|[Aa][Cc][Cc][Ee][Ss][Ss][_-]?[Kk][Ee][Yy])"
)
"""A key that names a secret (SPEC 16): a string under it is a secret whatever it looks like."""

Redactor = Callable[[str], str]


def remembered(redact: Redactor) -> Redactor:
    """`redact`, remembering what it made of each string (two bounded generations, as failbook's memo)."""
    recent: Dict[str, str] = {}
    older: Dict[str, str] = {}
    chars = 0

    def shown(text: str) -> str:
        nonlocal recent, older, chars
        # A text longer than 4096 is never remembered, so never found: looking first costs it nothing.
        out = recent.get(text)
        if out is not None:
            return out
        size = len(text)
        if size > 4096:
            return redact(text)
        out = older.get(text)
        if out is None:
            out = redact(text)
        if chars >= 1 << 21 or len(recent) >= 4096:
            older = recent
            recent = {}
            chars = 0
        recent[text] = out
        chars += size + len(out)
        return out

    return shown


def _redacted(value: object, fn: Callable[[str, Optional[str]], str], key: Optional[str], depth: int, seen: Optional[List[int]]) -> Any:
    """Any value as plain JSON data, every string passed through `fn` with the key it is under
    (a list's items under its own): cycles `[Circular]`, depth and width bounded, what JSON
    has no form for left out."""
    if isinstance(value, str):
        return fn(value, key)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if not isinstance(value, (list, tuple, Mapping)):
        return None
    ident = id(cast(object, value))
    if seen is not None and ident in seen:
        return fn("[Circular]", key)
    if depth >= JSON_SAFE_DEPTH:
        return fn("[Truncated]", key)
    path = [ident] if seen is None else [*seen, ident]
    if isinstance(value, (list, tuple)):
        items: List[object] = list(cast(Sequence[object], value))[:JSON_SAFE_WIDTH]
        return [_redacted(v, fn, key, depth + 1, path) for v in items]
    out: Dict[str, object] = {}
    mapping: Mapping[Any, Any] = value  # pyright: ignore[reportUnknownVariableType]
    for i, (k, v) in enumerate(mapping.items()):
        if i >= JSON_SAFE_WIDTH:
            break
        name = str(k)
        safe = _redacted(v, fn, name, depth + 1, path)
        if safe is not None or v is None:
            out[name] = safe
    return out


_secret_keys: Dict[str, bool] = {}
"""Whether a key names a secret, by key: outputs meet the same few keys again and again (bounded: emptied at 4096)."""


def secret_named(key: str) -> bool:
    named = _secret_keys.get(key)
    if named is None:
        named = SECRET_KEY.search(key) is not None
        if len(_secret_keys) >= 4096:
            _secret_keys.clear()
        _secret_keys[key] = named
    return named


def redact_deep(value: object, redact: Redactor) -> Any:
    """A value from outside as an output may show it: plain JSON, every string redacted, a string under a secret-named key replaced whole."""
    return _redacted(value, lambda text, key: REDACTED if text != "" and key is not None and secret_named(key) else redact(text), None, 0, None)


def plain_headers(headers: object) -> Dict[str, str]:
    """Headers in any shape a client gives them (a mapping, a list of pairs, an object with items()) as one dict of strings."""
    out: Dict[str, str] = {}
    if type(headers) is dict:
        # The common headers: a dict of strings, each kept as is (what add below does with one).
        for key, text in cast(Dict[object, object], headers).items():
            if type(key) is str and type(text) is str:
                out[key] = text
            else:
                out.clear()
                break
        else:
            return out

    def add(name: object, value: object) -> None:
        if not isinstance(name, str) or name in out:
            return
        if isinstance(value, str):
            out[name] = value
        elif isinstance(value, int) and not isinstance(value, bool):
            out[name] = str(value)
        elif isinstance(value, (list, tuple)):
            out[name] = ", ".join(v for v in value if isinstance(v, str))  # pyright: ignore[reportUnknownVariableType]

    try:
        if isinstance(headers, (list, tuple)):
            for pair in cast(Sequence[object], headers):
                if isinstance(pair, (list, tuple)):
                    both = cast(Sequence[object], pair)
                    if len(both) >= 2:
                        add(both[0], both[1])
        elif isinstance(headers, Mapping):
            for name, value in cast(Mapping[object, object], headers).items():
                add(name, value)
        elif hasattr(headers, "items"):
            for name, value in getattr(headers, "items")():
                add(name, value)
    except Exception:  # a hostile header object: what it gave before raising is kept
        pass
    return out


def adapter_error_of(raw: object) -> Optional[Dict[str, Any]]:
    """The error a failed response carries, for classification: a mapping (or an exception, read
    by its attributes) with plain headers, causes cut at CAUSE_DEPTH; anything else is no error (None)."""
    if type(raw) is dict:  # the common error, before isinstance's ABC checks
        return _chain_of(cast(Dict[str, Any], raw), 0)
    if isinstance(raw, BaseException):
        return _chain_of(exception_error(raw), 0)
    if not isinstance(raw, Mapping):
        return None
    return _chain_of(raw, 0)  # pyright: ignore[reportUnknownArgumentType]


def _attribute(obj: object, name: str) -> object:
    """An attribute of someone else's object, or None when reading it raises."""
    try:
        return getattr(obj, name, None)
    except Exception:
        return None


def _text_of(exc: BaseException) -> Optional[str]:
    """str(exc), or None when its __str__ raises or returns no string."""
    try:
        text = str(exc)
    except Exception:
        return None
    return text if type(text) is str else None


def exception_error(exc: BaseException, depth: int = 0) -> Dict[str, Any]:
    """An exception as an adapter error (SPEC 2.2, 21), read as the TypeScript runtime reads an
    Error: its `kind`, `http_status` (or `status_code`), `provider_code`, `side_effect_state`,
    `retry_after_ms`, `headers` (or `response.headers`) and `fields` attributes, its `message`
    (or str(exc)), its cause (`__cause__`, else the context Python shows, else a `cause`
    attribute) down to CAUSE_DEPTH. Nothing else is read: an SDK error's request, config and
    credentials stay out. An attribute whose reading raises is absent; so is a message whose
    __str__ raises."""
    out: Dict[str, Any] = {}
    for name in ("kind", "provider_code", "side_effect_state", "retry_after_ms"):
        value = _attribute(exc, name)
        if value is not None:
            out[name] = value
    status = _attribute(exc, "http_status")
    if status is None:
        status = _attribute(exc, "status_code")
    if status is not None:
        out["http_status"] = status
    message = _attribute(exc, "message")
    message = message if type(message) is str else _text_of(exc)
    if message is not None:
        out["message"] = message
    headers = _attribute(exc, "headers")
    if headers is None:
        headers = _attribute(_attribute(exc, "response"), "headers")
    if headers is not None:
        out["headers"] = plain_headers(headers)
    fields = _attribute(exc, "fields")
    if isinstance(fields, Mapping):
        try:
            out["fields"] = {str(k): v for k, v in cast(Mapping[object, object], fields).items() if type(k) is str and type(v) in (str, bool, int, float)}
        except Exception:
            pass
    if depth < CAUSE_DEPTH:
        cause: object = exc.__cause__
        if cause is None and not exc.__suppress_context__:
            cause = exc.__context__
        if cause is None:
            cause = _attribute(exc, "cause")
        if isinstance(cause, BaseException):
            out["cause"] = exception_error(cause, depth + 1)
        elif isinstance(cause, Mapping):
            out["cause"] = cause
    return out


def _chain_of(error: Mapping[str, Any], depth: int) -> Dict[str, Any]:
    out: Dict[str, Any] = dict(error)
    headers = error.get("headers")
    if headers is not None and not (isinstance(headers, dict) and all(isinstance(v, str) for v in headers.values())):  # pyright: ignore[reportUnknownVariableType]
        out["headers"] = plain_headers(cast(object, headers))
    cause = error.get("cause")
    if cause is None:
        out.pop("cause", None)
    elif isinstance(cause, BaseException) and depth < CAUSE_DEPTH:
        out["cause"] = _chain_of(exception_error(cause, depth + 1), depth + 1)
    elif isinstance(cause, Mapping) and depth < CAUSE_DEPTH:
        out["cause"] = _chain_of(cause, depth + 1)  # pyright: ignore[reportUnknownArgumentType]
    else:
        out.pop("cause", None)
    return out


_STATES = ("none", "unknown", "committed")


def schema_error(e: Mapping[str, Any], depth: int = 0) -> Dict[str, Any]:
    """The error in its schema shape: kind always a string, other members only when of their type, nothing else."""
    # Each member read once; None and exact ints and dicts tested by type first (Mapping's isinstance costs calls).
    kind = e.get("kind")
    out: Dict[str, Any] = {"kind": kind if isinstance(kind, str) else ""}
    message = e.get("message")
    if isinstance(message, str):
        out["message"] = message
    status = e.get("http_status")
    if type(status) is int and 100 <= status <= 999:
        out["http_status"] = status
    elif status is not None and isinstance(status, (int, float)) and not isinstance(status, bool) and float(status).is_integer() and 100 <= status <= 999:
        out["http_status"] = int(status)
    provider_code = e.get("provider_code")
    if isinstance(provider_code, str):
        out["provider_code"] = provider_code
    state = e.get("side_effect_state")
    if state in _STATES:
        out["side_effect_state"] = state
    hint = e.get("retry_after_ms")
    if type(hint) is int and 0 <= hint <= MAX_HINT_MS:
        out["retry_after_ms"] = hint
    elif hint is not None and isinstance(hint, (int, float)) and not isinstance(hint, bool) and math.isfinite(hint):
        out["retry_after_ms"] = min(MAX_HINT_MS, max(0, math.floor(hint)))
    headers = e.get("headers")
    if headers is not None and (type(headers) is dict or isinstance(headers, (Mapping, list, tuple))):
        out["headers"] = plain_headers(cast(object, headers))
    fields = e.get("fields")
    if fields is not None and isinstance(fields, Mapping):
        plain: Dict[str, Any] = {}
        fmap: Mapping[Any, Any] = fields  # pyright: ignore[reportUnknownVariableType]
        for name, value in fmap.items():
            if isinstance(value, (str, bool)) or (isinstance(value, (int, float)) and math.isfinite(value)):
                plain[str(name)] = value
        out["fields"] = plain
    cause = e.get("cause")
    if cause is not None and isinstance(cause, Mapping) and depth < CAUSE_DEPTH:
        out["cause"] = schema_error(cause, depth + 1)  # pyright: ignore[reportUnknownArgumentType]
    return out


def shown_error(error: Mapping[str, Any], redact: Redactor) -> Dict[str, Any]:
    """`redact_deep(schema_error(error), redact)`, walking the shape schema_error makes instead of any value's."""
    return _shown_schema(schema_error(error), redact)


def _shown_schema(error: Dict[str, Any], redact: Redactor) -> Dict[str, Any]:
    # schema_error's members: strings, integers, its cause, headers (strings) and fields (JSON
    # scalars, finite); no None, no cycle, at most CAUSE_DEPTH causes, so redact_deep's depth
    # bound is never met and it leaves nothing out. Its width bound holds for headers and fields.
    out: Dict[str, Any] = {}
    for name, value in error.items():
        if isinstance(value, str):
            out[name] = REDACTED if value != "" and secret_named(name) else redact(value)
        elif name == "cause":
            out[name] = _shown_schema(value, redact)
        elif name == "headers" or name == "fields":
            shown: Dict[str, Any] = {}
            for i, (key, item) in enumerate(cast(Dict[str, Any], value).items()):
                if i >= JSON_SAFE_WIDTH:
                    break
                shown[key] = (REDACTED if item != "" and secret_named(key) else redact(item)) if isinstance(item, str) else item
            out[name] = shown
        else:
            out[name] = value
    return out
