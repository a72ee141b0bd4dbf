/**
 * A chunk of a corpus, replayed: whole lines, split, parsed, checked against the record
 * schema, filtered by shard, and replayed under the current files (and the baseline's).
 * Workers and the single-threaded path run this same function.
 */
import type { DispatchRecord } from "failbook-runtime/model/record.js";
import { record as validateRecord } from "./record-validator.generated.js";
import type { Replayer } from "./replayer.js";
import { shardOfLine, shardOfRecord, type Shard } from "./shard.js";
import { locate, type Before, type Tally } from "./tally.js";

export interface ChunkJob {
  /** Index of the file in the replay's file list. */
  file: number;
  /** Line number of the chunk's first line (1-based). */
  startLine: number;
  /** Whole lines, UTF-8. */
  bytes: Uint8Array;
}

export interface ReplaySetup {
  current: Replayer;
  /** `--against`: the baseline's replayer; else records are compared with their recorded outcome. */
  baseline: Replayer | undefined;
  shard: Shard | undefined;
  examples: number;
}

/**
 * A chunk is decoded a piece at a time, each piece ending at a newline (or holding one long
 * line): a string of a piece stays in the young generation and dies there, where the string
 * of a whole 1 MB chunk would go straight to the old one and pile up, chunk after chunk,
 * until a full collection (a newline byte is never inside a UTF-8 sequence, so the text is
 * the same).
 */
const PIECE_BYTES = 32 << 10;
const decoder = new TextDecoder("utf-8");
/** For the pieces after the first: a U+FEFF there is kept, as when the chunk was decoded whole. */
const continuing = new TextDecoder("utf-8", { ignoreBOM: true });

/** Replay a chunk's lines, counting them into `tally`. */
export async function replayChunk(setup: ReplaySetup, job: ChunkJob, tally: Tally): Promise<void> {
  const bytes = job.bytes;
  let line = job.startLine;
  for (let at = 0; at < bytes.length; ) {
    const end = pieceEnd(bytes, at);
    line = await replayLines(setup, job.file, line, (at === 0 ? decoder : continuing).decode(bytes.subarray(at, end)), tally);
    at = end;
  }
}

/** Where the piece starting at `at` ends: after the last newline within PIECE_BYTES, else after the first one. */
function pieceEnd(bytes: Uint8Array, at: number): number {
  if (bytes.length - at <= PIECE_BYTES) return bytes.length;
  const last = bytes.lastIndexOf(10, at + PIECE_BYTES - 1);
  if (last >= at) return last + 1;
  const next = bytes.indexOf(10, at + PIECE_BYTES);
  return next === -1 ? bytes.length : next + 1;
}

/**
 * What parsing one line may allocate, at most, in a replaying thread (run.ts bounds a worker's
 * heap with room for it). JSON.parse makes each value of a line an object of its own, 64 bytes
 * or so: a 60 MB line of 20 million `{}`, within the line limit, would need over a gigabyte
 * and a worker that runs out of heap takes the process down (Node aborts tearing it down).
 */
export const PARSE_BUDGET_BYTES = 256 << 20;
const VALUE_BYTES = 64;

/** A line whose parse could need more than PARSE_BUDGET_BYTES: it ends the replay (run.ts says where). */
export class HeavyLine extends Error {
  constructor(
    readonly file: number,
    readonly line: number,
    readonly values: number,
  ) {
    super(`line ${line} of file ${file} may hold ${values} JSON values`);
  }
}

/**
 * At most how many values parsing `raw` makes, when they could need more than the budget
 * (each value but the first follows a comma, an array's `[` or a key's colon; one inside a
 * string counts too, which only errs high); 0 for a line too short to come near it.
 */
export function heavyValues(raw: string): number {
  if (raw.length * (VALUE_BYTES + 2) <= PARSE_BUDGET_BYTES) return 0;
  let values = 1;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 44 || c === 58 || c === 91) values++;
  }
  return values * VALUE_BYTES + raw.length * 2 > PARSE_BUDGET_BYTES ? values : 0;
}

/** Replay the lines of `text`, the first numbered `line`; the number of the line after them. */
async function replayLines(setup: ReplaySetup, file: number, line: number, text: string, tally: Tally): Promise<number> {
  const shard = setup.shard;
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    const raw = text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end);
    start = end + 1;
    const here = line++;
    if (raw.trim() === "") continue;
    const values = heavyValues(raw);
    if (values > 0) throw new HeavyLine(file, here, values);
    const parsed = parseRecord(raw);
    if (typeof parsed === "string") {
      if (shard === undefined || shardOfLine(file, here, shard.count) === shard.index) tally.addInvalid(locate(file, here), parsed);
      continue;
    }
    if (shard !== undefined && shardOfRecord(parsed.run_id ?? "", parsed.call.id, shard.count) !== shard.index) continue;
    const after = await setup.current.replay(parsed);
    const before: Before = setup.baseline ? await setup.baseline.replay(parsed) : parsed.outcome ? { kind: parsed.outcome.kind, verdict: parsed.outcome.verdict ?? null } : { kind: "unrecorded", verdict: null };
    tally.add(locate(file, here), before, after);
  }
  return line;
}

/** A record, or what is wrong with the line (never quoting it: a production line may hold anything). */
export function parseRecord(raw: string): DispatchRecord | string {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (e) {
    const at = /position (\d+)/.exec((e as Error).message);
    return at ? `not valid JSON (at column ${Number(at[1]) + 1})` : "not valid JSON";
  }
  let valid: boolean;
  try {
    valid = validateRecord(value);
  } catch {
    return "not a failbook/v1 Record: nested too deeply"; // the validator's recursion ran out of stack (a hostile cause chain)
  }
  if (valid) return value as DispatchRecord;
  const error = validateRecord.errors?.[0];
  if (!error) return "not a record";
  if (error.instancePath === "/responses" && error.keyword === "minItems") return "names no responses: a record needs the attempts production made (at least one)";
  const where = error.instancePath === "" ? "record" : error.instancePath;
  const extra = error.keyword === "additionalProperties" ? ` (${String(error.params.additionalProperty).slice(0, 64)})` : error.keyword === "enum" ? ` (${(error.params.allowedValues as unknown[]).join(", ")})` : "";
  return `not a failbook/v1 Record: ${where} ${error.message ?? "is invalid"}${extra}`;
}
