/**
 * A replay of whole files (SPEC 14), streaming: the main thread reads each file (gunzipping
 * `.gz`), cuts it into chunks of whole lines and hands them to worker threads, at most two
 * chunks a worker in flight, so memory stays flat however large the corpus; the chunks'
 * tallies add up into the report. With one worker (or a playbook whose retry quota is
 * shared by every record in order) the chunks are replayed in this thread, in order.
 */
import { isUtf8 } from "node:buffer";
import { createReadStream, statSync } from "node:fs";
import { open } from "node:fs/promises";
import { cpus } from "node:os";
import { MessageChannel, Worker, type MessagePort } from "node:worker_threads";
import { createGunzip } from "node:zlib";
import { UsageError } from "failbook-runtime/model/errors.js";
import { notUtf8 } from "../util/fs.js";
import { ChunkBuffers } from "./buffers.js";
import { HeavyLine, PARSE_BUDGET_BYTES, replayChunk, type ChunkJob } from "./chunk.js";
import { buildSetup, handOff, readSetup, type SharedSetup } from "./setup.js";
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
/** A chunk is under CHUNK_BYTES, and what the last read brought (up to CHUNK_BYTES more), a long line aside. */
const CHUNK_BUFFER_BYTES = 2 * CHUNK_BYTES;
/** A line longer than this is reported and skipped, not held in memory (a hostile or broken file). */
export const MAX_LINE_BYTES = 64 << 20;
/**
 * A small young generation: a worker allocates briefly per record and keeps almost nothing.
 * 4 MB measured 18 MB less peak RSS than 8 (two workers over a 10,000-code project) for
 * about the same CPU; 16 measured 30 MB more.
 */
const WORKER_YOUNG_MB = 4;
/**
 * A worker's old generation may grow to this, plus room for its setup (see `workerLimits`):
 * what one line's parse may need (chunk.ts refuses a line that could need more, before
 * parsing it) and room besides, far beyond what a worker keeps (a 10,000-code project is
 * about 35 MB once built); a bound is what makes V8 collect before it doubles a heap.
 */
const WORKER_OLD_MB = (PARSE_BUDGET_BYTES >> 20) + 128;

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
  const threads = options.setup.sharedPolicy !== undefined ? 1 : Math.max(1, options.workers ?? defaultWorkers());
  const capacity = threads === 1 ? 1 : threads * 2;
  const buffers = new ChunkBuffers(CHUNK_BUFFER_BYTES, capacity + 2);
  const executor = threads === 1 ? inThread(options.setup, buffers) : new WorkerPool(options.setup, threads, capacity, buffers);
  const tally = new Tally(options.setup.examples);
  const progress: ReplayProgress = { bytesRead: 0, bytesTotal, lines: 0 };
  const inFlight = new Set<Promise<void>>();
  const submit = async (job: ChunkJob): Promise<void> => {
    const done = executor.run(job).then(() => {
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
      const read = await readFile(options.files[file], file, buffers, submit, onRead, progress.lines, (line) => invalid(line, `longer than ${MAX_LINE_BYTES >> 20} MB: skipped`));
      readBefore += read.bytes;
      if (read.error !== undefined) invalid(read.nextLine, read.error);
    }
    await Promise.all(inFlight);
    for (const data of await executor.tallies()) tally.merge(data);
  } catch (e) {
    if (e instanceof HeavyLine) throw heavyLineError(e, options.files);
    throw e;
  } finally {
    await executor.close();
  }
  return { tally, workers: threads };
}

/** A line too heavy to parse ends the replay, in one line that says where (exit 2). */
function heavyLineError(e: HeavyLine, files: readonly string[]): UsageError {
  return new UsageError(
    `${files[e.file]}:${e.line}: this line may hold ${e.values.toLocaleString("en-US")} JSON values, more than a replay parses in ${PARSE_BUDGET_BYTES >> 20} MB (a record is a few hundred bytes): replay stopped; remove the line or split the file before it`,
  );
}

interface FileRead {
  bytes: number;
  nextLine: number;
  /** The gzip stream broke (truncated, corrupt): what to say at `nextLine`. */
  error: string | undefined;
}

/** A file's bytes, piece by piece, and how many bytes of the file itself (compressed, for gzip) are read so far. */
interface Source {
  readonly pieces: AsyncIterable<Uint8Array>;
  bytesRead(): number;
}

/** A plain file, read into one buffer over and over: each piece is copied out before the next is read, so reading makes no garbage. */
function plainSource(path: string): Source {
  let read = 0;
  async function* pieces(): AsyncGenerator<Uint8Array> {
    const handle = await open(path, "r");
    try {
      const buffer = new Uint8Array(CHUNK_BYTES);
      for (;;) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
        if (bytesRead === 0) return;
        read += bytesRead;
        yield buffer.subarray(0, bytesRead);
      }
    } finally {
      await handle.close();
    }
  }
  return { pieces: pieces(), bytesRead: () => read };
}

