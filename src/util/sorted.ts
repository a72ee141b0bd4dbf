/**
 * The index of the first value above `x` in an ascending sequence of `length` values
 * (`at(i)`), looking from `from` on: how many of them, from there, are at most `x`, plus
 * `from`. By bisection: line starts, item starts and verdict lines run to hundreds of
 * thousands.
 */
export function firstAbove(length: number, at: (i: number) => number, x: number, from = 0): number {
  let lo = from;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (at(mid) <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
