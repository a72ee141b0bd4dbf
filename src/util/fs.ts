/**
 * The one reader and the one writer of files that come from users (SPEC 16): a read takes
 * only a regular file, up to a size limit, as strict UTF-8; a write is atomic, goes through
 * symbolic links to their target, keeps the file's mode and line endings, refuses to
 * rewrite a file that is not UTF-8, and leaves no temporary file behind.
 */
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
  type Stats,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { UsageError } from "failbook-runtime/model/errors.js";
import { nodeCrypto } from "failbook-runtime/util/builtin.js";

export const DEFAULT_MAX_FILE_MB = 64;
const MB = 1024 * 1024;

/** A file failbook will not read or rewrite; the message is one line saying why and what to do. */
export class FileRefused extends UsageError {
  constructor(
    message: string,
    readonly reason: "not-regular" | "too-large" | "not-utf8" | "unreadable" | "missing",
  ) {
    super(message);
  }
}

/** The file system refused a write (no permission, no space, a file where a directory must be). */
export class WriteFailed extends UsageError {
  constructor(
    shown: string,
    readonly code: string,
  ) {
    super(`cannot write ${shown}: ${code}; choose a file path in a writable directory`);
  }
}

export interface ReadOptions {
  /** Size limit in bytes (default 64 MB). */
  maxBytes?: number;
  /** The path as shown to the user. */
  shown?: string;
}

/**
 * The text of a regular file. A FIFO, socket or device is refused without being waited on
 * (the file is opened non-blocking and checked before any read), so is a file over the
 * limit or one that is not valid UTF-8. A BOM stays in the text, so positions match the file.
 */
export function readTextFile(path: string, options: ReadOptions = {}): string {
  // The bytes are decoded before anything else is read: they may be read into the scratch buffer.
  return decodeUtf8(readFile(path, options, true), options.shown ?? path);
}

/** The bytes of a regular file, refused as readTextFile refuses them, but not decoded. */
export function readFileBytes(path: string, options: ReadOptions = {}): Uint8Array {
  return readFile(path, options, false);
}

/**
 * A buffer text reads share, grown to the largest file read up to SCRATCH_LIMIT: its bytes
 * are decoded at once, so the files of a project do not each take fresh memory (the 42
 * files of 12 MB of a 10,000-code project were each read into a new buffer, faulted in page by
 * page and freed again).
 */
let scratch: Buffer | undefined;
const SCRATCH_LIMIT = 16 * MB;

function readFile(path: string, options: ReadOptions, useScratch: boolean): Uint8Array {
  const shown = options.shown ?? path;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_FILE_MB * MB;
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // ENOTDIR: a path through a file, where nothing can be.
    throw new FileRefused(`cannot read ${shown}: ${code ?? (e as Error).message}`, code === "ENOENT" || code === "ENOTDIR" ? "missing" : "unreadable");
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new FileRefused(`${shown} is ${kindOf(stats)}, not a regular file; failbook reads and writes only regular files: replace it with one, or name another path`, "not-regular");
    if (stats.size > maxBytes) throw tooLarge(shown, maxBytes);
    return readAll(fd, maxBytes, shown, stats.size, useScratch);
  } finally {
    closeSync(fd);
  }
}

/** The file's bytes (see readFileBytes), or undefined when nothing is there; anything else that stops the read is refused. */
export function readBytesIfExists(path: string, options: ReadOptions = {}): Uint8Array | undefined {
  try {
    return readFileBytes(path, options);
  } catch (e) {
    if (e instanceof FileRefused && e.reason === "missing") return undefined;
    throw e;
  }
}

/** A directory and every directory above it, nearest first. */
export function* ancestors(dir: string): Generator<string> {
  for (let at = dir; ; at = dirname(at)) {
    yield at;
    if (dirname(at) === at) return;
  }
}

/** Whether anything is at a path, a dangling symbolic link included. */
export function pathExists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Read to the end, but never more than the limit: a file may grow after it was measured.
 * The first read asks for the measured size and one byte more, so a file that did not grow
 * takes one read and a second that finds the end.
 */
function readAll(fd: number, maxBytes: number, shown: string, size: number, useScratch: boolean): Uint8Array {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const want = Math.min(total === 0 ? size + 1 : 64 * 1024, maxBytes + 1 - total) || 1;
    let chunk: Buffer;
    if (total === 0 && useScratch && want <= SCRATCH_LIMIT) {
      if (scratch === undefined || scratch.length < want) scratch = Buffer.allocUnsafe(Math.max(want, 64 * 1024));
      chunk = scratch.subarray(0, want);
    } else chunk = Buffer.allocUnsafe(want);
    const n = readSync(fd, chunk, 0, chunk.length, null);
    if (n === 0) break;
    total += n;
    if (total > maxBytes) throw tooLarge(shown, maxBytes);
    chunks.push(chunk.subarray(0, n));
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total);
}

