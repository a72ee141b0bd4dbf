/**
 * The trigger as a timeline: the storm's phases cut time into segments, each with the
 * multipliers and the error mix in force. Phases that overlap multiply (lint reports two
 * that set the same figure over the same time: storm-phases-overlap).
 */
import type { AdapterError } from "failbook-runtime/model/fixture.js";
import type { ErrorMix, Phase, Storm } from "./model.js";

export interface Segment {
  from: number;
  /** Exclusive; Infinity for the last. */
  to: number;
  arrivalX: number;
  capacityX: number;
  latencyX: number;
  /** The error mix in force: cumulative ratios (ascending, at most 1) and the error of each step. */
  cumulative: Float64Array;
  errors: AdapterError[];
}

export class Timeline {
  readonly segments: Segment[];
  private index = 0;

  constructor(storm: Pick<Storm, "phases" | "upstream">) {
    const phases = storm.phases ?? [];
    const cuts = new Set<number>([0]);
    for (const p of phases) if (p.to_ms > p.from_ms) cuts.add(p.from_ms).add(p.to_ms);
    const edges = [...cuts].sort((a, b) => a - b);
    this.segments = edges.map((from, i) => segmentAt(from, i + 1 < edges.length ? edges[i + 1] : Infinity, phases, storm.upstream.errors ?? []));
  }

  /** The segment in force at `t`; `t` never decreases between calls (the clock's time). */
  at(t: number): Segment {
    let i = this.index;
    const segments = this.segments;
    while (t >= segments[i].to) i++;
    this.index = i;
    return segments[i];
  }
}

/** When the last phase ends, from the file (0 without phases). */
export function lastPhaseEnd(phases: readonly Phase[] | undefined): number {
  let end = 0;
  for (const p of phases ?? []) if (p.to_ms > p.from_ms && p.to_ms > end) end = p.to_ms;
  return end;
}

function segmentAt(from: number, to: number, phases: readonly Phase[], base: readonly ErrorMix[]): Segment {
  let arrivalX = 1;
  let capacityX = 1;
  let latencyX = 1;
  let errorX = 1;
  const extra: ErrorMix[] = [];
  for (const p of phases) {
    if (!(p.from_ms <= from && from < p.to_ms)) continue;
    arrivalX *= p.arrival_x ?? 1;
    capacityX *= p.capacity_x ?? 1;
    latencyX *= p.latency_x ?? 1;
    errorX *= p.error_x ?? 1;
    extra.push(...(p.errors ?? []));
  }
  const mix = [...base.map((m) => ({ ratio: m.ratio * errorX, error: m.error })), ...extra];
  const cumulative = new Float64Array(mix.length);
  let sum = 0;
  mix.forEach((m, i) => {
    sum = Math.min(1, sum + m.ratio);
    cumulative[i] = sum;
  });
  return { from, to, arrivalX, capacityX, latencyX, cumulative, errors: mix.map((m) => m.error) };
}