function gzipSource(path: string): Source {
  const raw = createReadStream(path, { highWaterMark: CHUNK_BYTES });
  const stream = raw.pipe(createGunzip({ chunkSize: 256 * 1024 }));
  raw.on("error", (e) => stream.destroy(e));
  return { pieces: stream, bytesRead: () => raw.bytesRead };
}

async function readFile(
  path: string,
  file: number,
  buffers: ChunkBuffers,
  submit: (job: ChunkJob) => Promise<void>,
  onRead: (bytes: number, lines: number) => void,
  linesBefore: number,
  onLongLine: (line: number) => void,
): Promise<FileRead> {
  const gzip = /\.gz$/i.test(path);
  const source = gzip ? gzipSource(path) : plainSource(path);
  /** The bytes read and not yet handed on: the first `heldBytes` of `held`, whole lines up to `whole`. */
  let held = buffers.take(CHUNK_BYTES);
  let heldBytes = 0;
  let whole = 0;
  let nextLine = 1;
  /** Bytes of the line being read, since the last newline. */
  let partial = 0;
  /** Inside a line longer than MAX_LINE_BYTES: drop bytes up to its end. */
  let skipping = false;
  /** Hold a piece (copied: a plain file's pieces share one buffer); `last` is the index of its last newline, or -1. */
  const hold = (piece: Uint8Array, last: number) => {
    if (heldBytes + piece.length > held.length) {
      // A long line: double, so that holding it costs a copy of it, not one per piece.
      const bigger = buffers.take(Math.max(2 * held.length, heldBytes + piece.length));
      bigger.set(held.subarray(0, heldBytes));
      buffers.give(held);
      held = bigger;
    }
    held.set(piece, heldBytes);
    if (last !== -1) whole = heldBytes + last + 1;
    heldBytes += piece.length;
  };
  /** Hand on the whole lines held (all that is held, when `final`); the rest moves to a buffer of its own. */
  const flush = async (final: boolean) => {
    const cut = final ? heldBytes : whole;
    if (cut === 0) return;
    const bytes = held.subarray(0, cut); // its buffer moves to the worker
    const rest = buffers.take(heldBytes - cut);
    rest.set(held.subarray(cut, heldBytes));
    held = rest;
    heldBytes -= cut;
    whole = 0;
    const startLine = nextLine;
    // Records are UTF-8, as every file failbook reads: a bad byte is refused where it is, never replaced (docs/security.md).
    if (!isUtf8(bytes)) throw new UsageError(notUtf8(bytes, path, startLine));
    nextLine += countLines(bytes, final);
    await submit({ file, startLine, bytes });
    onRead(source.bytesRead(), linesBefore + nextLine - 1);
  };
  /** The line being read is too long: hand on the whole lines before it, report it, drop what is held of it. */
  const dropLongLine = async () => {
    await flush(false);
    onLongLine(nextLine);
    buffers.give(held);
    held = buffers.take(CHUNK_BYTES);
    heldBytes = 0;
    whole = 0;
  };
  try {
    for await (let chunk of source.pieces) {
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
      hold(chunk, last);
      if (heldBytes >= CHUNK_BYTES) await flush(false);
    }
  } catch (e) {
    if (!gzip || e instanceof UsageError) throw e;
    await flush(false);
    const reason = (e as NodeJS.ErrnoException).code === "Z_BUF_ERROR" ? "truncated gzip (unexpected end of file)" : `corrupt gzip (${(e as Error).message})`;
    return { bytes: source.bytesRead(), nextLine, error: `${reason}: this line and any after it are lost; the lines before it were replayed` };
  }
  if (heldBytes > 0) await flush(true);
  return { bytes: source.bytesRead(), nextLine: skipping ? nextLine + 1 : nextLine, error: undefined };
}

/** Newlines in a chunk, plus one for a last line without one. */
function countLines(bytes: Uint8Array, final: boolean): number {
  let n = 0;
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) n++;
  return final && bytes.length > 0 && bytes[bytes.length - 1] !== 10 ? n + 1 : n;
}

/**
 * Replays chunks into tallies of its own: one per thread, added up once every chunk is done.
 * A tally a chunk (a worker's message each, with a count for every verdict met) would make
 * the main thread allocate as much as it reads.
 */
interface Executor {
  /** Chunks in flight before reading waits. */
  readonly capacity: number;
  /** Replay a chunk; its buffer goes back to the pool. */
  run(job: ChunkJob): Promise<void>;
  /** The tallies of every chunk run, once all are done; a worker ends as its tally comes in. */
  tallies(): Promise<TallyData[]>;
  close(): Promise<void>;
}

function inThread(shared: SharedSetup, buffers: ChunkBuffers): Executor {
  const setup = buildSetup(readSetup(handOff(shared)));
  const tally = new Tally(setup.examples);
  const run = async (job: ChunkJob) => {
    await replayChunk(setup, job, tally);
    buffers.give(job.bytes);
  };
  return { capacity: 1, run, tallies: async () => [tally.data()], close: async () => {} };
}

