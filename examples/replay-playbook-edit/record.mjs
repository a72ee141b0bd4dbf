// Records a month of "production" for this example: 2,000 checkout calls dispatched by the
// library's production dispatcher under baseline/ (the playbook that ran then), against a
// seeded flaky upstream, each finished dispatch written as one redacted record by
// dispatch(..., { record }) into records/2026-11.jsonl.gz.
//
//   node examples/replay-playbook-edit/record.mjs      (after npm run build)
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createDispatcher, createRecordWriter, loadProject, seededRandom } from "failbook";

const here = dirname(fileURLToPath(import.meta.url));
const { project } = loadProject({ config: join(here, "baseline/failbook.yaml") });
const random = seededRandom(2026);

// Production time: every call starts where the previous one ended, from 1 November.
let now = 0;
const start = Date.UTC(2026, 10, 1);
const clock = { now: () => now, epochMs: () => start + now, sleep: async (ms) => void (now += ms) };
const dispatcher = createDispatcher({ registry: project.registry.value, playbook: project.playbook.value, clock, random });

/** What the upstream will answer, attempt by attempt, for one call (then ok). */
function plan() {
  const r = random();
  const times = (n, failure) => Array.from({ length: n }, () => failure);
  const n = 1 + Math.floor(random() * 3);
  if (r < 0.7) return [];
  if (r < 0.82) return times(n, { kind: "timeout", message: "read ETIMEDOUT after 3000 ms", latency: 3000 });
  if (r < 0.88) return times(Math.min(n, 2), { kind: "http", http_status: 429, headers: { "retry-after": "1" }, latency: 40 });
  if (r < 0.94) return times(Math.min(n, 2), { kind: "http", http_status: 503, message: "upstream connect error", latency: 15 });
  if (r < 0.97) return [{ kind: "http", http_status: 402, message: "card_declined", latency: 300 }];
  return [{ kind: "tls", message: "certificate has expired", latency: 5 }];
}

const out = join(here, "records/2026-11.jsonl.gz");
rmSync(out, { force: true });
const writer = createRecordWriter(out);
for (let i = 0; i < 2000; i++) {
  const failures = plan();
  const call = { id: `charge_${i}`, tool: "payments.charge", args: { amount: 100 + (i % 50), card: "tok_visa", api_key: "sk_live_51Hx9exampleexampleexample" } };
  const attempt = (_call, n) => {
    const f = failures[n - 1];
    now += f?.latency ?? 120;
    if (!f) return { status: "ok", value: { charged: true } };
    const { latency: _latency, ...error } = f;
    return { status: "error", error };
  };
  await dispatcher.dispatch(call, attempt, { runId: `checkout_${Math.floor(i / 4)}`, record: writer.sink });
  now += 1000;
}
await writer.close();
console.log(`wrote 2000 records to ${out}`);
