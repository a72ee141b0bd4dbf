/** A fake terminal for Ink components, and a tiny screen model for what a terminal shows. */
import { EventEmitter } from "node:events";
import { PassThrough } from "node:stream";

const ANSI = /\u001B\[[0-9;?]*[A-Za-z]/g;

/** Ink's output stream: records every write; `frame` is the last one (Ink's debug mode writes whole frames). */
export class FakeStdout extends EventEmitter {
  readonly isTTY = true;
  readonly writes: string[] = [];
  constructor(
    public columns = 100,
    public rows = 40,
  ) {
    super();
  }
  write(chunk: string, callback?: () => void): boolean {
    if (chunk !== "") this.writes.push(chunk);
    callback?.();
    return true;
  }
  /** The last frame, without colour codes. */
  get frame(): string {
    return (this.writes.at(-1) ?? "").replace(ANSI, "");
  }
  resize(columns: number, rows: number): void {
    this.columns = columns;
    this.rows = rows;
    this.emit("resize");
  }
  asStream(): NodeJS.WriteStream {
    return this as unknown as NodeJS.WriteStream;
  }
}

/** A keyboard: a raw-mode TTY that Ink reads keys from. */
export class FakeStdin extends PassThrough {
  readonly isTTY = true;
  setRawMode(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  asStream(): NodeJS.ReadStream {
    return this as unknown as NodeJS.ReadStream;
  }
}

export const KEYS = {
  down: "\u001B[B",
  up: "\u001B[A",
  right: "\u001B[C",
  left: "\u001B[D",
  tab: "\t",
  enter: "\r",
  escape: "\u001B",
  backspace: "\u007F",
  ctrlC: "\u0003",
} as const;

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Type `keys` and let Ink read them and repaint. */
export async function press(stdin: FakeStdin, stdout: FakeStdout, keys: string): Promise<void> {
  const before = stdout.writes.length;
  stdin.write(keys);
  // A lone escape is held back one turn of the event loop (it may start a sequence).
  for (let i = 0; i < 20 && stdout.writes.length === before; i++) await tick();
  await tick();
}

/** Rows of a list pane, by name: `│ › ● name  note` (the cursor mark and a status or result mark). */
export function listed(frame: string): string[] {
  return [...frame.matchAll(/^[┃│] (?:›| ) [●◐○✓✗·] (\S+)/gm)].map((m) => m[1]);
}

/** The selected row's name. */
export function selectedName(frame: string): string | undefined {
  return frame.match(/^[┃│] › [●◐○✓✗·] (\S+)/m)?.[1];
}

/**
 * What a terminal shows after `bytes` (scrollback included): text, carriage return, newline,
 * and the cursor moves and erases Ink uses; colour and mode switches change nothing visible.
 */
export function screen(bytes: string): string {
  const lines: string[][] = [[]];
  let row = 0;
  let col = 0;
  const line = () => (lines[row] ??= []);
  for (let i = 0; i < bytes.length; i++) {
    const ch = bytes[i];
    if (ch === "\u001B") {
      const m = /^\u001B\[([0-9;?]*)([A-Za-z])/.exec(bytes.slice(i));
      if (!m) throw new Error(`unexpected escape at ${i}: ${JSON.stringify(bytes.slice(i, i + 8))}`);
      i += m[0].length - 1;
      const n = Number(m[1] || "1");
      if (m[2] === "A") row = Math.max(0, row - n);
      else if (m[2] === "G") col = n - 1;
      else if (m[2] === "K") lines[row] = m[1] === "2" ? [] : line().slice(0, col);
      else if (m[2] === "J") throw new Error("the screen was cleared");
      continue;
    }
    if (ch === "\r") col = 0;
    else if (ch === "\n") {
      // A terminal's driver turns a newline into carriage return + line feed.
      row++;
      col = 0;
      line();
    } else {
      const l = line();
      while (l.length < col) l.push(" ");
      l[col++] = ch;
    }
  }
  return lines
    .map((l) => l.join("").trimEnd())
    .join("\n")
    .replace(/\n+$/, "\n");
}
