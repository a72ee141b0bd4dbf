/** A seeded random source: the same seed gives the same draws, in every run. */

export type Random = () => number; // uniform in [0, 1)

/** mulberry32: small, fast, and good enough for jitter. */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Always the top of the range: the static worst case of a jittered schedule. */
export const maxRandom: Random = () => 1;

/**
 * A seeded source whose seed is drawn from the platform's cryptographic generator: jitter
 * that differs between processes (a fleet must not retry in step), at seededRandom's cost.
 */
export function cryptoRandom(): Random {
  return seededRandom(globalThis.crypto.getRandomValues(new Uint32Array(1))[0]!);
}
