"""The production sink of SPEC 14 (failbook-runtime's engine/record.ts and replay/writer.ts): a
dispatch given `record=` reports what it saw as one record (the call, the attempts in order
with their latencies, what it decided), redacted, byte for byte what the TypeScript runtime
writes, so `failbook replay` reads a Python service's records."""

from __future__ import annotations

import datetime
import gzip
import inspect
import json
import math
import re
from collections.abc import Mapping
from typing import IO, Any, Callable, Dict, List, Optional, Union, cast

from ._engine import ATTEMPT_TIMEOUT
from ._redact import Redactor, adapter_error_of, redact_deep, schema_error
from ._util import js_json, js_round

Json = Dict[str, Any]
RecordSink = Callable[[Json], Any]
"""Where a dispatch hands its record: a function of the record (a coroutine function in adispatch may be awaited)."""

MAX_LATENCY_MS = 86_400_000
"""The schema's ceiling on a response's latency: a day."""

_RAW_IN_JSON = re.compile("[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def inert_json(value: object) -> str:
    """JSON.stringify's text with the characters it leaves raw that could drive a terminal or reorder text escaped (SPEC 16)."""
    return _RAW_IN_JSON.sub(lambda m: "\\u%04x" % ord(m.group(0)), js_json(value))


def _iso(ms: float) -> str:
    """`new Date(ms).toISOString()`."""
    at = datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=math.trunc(ms))
    return at.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (at.microsecond // 1000)


def recorded(response: Any, measured_ms: float) -> Json:
    """A response as a record keeps it: its latency as measured (unless it named its own valid one), an ok value only as `true`, an error in its schema shape."""
    r: Mapping[str, Any] = response if isinstance(response, Mapping) else {}  # pyright: ignore[reportUnknownVariableType]
    own = r.get("latency_ms")
    valid = isinstance(own, (int, float)) and not isinstance(own, bool) and math.isfinite(own) and float(own).is_integer() and 0 <= own <= MAX_LATENCY_MS
    latency = own if valid else min(MAX_LATENCY_MS, max(0, js_round(measured_ms)))
    status = r.get("status")
    if status == "ok":
        return {"status": "ok", "latency_ms": latency} if r.get("value") is None else {"status": "ok", "value": True, "latency_ms": latency}
    if status == "error":
        error = adapter_error_of(r.get("error"))
        return {"status": "error", "latency_ms": latency} if error is None else {"status": "error", "error": schema_error(error), "latency_ms": latency}
    question = r.get("question")
    return {"status": "needs_input", "question": question, "latency_ms": latency} if isinstance(question, str) else {"status": "needs_input", "latency_ms": latency}


class Recording:
    """One dispatch's record in the making: the attempt function wrapped to note each response as it comes back."""

    def __init__(self, clock: Any) -> None:
        self.clock = clock
        epoch = getattr(clock, "epoch_ms", None)
        self.started_at: Optional[float] = None if epoch is None else epoch()
        # An attempt's place is taken when it is sent: one that outlives its timeout may answer after the next was sent, or never.
        self.responses: List[Union[Json, float]] = []
        self.fallbacks: List[Union[Json, float]] = []

    def _slot(self, context: Mapping[str, Any]) -> Any:
        listed = self.fallbacks if context.get("fallback") else self.responses
        before: float = self.clock.now()
        listed.append(before)
        return listed, len(listed) - 1, before

    def wrap(self, attempt: Callable[..., Any]) -> Callable[..., Any]:
        def noted(call: Json, n: int, key: str, context: Json) -> Any:
            listed, slot, before = self._slot(context)
            response = attempt(call, n, key, context)
            listed[slot] = recorded(response, self.clock.now() - before)
            return response

        return noted

    def awrap(self, attempt: Callable[..., Any]) -> Callable[..., Any]:
        async def noted(call: Json, n: int, key: str, context: Json) -> Any:
            listed, slot, before = self._slot(context)
            response = attempt(call, n, key, context)
            if inspect.isawaitable(response):
                response = await response
            listed[slot] = recorded(response, self.clock.now() - before)
            return response

        return noted

    def blocked(self, fallback: bool, error: Json) -> None:
        """An attempt an open breaker stopped before it was sent: recorded as the error the dispatcher saw, no latency."""
        (self.fallbacks if fallback else self.responses).append({"status": "error", "error": schema_error(error), "latency_ms": 0})

    def finish(self, call: Json, run_id: Optional[str], outcome: Json, redact: Redactor) -> Json:
        """The record of the finished dispatch, every string from outside redacted."""
        now: float = self.clock.now()

        def settled(listed: List[Union[Json, float]]) -> List[Json]:
            # Still unanswered: it timed out, as the dispatcher saw it, after all the time it has taken so far.
            return [r if isinstance(r, dict) else {"status": "error", "error": ATTEMPT_TIMEOUT, "latency_ms": max(0, js_round(now - r))} for r in listed]

        record: Json = {"apiVersion": "failbook/v1", "kind": "Record"}
        if run_id is not None:
            record["run_id"] = redact(run_id)
        if self.started_at is not None:
            record["at"] = _iso(self.started_at)
        record["call"] = redact_deep(call, redact)
        record["responses"] = redact_deep(settled(self.responses), redact)
        if self.fallbacks:
            record["fallback_responses"] = redact_deep(settled(self.fallbacks), redact)
        record["outcome"] = {k: outcome[k] for k in ("kind", "verdict", "attempts", "retried", "reason")}
        return _redact_record(record, redact)


def _redact_record(record: Json, redact: Redactor) -> Json:
    """A secret can hide in a value whose key names it: the redactor sees that only in the record's JSON text, so the text is redacted too."""
    text = js_json(record)
    clean = redact(text)
    if clean == text:
        return record
    try:
        parsed: Json = json.loads(clean)
        return parsed
    except ValueError:
        return {**record, "call": {**record["call"], "args": {}}}


class RecordWriter:
    """A file of records: `dispatch(call, attempt, record=writer.sink)` appends one JSON line per
    finished dispatch, gzipped when the file name ends in `.gz` (each writer appends a gzip member
    of its own, which gzip readers, failbook replay among them, read as one stream)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._file: IO[bytes] = cast(IO[bytes], gzip.open(path, "ab")) if path.lower().endswith(".gz") else open(path, "ab")

    def sink(self, record: Json) -> None:
        self._file.write((inert_json(record) + "\n").encode("utf-8", "surrogatepass"))

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> "RecordWriter":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def create_record_writer(path: str) -> RecordWriter:
    return RecordWriter(path)
