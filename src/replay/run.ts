/**
 * A replay of whole files (SPEC 14), streaming: the main thread reads each file (gunzipping
 * `.gz`), cuts it into chunks of whole lines and hands them to worker threads, at most two
 * chunks a worker in flight, so memory stays flat however large the corpus; the chunks'
 * tallies add up into the report. With one worker (or a playbook whose retry quota is
 * shared by every record in order) the chunks are replayed in this thread, in order.
 */
import { createReadStream, statSync } from "node:fs";
import { cpus } from "node:os";
import { Worker } from "node:worker_threads";
import { createGunzip } from "node:zlib";
import { UsageError } from "../model/errors.js";
import { ChunkBuffers } from "./buffers.js";
import { replayChunk, type ChunkJob } from "./chunk.js";
import { buildSetup, readSetup, type SharedSetup } from "./setup.js";
import { shardOfLine } from "./shard.js";
import { locate, Tally, type TallyData } from "./tally.js";

export interface ReplayFilesOptions {
  /** The files as the user named them (`.jsonl`, or `.jsonl.gz` read as gzip). */
  files: readonly string[];
  setup: SharedSetup;
  /** Worker threads (default: the number of cores); 1 replays in this thread. */
  workers?: number;
  /** Called as input is read: compressed bytes read so far, of how many, and records replayed. */
  onProgress?: (progress: ReplayProgress) => void;
}

export interface ReplayProgress {
  bytesRead: number;
  bytesTotal: number;
  lines: number;
}

export interface ReplayRun {
  tally: Tally;
  /** Threads that replayed (1 when the retry quota forced one). */
  workers: number;
}

const CHUNK_BYTES = 1 << 20;
/** A chunk is CHUNK_BYTES and what the last read brought (up to CHUNK_BYTES more, a long line aside). */
const CHUNK_BUFFER_BYTES = 2 * CHUNK_BYTES + (64 << 10);
/** A line longer than this is reported and skipped, not held in memory (a hostile or broken file). */
export const MAX_LINE_BYTES = 64 << 20;
/** A small young generation: a worker allocates briefly per record and keeps almost nothing (and this measured fastest). */
const WORKER_YOUNG_MB = 8;
/**
 * A worker's old generation may grow to this, plus room for its setup (see `workerLimits`):
 * far beyond what it holds (a 10,000-code project is about 30 MB once built, a record line at
 * most 64 MB), and a bound is what makes V8 collect before it doubles or quadruples a heap.
 */
const WORKER_OLD_MB = 1024;

export const defaultWorkers = (): number => Math.max(1, cpus().length);

/** Refuse, before any work, a file that is missing or not a regular file (exit 2). */
export function checkFiles(files: readonly string[]): number {
  let total = 0;
  for (const file of files) {
    let size: number;
    try {
      const stat = statSync(file);
      if (!stat.isFile()) throw new UsageError(`${file} is not a regular file; give .jsonl or .jsonl.gz files of records`);
      size = stat.size;
    } catch (e) {
      if (e instanceof UsageError) throw e;
      throw new UsageError(`${file}: no such file; give .jsonl or .jsonl.gz files of records (failbook import otlp writes them from traces)`);
    }
    total += size;
  }
  return total;
}

