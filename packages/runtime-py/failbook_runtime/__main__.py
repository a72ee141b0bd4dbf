"""`python3 -m failbook_runtime simulate BINDINGS.py [--adispatch]`: fixtures through the
Python runtime (its blocking `dispatch`, or with `--adispatch` its asyncio driver).

Reads JSON lines on stdin: {"fixture": {...}, "seed": N} runs one fixture; {"playbook": {...}}
runs the fixtures after it under that playbook instead of the module's. Writes one JSON line
per fixture: {"ok": true, "outcome", "events"}, {"ok": false, "error": {"message", "path"},
"events"}, or {"unsupported": "..."} when the playbook uses what this runtime does not
implement. What `failbook simulate --runtime py` and the differential test run."""

from __future__ import annotations

import importlib.util
import json
import sys
from typing import Any, Dict, List

from ._simulate import simulate_fixture
from ._util import js_json


def main(argv: List[str]) -> int:
    driver = "dispatch"
    if len(argv) == 3 and argv[2] == "--adispatch":
        driver = "adispatch"
        argv = argv[:2]
    if len(argv) != 2 or argv[0] != "simulate":
        sys.stderr.write("usage: python3 -m failbook_runtime simulate BINDINGS.py [--adispatch] < fixtures.jsonl\n")
        return 2
    spec = importlib.util.spec_from_file_location("failbook_bindings", argv[1])
    if spec is None or spec.loader is None:
        sys.stderr.write("failbook_runtime: cannot load " + argv[1] + "\n")
        return 2
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # pyright: ignore[reportUnknownMemberType, reportAttributeAccessIssue]
    project: Dict[str, Any] = dict(getattr(module, "PROJECT"))
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        request: Dict[str, Any] = json.loads(line)
        if "playbook" in request:
            project = {**project, "playbook": request["playbook"]}
            continue
        try:
            result = simulate_fixture(project, request["fixture"], request.get("seed", 0), driver)
        except NotImplementedError as e:
            result = {"unsupported": str(e)}
        out.write(js_json(result) + "\n")
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
