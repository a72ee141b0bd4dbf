/**
 * cyrb53 (a fast, well-mixed 53-bit hash; public domain, bryc), fed piece by piece: a
 * fingerprint of text or of a structure without building the text. For identifiers and
 * change detection, never for security.
 */
export class Cyrb53 {
  private h1 = 0xdeadbeef;
  private h2 = 0x41c6ce57;

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
    let h1 = this.h1;
    let h2 = this.h2;
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    // Number#toString(16) is slow: write the nibbles out.
    let out = "";
    for (let shift = 12; shift >= 0; shift -= 4) out += HEX[(h2 >>> shift) & 15];
    for (let shift = 28; shift >= 0; shift -= 4) out += HEX[(h1 >>> shift) & 15];
    return out;
  }
}

const HEX = "0123456789abcdef";