export async function replayFiles(options: ReplayFilesOptions): Promise<ReplayRun> {
  const bytesTotal = checkFiles(options.files);
  const threads = options.setup.sharesQuota ? 1 : Math.max(1, options.workers ?? defaultWorkers());
  const capacity = threads === 1 ? 1 : threads * 2;
  const buffers = new ChunkBuffers(CHUNK_BUFFER_BYTES, capacity + 1);
  const executor = threads === 1 ? inThread(options.setup, buffers) : new WorkerPool(options.setup, threads, capacity, buffers);
  const tally = new Tally(options.setup.examples);
  const progress: ReplayProgress = { bytesRead: 0, bytesTotal, lines: 0 };
  const inFlight = new Set<Promise<void>>();
  const submit = async (read: ChunkJob): Promise<void> => {
    const bytes = buffers.take(read.bytes.length);
    bytes.set(read.bytes);
    const done = executor.run({ ...read, bytes }).then((data) => {
      tally.merge(data);
      inFlight.delete(done);
    });
    done.catch(() => {}); // awaited below; a failure surfaces there, never as an unhandled rejection
    inFlight.add(done);
    if (inFlight.size >= executor.capacity) await Promise.race(inFlight);
  };
  try {
    let readBefore = 0;
    for (let file = 0; file < options.files.length; file++) {
      const invalid = (line: number, message: string) => {
        const shard = options.setup.shard;
        if (shard !== undefined && shardOfLine(file, line, shard.count) !== shard.index) return;
        const lost = new Tally(options.setup.examples);
        lost.addInvalid(locate(file, line), message);
        tally.merge(lost.data());
      };
      const onRead = (bytes: number, lines: number) => {
        progress.bytesRead = readBefore + bytes;
        progress.lines = lines;
        options.onProgress?.(progress);
      };
      const read = await readFile(options.files[file], file, submit, onRead, progress.lines, (line) => invalid(line, `longer than ${MAX_LINE_BYTES >> 20} MB: skipped`));
      readBefore += read.bytes;
      if (read.error !== undefined) invalid(read.nextLine, read.error);
    }
    await Promise.all(inFlight);
  } finally {
    await executor.close();
  }
  return { tally, workers: threads };
}

interface FileRead {
  bytes: number;
  nextLine: number;
  /** The gzip stream broke (truncated, corrupt): what to say at `nextLine`. */
  error: string | undefined;
}

async function readFile(
  path: string,
  file: number,
  submit: (job: ChunkJob) => Promise<void>,
  onRead: (bytes: number, lines: number) => void,
  linesBefore: number,
  onLongLine: (line: number) => void,
): Promise<FileRead> {
  const raw = createReadStream(path, { highWaterMark: CHUNK_BYTES });
  const gzip = /\.gz$/i.test(path);
  const stream = gzip ? raw.pipe(createGunzip({ chunkSize: 256 * 1024 })) : raw;
  if (gzip) raw.on("error", (e) => stream.destroy(e));
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let nextLine = 1;
  /** Bytes of the line being read, since the last newline. */
  let partial = 0;
  /** Inside a line longer than MAX_LINE_BYTES: drop bytes up to its end. */
  let skipping = false;
  const flush = async (final: boolean) => {
    const all = pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes);
    pending = [all];
    const cut = final ? all.length : all.lastIndexOf(10) + 1;
    if (cut === 0) return;
    const bytes = all.subarray(0, cut); // submit copies it into a buffer of its own, which moves to the worker
    const rest = all.subarray(cut);
    pending = rest.length > 0 ? [Buffer.from(rest)] : [];
    pendingBytes = rest.length;
    const startLine = nextLine;
    nextLine += countLines(bytes, final);
    await submit({ file, startLine, bytes });
    onRead(raw.bytesRead, linesBefore + nextLine - 1);
  };
  /** The line being read is too long: hand on the whole lines before it, report it, drop what is held of it. */
  const dropLongLine = async () => {
    await flush(false);
    onLongLine(nextLine);
    pending = [];
    pendingBytes = 0;
  };
  try {
    for await (let chunk of stream as AsyncIterable<Buffer>) {
      const newline = chunk.indexOf(10);
      if (skipping || partial + (newline === -1 ? chunk.length : newline) > MAX_LINE_BYTES) {
        if (!skipping) await dropLongLine();
        skipping = newline === -1;
        partial = 0;
        if (skipping) continue;
        nextLine++;
        chunk = chunk.subarray(newline + 1);
      }
      const last = chunk.lastIndexOf(10);
      partial = last === -1 ? partial + chunk.length : chunk.length - last - 1;
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes >= CHUNK_BYTES) await flush(false);
    }
  } catch (e) {
    if (!gzip) throw e;
    await flush(false);
    const reason = (e as NodeJS.ErrnoException).code === "Z_BUF_ERROR" ? "truncated gzip (unexpected end of file)" : `corrupt gzip (${(e as Error).message})`;
    return { bytes: raw.bytesRead, nextLine, error: `${reason}: this line and any after it are lost; the lines before it were replayed` };
  }
  if (pendingBytes > 0) await flush(true);
  return { bytes: raw.bytesRead, nextLine: skipping ? nextLine + 1 : nextLine, error: undefined };
}

