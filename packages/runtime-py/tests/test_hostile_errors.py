"""Hostile adapter errors in Python (SPEC 16, 21, 25): exceptions handed back as a response's
error whose __str__ raises, whose attributes raise, whose causes form a cycle, whose message
is huge, whose attributes hold secrets. Each is classified (or the dispatch ends with one clear
error), nothing secret reaches the outcome, events or record, and nothing hangs. Run by
test/runtime-py-real.test.ts with FAILBOOK_BINDINGS naming the repository project's module."""

from __future__ import annotations

import importlib.util
import os
import time
import unittest
from typing import Any, Dict, List

from failbook_runtime import VirtualClock, create_dispatcher, seeded_random
from failbook_runtime._record import inert_json

Json = Dict[str, Any]
SECRETS = ("hunter2", "sk_live_abcdefghijklmnop", "u:p@", "AKIAIOSFODNN7EXAMPLE", "s3cr3t-header")


def _project() -> Json:
    spec = importlib.util.spec_from_file_location("bindings", os.environ["FAILBOOK_BINDINGS"])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # pyright: ignore[reportUnknownMemberType, reportAttributeAccessIssue]
    return dict(getattr(module, "PROJECT"))


PROJECT = _project()


class Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("__str__ exploded")


class RaisingAttributes(Exception):
    kind = "http_error"

    @property
    def http_status(self) -> int:
        raise RuntimeError("no status for you")

    @property
    def headers(self) -> Dict[str, str]:
        raise RuntimeError("no headers either")


class SdkError(Exception):
    """An SDK's error: the status and headers a classifier reads, and a request full of credentials."""

    def __init__(self) -> None:
        super().__init__("429 Too Many Requests for https://u:p@api.example.com?password=hunter2")
        self.status_code = 429
        self.headers = {"retry-after": "1", "Authorization": "Bearer sk_live_abcdefghijklmnop", "x-api-key": "s3cr3t-header"}
        self.api_key = "sk_live_abcdefghijklmnop"
        self.request = {"url": "https://u:p@api.example.com", "aws_access_key_id": "AKIAIOSFODNN7EXAMPLE"}


def run(error: object, then_ok: bool = True) -> List[Json]:
    """Dispatch one call whose first attempt answers `error` (then ok): the result and its record."""
    records: List[Json] = []
    dispatcher = create_dispatcher(PROJECT, clock=VirtualClock(), random=seeded_random(1))

    def attempt(call: Json, n: int, key: str, context: Json) -> Json:
        if n == 1 or not then_ok:
            return {"status": "error", "error": error}
        return {"status": "ok", "value": {"id": 1}}

    result = dispatcher.dispatch({"id": "c1", "tool": "search.web", "args": {"q": "x"}}, attempt, run_id="r1", record=records.append)
    return [result, records[0]]


class HostileErrors(unittest.TestCase):
    def assert_clean(self, *values: object) -> None:
        text = "".join(inert_json(v) for v in values)
        for secret in SECRETS:
            self.assertNotIn(secret, text)

    def test_an_exception_is_read_by_its_attributes_and_classified(self) -> None:
        result, record = run(SdkError())
        self.assertEqual((result["outcome"]["kind"], result["outcome"]["verdict"]), ("recovered", "rate_limited"))
        self.assertEqual(record["responses"][0]["error"]["http_status"], 429)
        self.assertEqual(record["responses"][0]["error"]["headers"]["x-api-key"], "[REDACTED]")
        self.assert_clean(result, record)

    def test_str_that_raises_leaves_the_message_out(self) -> None:
        result, record = run(Unprintable("hunter2"), then_ok=False)
        self.assertEqual(result["outcome"]["verdict"], "unknown_error")
        self.assertIsNone(result["outcome"]["envelope"]["error"]["message"])
        self.assertEqual(record["responses"][0]["error"], {"kind": ""})
        self.assert_clean(result, record)

    def test_attributes_that_raise_are_absent(self) -> None:
        result, record = run(RaisingAttributes("boom"), then_ok=False)
        self.assertEqual(record["responses"][0]["error"], {"kind": "http_error", "message": "boom"})
        self.assertIsNotNone(result["outcome"]["verdict"])

    def test_a_cyclic_cause_is_cut_at_the_depth_the_classifier_reads(self) -> None:
        a = ConnectionResetError("reset by peer password=hunter2")
        b = TimeoutError("timed out")
        a.__cause__ = b
        b.__cause__ = a
        started = time.monotonic()
        result, record = run(a, then_ok=False)
        self.assertLess(time.monotonic() - started, 5)
        depth, e = 0, record["responses"][0]["error"]
        while "cause" in e:
            depth, e = depth + 1, e["cause"]
        self.assertEqual(depth, 8)
        self.assertIsNotNone(result["outcome"]["verdict"])
        self.assert_clean(result, record)

    def test_a_huge_message_is_redacted_without_hanging(self) -> None:
        message = "x" * (2 * 1024 * 1024) + " password=hunter2 " + "Bearer sk_live_abcdefghijklmnop"
        started = time.monotonic()
        result, record = run(Exception(message), then_ok=False)
        self.assertLess(time.monotonic() - started, 15)
        self.assertIsNotNone(result["outcome"]["verdict"])
        self.assertGreater(len(record["responses"][0]["error"]["message"]), 2 * 1024 * 1024)
        self.assert_clean(result, record)

    def test_an_exception_inside_a_mapping_error_is_read_too(self) -> None:
        result, record = run({"kind": "http_error", "http_status": 503, "cause": SdkError()}, then_ok=False)
        self.assertEqual(record["responses"][0]["error"]["cause"]["http_status"], 429)
        self.assert_clean(result, record)

    def test_an_attempt_that_raises_reaches_the_caller_as_it_was(self) -> None:
        dispatcher = create_dispatcher(PROJECT, clock=VirtualClock(), random=seeded_random(1))

        def attempt(call: Json, n: int, key: str, context: Json) -> Json:
            raise Unprintable()

        with self.assertRaises(Unprintable):
            dispatcher.dispatch({"id": "c1", "tool": "search.web"}, attempt, record=lambda r: None)


if __name__ == "__main__":
    unittest.main()
