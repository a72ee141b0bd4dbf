"""Time, injected (failbook-runtime's engine/clock.ts): the dispatcher reads `now()` and waits
with `sleep()`. A virtual clock makes both instant and exact (simulation, tests); a real
clock makes them real (production). One dispatcher, two clocks."""

from __future__ import annotations

import asyncio
import math
import threading
import time
from typing import Callable, Optional, Protocol, Union

Wake = Union[threading.Event, asyncio.Event, None]
"""What may end a wait early: the dispatch's cancellation."""


class Clock(Protocol):
    def now(self) -> float:
        """Milliseconds on this clock; only differences matter."""
        ...

    def sleep(self, ms: float, wake: Optional[threading.Event] = None) -> None:
        """Wait `ms` milliseconds (blocking), or until `wake` is set."""
        ...

    async def asleep(self, ms: float, wake: Wake = None) -> None:
        """Wait `ms` milliseconds (asyncio), or until `wake` is set."""
        ...


class VirtualClock:
    """A clock that never waits: `sleep` moves time forward and returns at once."""

    virtual = True

    def __init__(self, start: float = 0) -> None:
        self.time: float = start
        self._limit = math.inf
        self._overran = False

    def now(self) -> float:
        return self.time

    def sleep(self, ms: float, wake: Optional[threading.Event] = None) -> None:
        self.advance(ms)

    async def asleep(self, ms: float, wake: Wake = None) -> None:
        self.advance(ms)

    def advance(self, ms: float) -> None:
        """Move time forward without waiting (an attempt's recorded latency), never past a hold."""
        if not ms > 0:
            return
        to = self.time + ms
        if to > self._limit:
            self.time = self._limit
            self._overran = True
        else:
            self.time = to

    def rewind(self, to: float) -> None:
        """Put time back to `to`: a hedge on a virtual clock is measured aside (SPEC 18), then the clock goes back to when it was sent."""
        self.time = to

    def hold(self, until: float) -> Callable[[], bool]:
        """An attempt timeout (SPEC 18): no advance goes past `until` until released; release says whether one tried to."""
        self._limit = until
        self._overran = False

        def release() -> bool:
            overran = self._overran
            self._limit = math.inf
            self._overran = False
            return overran

        return release


MAX_SLEEP_S = 2**31 / 1000
"""The longest single wait; a longer one is slept in steps."""


class RealClock:
    """Wall-clock time and real waits; `scale` multiplies every wait (tests run a real schedule scaled down)."""

    virtual = False

    def __init__(self, scale: float = 1.0) -> None:
        self.scale = scale
        self._origin = time.monotonic()

    def now(self) -> float:
        return math.floor((time.monotonic() - self._origin) * 1000 + 0.5)

    def epoch_ms(self) -> float:
        return time.time() * 1000

    def sleep(self, ms: float, wake: Optional[threading.Event] = None) -> None:
        until = time.monotonic() + max(0.0, ms * self.scale) / 1000
        while True:
            left = until - time.monotonic()
            if left <= 0:
                return
            if wake is None:
                time.sleep(min(left, MAX_SLEEP_S))
            elif wake.wait(min(left, MAX_SLEEP_S)):
                return

    async def asleep(self, ms: float, wake: Wake = None) -> None:
        until = time.monotonic() + max(0.0, ms * self.scale) / 1000
        while True:
            left = until - time.monotonic()
            if left <= 0:
                return
            step = min(left, MAX_SLEEP_S)
            if wake is None:
                await asyncio.sleep(step)
            elif isinstance(wake, asyncio.Event):
                try:
                    await asyncio.wait_for(wake.wait(), step)
                    return
                except asyncio.TimeoutError:
                    continue
            else:
                await asyncio.sleep(min(step, 0.005))
                if wake.is_set():
                    return


def real_clock(scale: float = 1.0) -> RealClock:
    return RealClock(scale)


def virtual_clock(start: float = 0) -> VirtualClock:
    return VirtualClock(start)
