/**
 * `nearest` (every "did you mean") bounds the edit distance and orders by text only the
 * closest candidates, for speed on 10,000 codes (failbook lsp renaming a code, issue 38): it
 * must still give exactly the textbook answer, the full table's distance and localeCompare's
 * order among equals.
 */
import { describe, expect, it } from "vitest";
import { levenshtein, nearest } from "../src/util/text.js";

/** The definition: every candidate's full distance, a text containing the other counting as the threshold at most. */
function textbook(word: string, candidates: readonly string[], limit: number): string[] {
  const w = word.toLowerCase();
  const threshold = Math.max(2, Math.floor(w.length / 3));
  return candidates
    .map((c) => {
      const lc = c.toLowerCase();
      const d = levenshtein(w, lc);
      return { c, d: lc.includes(w) || w.includes(lc) ? Math.min(d, threshold) : d };
    })
    .filter((x) => x.d <= threshold)
    .sort((x, y) => x.d - y.d || x.c.localeCompare(y.c))
    .slice(0, limit)
    .map((x) => x.c);
}

describe("nearest", () => {
  it("gives the textbook answer on random words, long candidate lists and every limit", () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const word = () => Array.from({ length: Math.floor(next() * 16) }, () => "abcAB_.é1"[Math.floor(next() * 9)]).join("");
    for (let t = 0; t < 3000; t++) {
      const w = word();
      const candidates = Array.from({ length: 1 + Math.floor(next() * 80) }, word);
      for (const limit of [0, 1, 3, 50]) expect(nearest(w, candidates, limit), `${w} among ${candidates.length}`).toEqual(textbook(w, candidates, limit));
    }
  });

  it("gives the textbook answer over lists long enough for the bit-parallel distance, words of up to 40 characters", () => {
    let seed = 11;
    const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const word = (max: number) => Array.from({ length: Math.floor(next() * max) }, () => "abcAB_.é1\u{1F600}"[Math.floor(next() * 10)]).join("");
    for (let t = 0; t < 400; t++) {
      const w = word(41);
      const candidates = Array.from({ length: 64 + Math.floor(next() * 100) }, () => (next() < 0.3 ? w.slice(0, Math.floor(next() * 40)) + word(6) : word(41)));
      for (const limit of [1, 3, 50]) expect(nearest(w, candidates, limit), `${w} among ${candidates.length}`).toEqual(textbook(w, candidates, limit));
    }
  });

  it("orders thousands of codes within the threshold as localeCompare does", () => {
    const codes = Array.from({ length: 5000 }, (_, i) => `svc${i % 50}.request_timeout_${i}`);
    for (const w of ["svcx0.request_timeout_0", "svc1.request_timeout", "SVC2.Request_Timeout_7"]) {
      expect(nearest(w, codes, 1)).toEqual(textbook(w, codes, 1));
      expect(nearest(w, codes, 5)).toEqual(textbook(w, codes, 5));
    }
  });

  it("asked again for the same word over a long list with codes changed (a rename in the editor), answers for the list it is given", () => {
    const codes = Array.from({ length: 5000 }, (_, i) => `svc${i % 50}.request_timeout_${i}`);
    const w = "svc1.request_timeout";
    expect(nearest(w, codes, 3)).toEqual(textbook(w, codes, 3));
    // The best candidates renamed away, one closer put in another's place, and the list shortened.
    const renamed = codes.map((c, i) => (i === 1 || i === 51 ? `other.${c}` : i === 700 ? "svc1.request_timeou" : c));
    expect(nearest(w, renamed, 3)).toEqual(textbook(w, renamed, 3));
    expect(nearest(w, renamed, 3)).toEqual(textbook(w, renamed, 3));
    expect(nearest(w, codes, 3)).toEqual(textbook(w, codes, 3));
    expect(nearest(w, codes.slice(2), 3)).toEqual(textbook(w, codes.slice(2), 3));
  });
});
