/**
 * What the SDK differential tests share: loading an example project, a clock the test sets
 * before each call (so failbook and the SDK read Retry-After dates against the same time), and
 * a per-call queue of random draws that both sides take their jitter from.
 */
import { join } from "node:path";
import type { Clock } from "failbook-runtime/engine/clock.js";
import { seededRandom } from "failbook-runtime/engine/random.js";
import { loadProject } from "../../src/load/project.js";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import type { Registry } from "failbook-runtime/model/registry.js";
import { REPO } from "./cli.js";

export function loadExample(name: string): { registry: Registry; playbook: Playbook } {
  const dir = join(REPO, "examples", name);
  const { project } = loadProject({ config: dir, cwd: dir });
  if (!project.registry || !project.playbook) throw new Error(`examples/${name} did not load`);
  return { registry: project.registry.value, playbook: project.playbook.value };
}

/** A virtual clock the test can set; sleeping moves it forward. */
export class SettableClock implements Clock {
  constructor(private time = 0) {}
  now(): number {
    return this.time;
  }
  set(ms: number): void {
    this.time = ms;
  }
  sleep(ms: number): Promise<void> {
    if (ms > 0) this.time += ms;
    return Promise.resolve();
  }
}

/** Draws for one call at a time: each side takes the k-th draw for its k-th random number. */
export class Draws {
  private values: number[] = [];
  private k = 0;
  load(values: number[]): void {
    this.values = values;
    this.k = 0;
  }
  readonly next = (): number => {
    const v = this.values[this.k++];
    if (v === undefined) throw new Error("more random draws than retries");
    return v;
  };
}

/** Successive differences: the waits between attempts. */
export const gaps = (times: readonly number[]): number[] => times.slice(1).map((t, i) => t - times[i]);

/** The test's own seeded stream for generating errors, apart from the jitter draws. */
export function rng(seed: number): { next(): number; int(lo: number, hi: number): number; pick<T>(xs: readonly T[]): T; chance(p: number): boolean } {
  const next = seededRandom(seed);
  return {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (xs) => xs[Math.floor(next() * xs.length)],
    chance: (p) => next() < p,
  };
}
