/**
 * What a replay counts (SPEC 14), in a form that adds up: a worker's chunk, a whole run and
 * a shard all make one, and merging them in any order gives the same tally. Examples and
 * invalid lines keep the first ones by location (file order, then line), never "whichever
 * came back first", so that workers and shards do not change the report.
 */
import type { Replayed } from "./replayer.js";

/** A line's location: file index × 2³² + line (1-based), so that sorting by number sorts by place. */
export type Location = number;
export const FILE_STRIDE = 4294967296;
export const locate = (file: number, line: number): Location => file * FILE_STRIDE + line;
export const fileOf = (loc: Location): number => Math.floor(loc / FILE_STRIDE);
export const lineOf = (loc: Location): number => loc % FILE_STRIDE;

/** How many invalid lines a report lists (all are counted). */
export const INVALID_SHOWN = 1000;

/** The side a record is compared with: the recorded outcome, or the baseline's replay. */
export type Before = Replayed | { kind: "unrecorded"; verdict: null };

export interface TransitionTally {
  from: string;
  to: string;
  verdict: string | null;
  count: number;
  /** The first locations, ascending, at most the report's examples limit. */
  examples: Location[];
}

export interface InvalidLine {
  loc: Location;
  message: string;
}

/** A tally as plain data: what a worker posts and a JSON report holds. */
export interface TallyData {
  records: number;
  invalid: number;
  unknown: number;
  changed: number;
  unrecorded: number;
  verdicts: [string, number][];
  transitions: TransitionTally[];
  invalidLines: InvalidLine[];
}

export class Tally {
  records = 0;
  invalid = 0;
  unknown = 0;
  changed = 0;
  unrecorded = 0;
  readonly verdicts = new Map<string, number>();
  /** By from, to and verdict, in the order first met. */
  private readonly transitions = new Map<string, TransitionTally>();
  /** The first invalid lines by location (`add` and `addInvalid` see a chunk's lines in order). */
  invalidLines: InvalidLine[] = [];

  constructor(readonly examplesLimit: number) {}

  /** One replayed record: `after` under the current files, `before` what it is compared with. */
  add(loc: Location, before: Before, after: Replayed): void {
    this.records++;
    // An unknown replay counts under the verdict it was acting on, as its transition names it.
    if (after.verdict !== null) this.verdicts.set(after.verdict, (this.verdicts.get(after.verdict) ?? 0) + 1);
    if (after.kind === "unknown" || before.kind === "unknown") this.unknown++;
    else if (before.kind === "unrecorded") {
      this.unrecorded++;
      return;
    }
    if (before.kind === after.kind || before.kind === "unrecorded") return;
    // A record that becomes unknown is a change (SPEC III): a gate must not pass on what the
    // edit made unknowable. One that was unknown under the baseline is not: nothing to compare.
    if (before.kind !== "unknown") this.changed++;
    this.transition(before.kind, after.kind, after.verdict, 1, [loc]);
  }

  addInvalid(loc: Location, message: string): void {
    this.invalid++;
    if (this.invalidLines.length < INVALID_SHOWN) this.invalidLines.push({ loc, message });
  }

  merge(data: TallyData): void {
    this.records += data.records;
    this.invalid += data.invalid;
    this.unknown += data.unknown;
    this.changed += data.changed;
    this.unrecorded += data.unrecorded;
    for (const [code, n] of data.verdicts) this.verdicts.set(code, (this.verdicts.get(code) ?? 0) + n);
    for (const t of data.transitions) this.transition(t.from, t.to, t.verdict, t.count, t.examples);
    if (data.invalidLines.length > 0) this.invalidLines = firstByLocation([...this.invalidLines, ...data.invalidLines], INVALID_SHOWN);
  }

  data(): TallyData {
    return {
      records: this.records,
      invalid: this.invalid,
      unknown: this.unknown,
      changed: this.changed,
      unrecorded: this.unrecorded,
      verdicts: [...this.verdicts],
      transitions: [...this.transitions.values()],
      invalidLines: this.invalidLines,
    };
  }

  private transition(from: string, to: string, verdict: string | null, count: number, examples: Location[]): void {
    const key = `${from}\u0000${to}\u0000${verdict ?? ""}`;
    const seen = this.transitions.get(key);
    if (seen === undefined) {
      this.transitions.set(key, { from, to, verdict, count, examples: examples.slice(0, this.examplesLimit) });
      return;
    }
    seen.count += count;
    if (seen.examples.length < this.examplesLimit || examples[0] < seen.examples[seen.examples.length - 1]) {
      seen.examples = mergeAscending(seen.examples, examples, this.examplesLimit);
    }
  }
}

function mergeAscending(a: Location[], b: Location[], limit: number): Location[] {
  const out: Location[] = [];
  let i = 0;
  let j = 0;
  while (out.length < limit && (i < a.length || j < b.length)) {
    if (j >= b.length || (i < a.length && a[i] <= b[j])) out.push(a[i++]);
    else out.push(b[j++]);
  }
  return out;
}

function firstByLocation(lines: InvalidLine[], limit: number): InvalidLine[] {
  return lines.sort((x, y) => x.loc - y.loc).slice(0, limit);
}
