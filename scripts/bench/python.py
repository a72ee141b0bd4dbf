"""The Python rows of `npm run bench` (SPEC 25), run by scripts/bench/python.mjs. Prints one JSON object.

    python3 scripts/bench/python.py dispatch BINDINGS.py ITERATIONS
        a call that succeeds first time: the bare attempt, tenacity's `retry` around it, and
        failbook_runtime's blocking `dispatch` with the call's own key and with a derived one,
        in the same process, in alternating rounds; per call, wall and CPU.
    python3 scripts/bench/python.py fixtures BINDINGS.py REQUESTS.jsonl
        every fixture of REQUESTS through `simulate_fixture` (the module imported and the
        fixtures parsed first, untimed), as `failbook simulate --runtime py` runs them.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import time
from typing import Any, Callable, Dict, List

ROOT = __file__.rsplit("/scripts/bench/", 1)[0]
sys.path.insert(0, ROOT + "/packages/runtime-py")

from failbook_runtime import create_dispatcher, simulate_fixture  # noqa: E402


def bindings(path: str) -> Dict[str, Any]:
    spec = importlib.util.spec_from_file_location("failbook_bench_bindings", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return dict(getattr(module, "PROJECT"))


def per_call(fn: Callable[[], Any], iterations: int) -> Dict[str, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(iterations):
        fn()
    return {"us": (time.perf_counter() - wall) / iterations * 1e6, "cpuUs": (time.process_time() - cpu) / iterations * 1e6}


def median(values: List[float]) -> float:
    v = sorted(values)
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2


def dispatch_bench(path: str, iterations: int) -> Dict[str, Any]:
    import tenacity

    project = bindings(path)
    answer = {"status": "ok", "value": {"id": "r1"}}

    def attempt(call: Any, n: int, key: str, context: Any) -> Any:
        return answer

    def bare() -> Any:
        return attempt(None, 1, "", None)

    # tenacity as a service uses it: a decorator with a stop, a backoff and its default retry on any exception.
    @tenacity.retry(stop=tenacity.stop_after_attempt(3), wait=tenacity.wait_exponential(multiplier=0.1, max=2), reraise=True)
    def with_tenacity() -> Any:
        return attempt(None, 1, "", None)

    dispatcher = create_dispatcher(project)
    own = {"id": "c1", "tool": "web.fetch", "args": {"url": "https://example.com/a"}, "idempotency_key": "order-42"}
    derived = {"id": "c1", "tool": "web.fetch", "args": {"url": "https://example.com/a"}}
    cases: Dict[str, Callable[[], Any]] = {
        "bare": bare,
        "tenacity": with_tenacity,
        "ownKey": lambda: dispatcher.dispatch(own, attempt),
        "derivedKey": lambda: dispatcher.dispatch(derived, attempt, run_id="run-1"),
    }
    for fn in cases.values():
        per_call(fn, iterations // 10)
    rounds: Dict[str, List[Dict[str, float]]] = {name: [] for name in cases}
    names = list(cases)
    for r in range(7):
        for name in names if r % 2 == 0 else reversed(names):
            rounds[name].append(per_call(cases[name], iterations))
    out: Dict[str, Any] = {"iterations": iterations, "rounds": 7, "python": sys.version.split()[0]}
    for name in names:
        out[name] = {"us": median([x["us"] for x in rounds[name]]), "cpuUs": median([x["cpuUs"] for x in rounds[name]])}
    for name in ("tenacity", "ownKey", "derivedKey"):
        out[name]["overheadUs"] = median([a["us"] - b["us"] for a, b in zip(rounds[name], rounds["bare"])])
        out[name]["cpuOverheadUs"] = median([a["cpuUs"] - b["cpuUs"] for a, b in zip(rounds[name], rounds["bare"])])
    for name in ("ownKey", "derivedKey"):
        out[name]["overTenacityUs"] = median([a["us"] - b["us"] for a, b in zip(rounds[name], rounds["tenacity"])])
    from importlib.metadata import version

    out["tenacity"]["version"] = version("tenacity")
    return out


def fixtures_bench(path: str, requests_path: str) -> Dict[str, Any]:
    project = bindings(path)
    with open(requests_path, encoding="utf-8") as f:
        requests = [json.loads(line) for line in f if line.strip()]
    wall, cpu = time.perf_counter(), time.process_time()
    not_ok = 0
    for request in requests:
        if not simulate_fixture(project, request["fixture"], request.get("seed", 0))["ok"]:
            not_ok += 1
    return {"fixtures": len(requests), "notOk": not_ok, "ms": (time.perf_counter() - wall) * 1000, "cpuMs": (time.process_time() - cpu) * 1000}


def main(argv: List[str]) -> int:
    if len(argv) == 3 and argv[0] == "dispatch":
        result = dispatch_bench(argv[1], int(argv[2]))
    elif len(argv) == 3 and argv[0] == "fixtures":
        result = fixtures_bench(argv[1], argv[2])
    else:
        sys.stderr.write(__doc__ or "")
        return 2
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
