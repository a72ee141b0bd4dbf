/**
 * `--shard I/N` (SPEC 14): N jobs split a corpus with no coordination. A record belongs to
 * the shard of a stable hash of its (`run_id`, `call.id`): FNV-1a, 32 bits, over the UTF-16
 * code units of `run_id + "\n" + call.id`, modulo N; shard I (1-based) takes remainder I-1.
 * A line that is no valid record has no such key: it belongs to the shard of its file's
 * index and line number, so that every line is counted by exactly one shard.
 */
import { UsageError } from "failbook-runtime/model/errors.js";

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

export const MAX_SHARDS = 10000;

export function parseShard(text: string): Shard {
  const m = /^(\d{1,5})\/(\d{1,5})$/.exec(text);
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || count > MAX_SHARDS || index < 1 || index > count) {
    throw new UsageError(`--shard takes I/N with 1 <= I <= N <= ${MAX_SHARDS} (e.g. --shard 2/4 in a matrix of 4 jobs), not '${text}'`);
  }
  return { index, count };
}

export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The 1-based shard a record falls in. */
export const shardOfRecord = (runId: string, callId: string, count: number): number => (fnv1a(`${runId}\n${callId}`) % count) + 1;

/** The 1-based shard of a line that holds no valid record. */
export const shardOfLine = (file: number, line: number, count: number): number => (fnv1a(`${file}:${line}`) % count) + 1;