export function tooLarge(shown: string, maxBytes: number): FileRefused {
  const mb = (n: number) => `${Math.round((n / MB) * 10) / 10} MB`;
  return new FileRefused(`${shown} is larger than ${mb(maxBytes)} (max_file_mb); raise max_file_mb in failbook.yaml if it really belongs to the project`, "too-large");
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return "a directory";
  if (stats.isFIFO()) return "a FIFO (named pipe)";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  return "not a regular file";
}

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Strict UTF-8: invalid bytes are refused with their line and column, never replaced. */
export function decodeUtf8(bytes: Uint8Array, shown: string): string {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return refuseNonUtf8(notUtf8(bytes, shown));
  }
}

/**
 * What to say of bytes that are not valid UTF-8: where the first bad byte is (`firstLine` is
 * the line the bytes start on, for a piece of a file) and what to do.
 */
export function notUtf8(bytes: Uint8Array, shown: string, firstLine = 1): string {
  const at = firstInvalidByte(bytes);
  const lineStart = at === 0 ? 0 : bytes.lastIndexOf(0x0a, at - 1) + 1; // (a negative index would count from the end)
  let line = firstLine;
  for (let i = 0; i < lineStart; i++) if (bytes[i] === 0x0a) line++;
  const column = STRICT_UTF8.decode(bytes.subarray(lineStart, at)).length + 1;
  const hex = bytes[at].toString(16).toUpperCase().padStart(2, "0");
  return `${shown}:${line}:${column}: not valid UTF-8 (byte 0x${hex}); failbook reads and rewrites UTF-8 only: convert the file to UTF-8 (e.g. iconv -f latin1 -t utf-8)`;
}

function refuseNonUtf8(message: string): never {
  throw new FileRefused(message, "not-utf8");
}

/** Index of the first byte that does not start or continue a well-formed UTF-8 sequence. */
function firstInvalidByte(b: Uint8Array): number {
  for (let i = 0; i < b.length; ) {
    const c = b[i];
    const extra = c < 0x80 ? 0 : c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : -1;
    if (extra < 0) return i;
    // The second byte's range excludes overlong forms and surrogates (RFC 3629, section 4).
    const lo = c === 0xe0 ? 0xa0 : c === 0xf0 ? 0x90 : 0x80;
    const hi = c === 0xed ? 0x9f : c === 0xf4 ? 0x8f : 0xbf;
    for (let k = 1; k <= extra; k++) {
      const d = b[i + k];
      if (d === undefined || d < (k === 1 ? lo : 0x80) || d > (k === 1 ? hi : 0xbf)) return i;
    }
    i += extra + 1;
  }
  return b.length - 1;
}

export interface WriteOptions {
  /** The path as shown to the user. */
  shown?: string;
  /** The file's current text, when the caller has just read it: it is not read again. */
  current?: string;
}

/**
 * Replace a file's content atomically: a temporary file in the same directory, written and
 * flushed to disk, then renamed over the target, so a crash or a kill at any moment leaves
 * either the old content or the new one. A symbolic link stays a link and its target is
 * replaced; an existing file keeps its mode and, when all its lines end in CRLF, its CRLF.
 */
export function writeFileAtomic(path: string, content: string | Uint8Array, options: WriteOptions = {}): void {
  const shown = options.shown ?? path;
  const target = throughLinks(resolve(path), shown);
  // Bytes (a gzip file) are replaced whole: only the old file's mode carries over.
  const existing = typeof content !== "string" ? currentMode(target) : options.current !== undefined ? currentMode(target, options.current) : currentFile(target, shown);
  const text = typeof content !== "string" ? content : existing?.crlf ? content.replace(/(?<!\r)\n/g, "\r\n") : content;
  const dir = dirname(target);
  const tmp = join(dir, temporaryName(basename(target), process.pid, nodeCrypto().randomBytes(6).toString("hex")));
  try {
    makeDirectory(dir);
    removeStaleTemporaries(dir, basename(target));
    cleanUpOnExit();
    pending.add(tmp);
    const fd = openSync(tmp, "wx", existing?.mode ?? 0o666);
    try {
      // open() applies the umask; the old file's mode is restored exactly.
      if (existing) fchmodSync(fd, existing.mode);
      const bytes = typeof text === "string" ? Buffer.from(text, "utf8") : text;
      for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, target);
    pending.delete(tmp);
    syncDirectory(dir);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new WriteFailed(shown, (e as NodeJS.ErrnoException).code ?? (e as Error).message);
  } finally {
    if (pending.delete(tmp)) rmSync(tmp, { force: true });
  }
}