/** Newlines in a chunk, plus one for a last line without one. */
function countLines(bytes: Uint8Array, final: boolean): number {
  let n = 0;
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) n++;
  return final && bytes.length > 0 && bytes[bytes.length - 1] !== 10 ? n + 1 : n;
}

interface Executor {
  /** Chunks in flight before reading waits. */
  readonly capacity: number;
  run(job: ChunkJob): Promise<TallyData>;
  close(): Promise<void>;
}

function inThread(shared: SharedSetup, buffers: ChunkBuffers): Executor {
  const setup = buildSetup(readSetup(shared));
  const run = async (job: ChunkJob) => {
    const tally = await replayChunk(setup, job);
    buffers.give(job.bytes);
    return tally;
  };
  return { capacity: 1, run, close: async () => {} };
}

/**
 * V8 lets a heap grow to a multiple of what survived its last full collection before it
 * collects again, and the multiple follows the heap's limit: up to 4 under the default limit
 * of a machine with 16 GB or more, about 1.6 under 1 GB. A worker keeps its setup and throws
 * away everything else, so a bound near 1 GB keeps two workers of a 10,000-code project a
 * hundred megabytes smaller, for a few more collections. The bound grows with the setup, so
 * that a registry of any size fits; `--max-old-space-size` overrides it (Node's rule).
 */
function workerLimits(setup: SharedSetup): { maxYoungGenerationSizeMb: number; maxOldGenerationSizeMb: number } {
  return { maxYoungGenerationSizeMb: WORKER_YOUNG_MB, maxOldGenerationSizeMb: WORKER_OLD_MB + Math.ceil((16 * setup.bytes.byteLength) / 1048576) };
}

class WorkerPool implements Executor {
  readonly capacity: number;
  private readonly workers: Worker[];
  private readonly load: number[];
  private readonly waiting = new Map<number, { resolve: (data: TallyData) => void; reject: (e: Error) => void; worker: number }>();
  private nextId = 0;
  private failure: Error | undefined;

  constructor(setup: SharedSetup, count: number, capacity: number, buffers: ChunkBuffers) {
    this.capacity = capacity;
    this.load = new Array<number>(count).fill(0);
    // Beside this module: dist/replay/ when unbundled, dist/bundle/ (an entry of its own) when bundled.
    const url = new URL("./replay-worker.js", import.meta.url);
    this.workers = Array.from({ length: count }, () => {
      const worker = new Worker(url, { workerData: setup, resourceLimits: workerLimits(setup) });
      worker.on("message", (m: { id: number; data?: TallyData; bytes?: Uint8Array; error?: string }) => {
        if (m.bytes) buffers.give(m.bytes);
        const job = this.waiting.get(m.id);
        if (!job) return;
        this.waiting.delete(m.id);
        this.load[job.worker]--;
        if (m.data) job.resolve(m.data);
        else job.reject(new Error(`a replay worker failed: ${m.error}`));
      });
      worker.on("error", (e) => this.fail(e));
      worker.on("exit", (code) => {
        if (code !== 0) this.fail(new Error(`a replay worker exited with status ${code}`));
      });
      return worker;
    });
  }

  run(job: ChunkJob): Promise<TallyData> {
    if (this.failure) return Promise.reject(this.failure);
    let worker = 0;
    for (let i = 1; i < this.load.length; i++) if (this.load[i] < this.load[worker]) worker = i;
    const id = this.nextId++;
    this.load[worker]++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject, worker });
      this.workers[worker].postMessage({ ...job, id }, [job.bytes.buffer as ArrayBuffer]);
    });
  }

  private fail(e: Error): void {
    this.failure ??= e;
    for (const job of this.waiting.values()) job.reject(e);
    this.waiting.clear();
  }

  async close(): Promise<void> {
    this.failure ??= new Error("the worker pool is closed");
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
