// A seeded corpus of production records (SPEC 14) for the replay benchmark and tests: calls to
// the shipped project's tools, most succeeding first time, the rest failing with the error
// kinds its registry knows, a few beyond what the playbook would retry. About 360 bytes a record.
//
//   node scripts/bench/replay-corpus.mjs OUT.jsonl[.gz] COUNT [SEED] [--codes N]
//
// With --codes N, the records call the generated project of N codes (scripts/bench/generate.mjs,
// written to .bench/N by `npm run bench`), as the large-registry replay row's corpus does.
import { createWriteStream } from "node:fs";
import { once } from "node:events";
import { createGzip } from "node:zlib";
// The engine's own seeded source (bench.mjs builds dist/ first).
import { seededRandom } from "../../dist/index.js";
import { catalogue, errorFor, prng } from "./generate.mjs";

const TOOLS = ["payments.refund", "payments.capture", "crm.update_contact", "search.query", "mail.send", "storage.put_object"];
const ok = (latency) => ({ status: "ok", value: true, latency_ms: latency });
const err = (error, latency) => ({ status: "error", error, latency_ms: latency });

/** One record: what production saw and decided, drawn from `random`. */
export function makeRecord(random, i) {
  const pick = (list) => list[Math.floor(random() * list.length)];
  const r = random();
  const latency = () => 20 + Math.floor(random() * 400);
  let responses;
  let outcome;
  if (r < 0.6) {
    responses = [ok(latency())];
    outcome = { kind: "succeeded", verdict: null, attempts: 1 };
  } else if (r < 0.78) {
    responses = [err({ kind: "timeout", message: "upstream timed out after 30s" }, 30000), ok(latency())];
    outcome = { kind: "recovered", verdict: "transient_timeout", attempts: 2 };
  } else if (r < 0.86) {
    responses = [err({ kind: "429_rate_limited", http_status: 429, headers: { "retry-after": "2" } }, latency()), err({ kind: "429_rate_limited", http_status: 429 }, latency()), ok(latency())];
    outcome = { kind: "recovered", verdict: "rate_limited", attempts: 3 };
  } else if (r < 0.91) {
    responses = [err({ kind: "5xx", http_status: 503, message: "service unavailable" }, latency()), err({ kind: "5xx", http_status: 503 }, latency())];
    outcome = { kind: "exhausted", verdict: "server_error_5xx", attempts: 2 };
  } else if (r < 0.95) {
    responses = [err({ kind: "403_forbidden", http_status: 403, provider_code: "insufficient_scope" }, latency())];
    outcome = { kind: "escalated", verdict: "permission_denied", attempts: 1 };
  } else if (r < 0.98) {
    responses = [err({ kind: "409_conflict", http_status: 409, provider_code: "idempotency_key_in_use" }, latency())];
    outcome = { kind: "deprecated", verdict: "idempotency_conflict", attempts: 1 };
  } else {
    responses = [err({ kind: "connection_refused", message: "connect ECONNREFUSED 10.0.0.7:443" }, latency()), ok(latency())];
    outcome = { kind: "recovered", verdict: "network_unreachable", attempts: 2 };
  }
  const run = Math.floor(i / 8);
  const at = new Date(Date.UTC(2026, 9, 1) + i * 2600).toISOString();
  return {
    apiVersion: "failbook/v1",
    kind: "Record",
    run_id: `run_${run.toString(36)}`,
    at,
    call: { id: `call_${i.toString(36)}`, tool: pick(TOOLS), args: { amount: Math.floor(random() * 10000), currency: "EUR" } },
    responses,
    outcome,
  };
}

/**
 * Records for the generated catalogue of `n` codes (scripts/bench/generate.mjs), so that a
 * replay over a large registry classifies against all of it. The mix of the shipped corpus:
 * 60 % succeed first time; the rest fail with an error built for one of the catalogue's
 * rules (one in twenty with an error no rule knows), a third of them twice, then succeed.
 * The recorded outcome names the rule's verdict. About 400 bytes a record.
 */
export function catalogueRecords(n, seed) {
  const cat = catalogue(n);
  const r = prng(seed);
  return (i) => {
    const latency = () => r.int(5, 400);
    const okay = { status: "ok", value: true, latency_ms: latency() };
    let tool = `svc${r.int(0, cat.services - 1)}.op_${r.int(0, 9)}`;
    let responses = [okay];
    let outcome = { kind: "succeeded", verdict: null, attempts: 1 };
    const roll = r.next();
    if (roll >= 0.6) {
      const entry = roll < 0.98 ? r.pick(cat.rules) : undefined;
      const built = entry ? errorFor(r, entry) : { error: { kind: `unmapped_${i % 97}`, message: "something unexpected" }, tool };
      tool = built.tool;
      const again = r.chance(1 / 3);
      responses = [err(built.error, latency()), ...(again ? [err(built.error, latency())] : []), okay];
      outcome = { kind: "recovered", verdict: entry ? entry.verdict.code : "unknown_error", attempts: responses.length };
    }
    const at = new Date(Date.UTC(2026, 9, 1) + i * 2600).toISOString();
    return { apiVersion: "failbook/v1", kind: "Record", run_id: `run_${Math.floor(i / 8).toString(36)}`, at, call: { id: `call_${i.toString(36)}`, tool, args: { ref: i } }, responses, outcome };
  };
}

/** Write `count` records to `path`, gzipped when `gzip` (default: when the name ends in .gz); `make(i)` draws record i (default: the shipped project's). */
export async function writeCorpus(path, count, seed = 1, gzip = path.endsWith(".gz"), make = undefined) {
  const random = seededRandom(seed);
  const record = make ?? ((i) => makeRecord(random, i));
  const file = createWriteStream(path);
  const out = gzip ? createGzip({ level: 6 }) : file;
  if (out !== file) out.pipe(file);
  let batch = "";
  for (let i = 0; i < count; i++) {
    batch += JSON.stringify(record(i)) + "\n";
    if (batch.length > 1 << 20) {
      if (!out.write(batch)) await once(out, "drain");
      batch = "";
    }
  }
  out.end(batch);
  await once(file, "close");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const at = args.indexOf("--codes");
  const codes = at === -1 ? undefined : Number(args.splice(at, 2)[1]);
  const [path, count, seed] = args;
  if (!path || !count || Number.isNaN(codes)) {
    console.error("usage: node scripts/bench/replay-corpus.mjs OUT.jsonl[.gz] COUNT [SEED] [--codes N]");
    process.exit(2);
  }
  const s = seed === undefined ? 1 : Number(seed);
  await writeCorpus(path, Number(count), s, path.endsWith(".gz"), codes === undefined ? undefined : catalogueRecords(codes, s));
}