/** A write's temporary file, beside its target: `.NAME.PID.HEX.tmp`. */
const temporaryName = (name: string, pid: number, hex: string): string => `.${name}.${pid}.${hex}.tmp`;

/** A temporary file older than this is stale even if a process with its writer's pid lives (pids are reused). */
const STALE_AFTER_MS = 10 * 60 * 1000;

/**
 * Remove what earlier writes to this target left when killed (SIGKILL allows no clean-up):
 * its temporary files whose writer is gone or that are older than any write takes. Only this
 * target's pattern, only regular files; best effort, never in the way of the write itself.
 */
function removeStaleTemporaries(dir: string, name: string): void {
  const prefix = `.${name}.`;
  let entries: string[];
  try {
    entries = readdirSync(dir).filter((e) => e.startsWith(prefix) && e.endsWith(".tmp"));
  } catch {
    return;
  }
  for (const entry of entries) {
    const match = /^(\d+)\.([0-9a-f]{12})\.tmp$/.exec(entry.slice(prefix.length));
    if (!match || entry !== temporaryName(name, Number(match[1]), match[2])) continue;
    const path = join(dir, entry);
    try {
      const stats = lstatSync(path);
      if (!stats.isFile() || pending.has(path)) continue;
      if (processAlive(Number(match[1])) && Date.now() - stats.mtimeMs < STALE_AFTER_MS) continue;
      rmSync(path, { force: true });
    } catch {
      // Gone already, or not ours to remove: the write goes on.
    }
  }
}

/** Whether a process with this pid runs (one we may not signal runs too). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** mkdir -p; a file where a directory must be is ENOTDIR (mkdir says EEXIST, which misleads). */
function makeDirectory(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") throw Object.assign(new Error("not a directory"), { code: "ENOTDIR" });
    throw e;
  }
}

/** Follow symbolic links to the file they name (which may not exist yet). */
function throughLinks(path: string, shown: string): string {
  let current = path;
  for (let hops = 0; hops < 40; hops++) {
    let stats: Stats;
    try {
      stats = lstatSync(current);
    } catch {
      return current;
    }
    if (!stats.isSymbolicLink()) return current;
    current = resolve(dirname(current), readlinkSync(current));
  }
  throw new UsageError(`cannot write ${shown}: too many levels of symbolic links`);
}

/** What a rewrite must keep of the file it replaces; refuses what it must not replace. */
function currentFile(target: string, shown: string): { mode: number; crlf: boolean } | undefined {
  let text: string;
  try {
    text = readTextFile(target, { shown });
  } catch (e) {
    if (e instanceof FileRefused && e.reason === "missing") return undefined;
    throw e;
  }
  return { mode: lstatSync(target).mode & 0o7777, crlf: allCrlf(text) };
}

/** The file's mode, and whether `text` (its content) ends every line in CRLF; undefined when there is no file. */
function currentMode(target: string, text?: string): { mode: number; crlf: boolean } | undefined {
  try {
    return { mode: lstatSync(target).mode & 0o7777, crlf: text !== undefined && allCrlf(text) };
  } catch {
    return undefined;
  }
}

const allCrlf = (text: string): boolean => text.includes("\r\n") && !/(^|[^\r])\n/.test(text);

function syncDirectory(dir: string): void {
  try {
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Not every platform can open or flush a directory; the rename itself is still atomic.
  }
}

/** Temporary files not yet renamed into place; removed however the process ends, short of SIGKILL. */
const pending = new Set<string>();
let cleanupInstalled = false;

/**
 * Writes are synchronous, so a signal's handler runs only between writes; the handlers
 * still remove anything pending, then re-raise the signal so the exit status says how the
 * process ended. Without a handler, SIGINT would end the process mid-write.
 */
function cleanUpOnExit(): void {
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  process.on("exit", removePending);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    const handler = () => {
      removePending();
      process.removeListener(signal, handler);
      process.kill(process.pid, signal);
    };
    process.on(signal, handler);
  }
}

function removePending(): void {
  for (const tmp of pending) rmSync(tmp, { force: true });
  pending.clear();
}
