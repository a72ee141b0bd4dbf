"""failbook-runtime for Python (SPEC 25): the dispatcher of a failbook playbook, standard
library only. Give it the PROJECT of a module that `failbook gen py` wrote:

    from failbook_runtime import create_dispatcher
    from agent_failures import PROJECT  # failbook gen py --out agent_failures.py

    dispatcher = create_dispatcher(PROJECT)
    result = dispatcher.dispatch({"id": "c1", "tool": "search.web", "args": {"q": "x"}}, attempt)
"""

from ._clock import Clock, RealClock, VirtualClock, real_clock, virtual_clock
from ._dispatcher import PROJECT_FORMAT, UNIMPLEMENTED, AsyncAttemptFn, AttemptFn, Dispatcher, create_dispatcher
from ._engine import ATTEMPT_TIMEOUT, EMPTY_RESPONSE, Ledger
from ._record import RecordSink, RecordWriter, create_record_writer
from ._simulate import simulate_fixture
from ._util import Random, canonical_json, idempotency_key, max_random, seeded_random, system_random, trace_id

__all__ = [
    "ATTEMPT_TIMEOUT",
    "EMPTY_RESPONSE",
    "PROJECT_FORMAT",
    "UNIMPLEMENTED",
    "AsyncAttemptFn",
    "AttemptFn",
    "Clock",
    "Dispatcher",
    "Ledger",
    "Random",
    "RealClock",
    "RecordSink",
    "RecordWriter",
    "VirtualClock",
    "canonical_json",
    "create_dispatcher",
    "create_record_writer",
    "idempotency_key",
    "max_random",
    "real_clock",
    "seeded_random",
    "simulate_fixture",
    "system_random",
    "trace_id",
    "virtual_clock",
]