/**
 * V8 lets a heap grow to a multiple of what survived its last full collection before it
 * collects again, and the multiple follows the heap's limit: up to 4 under the default limit
 * of a machine with 16 GB or more, less the lower the limit. A worker keeps its setup and
 * throws away everything else, so a low bound keeps two workers of a 10,000-code project a
 * hundred megabytes smaller, for a few more collections. The bound grows with the setup, so
 * that a registry of any size fits.
 */
function workerLimits(setupBytes: number): { maxYoungGenerationSizeMb: number; maxOldGenerationSizeMb: number } {
  return { maxYoungGenerationSizeMb: WORKER_YOUNG_MB, maxOldGenerationSizeMb: WORKER_OLD_MB + Math.ceil((16 * setupBytes) / 1048576) };
}

/**
 * The setup's bytes as the one message on a port of their own, for a worker to read as it
 * starts (receiveMessageOnPort) and close: its workerData then keeps no reference to them,
 * and once every thread has read its copy, their memory is freed.
 */
function setupPort(bytes: SharedArrayBuffer): MessagePort {
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(bytes);
  port1.close();
  return port2;
}

/** Should a worker still run out of heap (if chunk.ts's estimate fell short), and Node end it without aborting. */
const outOfMemory = (e: Error): boolean => (e as NodeJS.ErrnoException).code === "ERR_WORKER_OUT_OF_MEMORY";

/** What the main thread asks a replay worker (each with an `id`): a chunk to replay, or, at the end, its tally. */
export type WorkerRequest = ChunkJob | { finish: true };

/** A replay worker's answer to request `id`: a chunk's buffer, the tally, a line too heavy to parse (see HeavyLine), or what failed. */
export interface WorkerAnswer {
  id: number;
  bytes?: Uint8Array;
  tally?: TallyData;
  heavy?: { file: number; line: number; values: number };
  error?: string;
}

class WorkerPool implements Executor {
  readonly capacity: number;
  private readonly workers: Worker[];
  private readonly load: number[];
  /** Requests awaiting their answer: chunks (answered with their buffer) and the final tallies. */
  private readonly waiting = new Map<number, { resolve: (answer: WorkerAnswer) => void; reject: (e: Error) => void; worker: number }>();
  private nextId = 0;
  private failure: Error | undefined;
  /** Workers done with (their tally in), whose exit is no failure. */
  private readonly ended = new Set<Worker>();

  constructor(setup: SharedSetup, count: number, capacity: number, buffers: ChunkBuffers) {
    this.capacity = capacity;
    this.load = new Array<number>(count).fill(0);
    // Beside this module: dist/replay/ when unbundled, dist/bundle/ (an entry of its own) when bundled.
    const url = new URL("./replay-worker.js", import.meta.url);
    const bytes = handOff(setup);
    const limits = workerLimits(bytes.byteLength);
    this.workers = Array.from({ length: count }, () => {
      const port = setupPort(bytes);
      const worker = new Worker(url, { workerData: port, transferList: [port], resourceLimits: limits });
      worker.on("message", (m: WorkerAnswer) => {
        if (m.bytes) buffers.give(m.bytes);
        const request = this.waiting.get(m.id);
        if (!request) return;
        this.waiting.delete(m.id);
        this.load[request.worker]--;
        if (m.heavy) request.reject(new HeavyLine(m.heavy.file, m.heavy.line, m.heavy.values));
        else if (m.error === undefined) request.resolve(m);
        else request.reject(new Error(`a replay worker failed: ${m.error}`));
      });
      worker.on("error", (e) => this.fail(outOfMemory(e) ? new UsageError(`a replay worker ran out of memory (its heap is bounded at ${limits.maxOldGenerationSizeMb} MB): replay stopped; run it with --workers 1, or split the records`) : e));
      // A worker that stops before its tally is asked for (whatever its status) would leave its chunks unanswered: the replay fails instead of waiting.
      worker.on("exit", (code) => {
        if (!this.ended.has(worker)) this.fail(new Error(`a replay worker exited with status ${code} before the replay ended`));
      });
      return worker;
    });
  }

  async run(job: ChunkJob): Promise<void> {
    let worker = 0;
    for (let i = 1; i < this.load.length; i++) if (this.load[i] < this.load[worker]) worker = i;
    await this.ask(worker, job, [job.bytes.buffer as ArrayBuffer]);
  }

  /**
   * Each worker ends as soon as its tally is in: the peak of a replay was its end, two
   * workers' heaps at their fullest while the main thread received and merged the tallies.
   */
  async tallies(): Promise<TallyData[]> {
    return Promise.all(
      this.workers.map(async (worker, i) => {
        const { tally } = await this.ask(i, { finish: true }, []);
        this.ended.add(worker);
        await worker.terminate();
        return tally as TallyData;
      }),
    );
  }

  private ask(worker: number, request: WorkerRequest, transfer: ArrayBuffer[]): Promise<WorkerAnswer> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    this.load[worker]++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject, worker });
      this.workers[worker].postMessage({ ...request, id }, transfer);
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
