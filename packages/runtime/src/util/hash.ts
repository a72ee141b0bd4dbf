/**
 * cyrb53 (a fast, well-mixed 53-bit hash; public domain, bryc), fed piece by piece: a
 * fingerprint of text or of a structure without building the text. For identifiers and
 * change detection, never for security.
 */
export class Cyrb53 {
  private h1 = SEED1;
  private h2 = SEED2;

  /** One 32-bit number (a character code, a tag, a length, a small integer). */
  code(ch: number): this {
    this.h1 = Math.imul(this.h1 ^ ch, 2654435761);
    this.h2 = Math.imul(this.h2 ^ ch, 1597334677);
    return this;
  }

  /** Every UTF-16 code unit of `text`, in order (no length: see `string`). */
  text(text: string): this {
    let h1 = this.h1;
    let h2 = this.h2;
    for (let i = 0; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ ch, 2654435761);
      h2 = Math.imul(h2 ^ ch, 1597334677);
    }
    this.h1 = h1;
    this.h2 = h2;
    return this;
  }

  /** A string as one piece: its length, then its code units. */
  string(text: string): this {
    return this.code(text.length).text(text);
  }

  /** 48 bits of the hash as 12 hex digits: 16 bits of h2, then 32 of h1. */
  hex48(): string {
    return hex48Of(this.h1, this.h2, undefined);
  }

  /** Start again, as a new hash: one object can hash many texts in turn. */
  reset(): this {
    this.h1 = SEED1;
    this.h2 = SEED2;
    return this;
  }
}

/**
 * `new Cyrb53().text(text).hex48()` after `tag` (three characters), in one string and with no
 * object: what a trace id costs each dispatch of a call that brings its own key.
 */
export function taggedHex48(tag: string, text: string): string {
  let h1 = SEED1;
  let h2 = SEED2;
  // Cyrb53.text's mixing, in locals.
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  return hex48Of(h1, h2, tag);
}

/** The finish of the hash, as 12 hex digits after `tag` when given: one flat string (Number#toString(16) is slow, and concatenations make a rope). */
function hex48Of(h1: number, h2: number, tag: string | undefined): string {
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  const x = HEX_CODES;
  if (tag === undefined) {
    return String.fromCharCode(x[(h2 >>> 12) & 15], x[(h2 >>> 8) & 15], x[(h2 >>> 4) & 15], x[h2 & 15], x[h1 >>> 28], x[(h1 >>> 24) & 15], x[(h1 >>> 20) & 15], x[(h1 >>> 16) & 15], x[(h1 >>> 12) & 15], x[(h1 >>> 8) & 15], x[(h1 >>> 4) & 15], x[h1 & 15]);
  }
  return String.fromCharCode(tag.charCodeAt(0), tag.charCodeAt(1), tag.charCodeAt(2), x[(h2 >>> 12) & 15], x[(h2 >>> 8) & 15], x[(h2 >>> 4) & 15], x[h2 & 15], x[h1 >>> 28], x[(h1 >>> 24) & 15], x[(h1 >>> 20) & 15], x[(h1 >>> 16) & 15], x[(h1 >>> 12) & 15], x[(h1 >>> 8) & 15], x[(h1 >>> 4) & 15], x[h1 & 15]);
}

const SEED1 = 0xdeadbeef;
const SEED2 = 0x41c6ce57;
const HEX_CODES = [..."0123456789abcdef"].map((c) => c.charCodeAt(0));
