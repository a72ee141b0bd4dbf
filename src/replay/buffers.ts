/**
 * The chunk buffers of a replay, reused: a chunk's buffer moves to the worker that replays
 * it and comes back with its tally, to carry a later chunk. Fresh buffers would each live
 * until a full collection of the thread last holding them (V8 counts them only as external
 * memory), so a worker would sit on tens of megabytes of chunks it has finished with.
 */
export class ChunkBuffers {
  private readonly free: ArrayBuffer[] = [];

  /**
   * @param size the size of a pooled buffer: a chunk longer than this gets a buffer of its own, not kept
   * @param keep how many free buffers are kept (the chunks that can be in flight, plus the one being filled and the next)
   */
  constructor(
    private readonly size: number,
    private readonly keep: number,
  ) {}

  /** A buffer (the whole of it) of at least `length` bytes: a free one, or a new one. */
  take(length: number): Uint8Array {
    const buffer = length <= this.size ? this.free.pop() : undefined;
    return new Uint8Array(buffer ?? new ArrayBuffer(Math.max(length, this.size)));
  }

  /** A chunk's bytes (a view) are replayed: their buffer may carry another chunk. */
  give(bytes: Uint8Array): void {
    const buffer = bytes.buffer as ArrayBuffer;
    if (buffer.byteLength === this.size && this.free.length < this.keep) this.free.push(buffer);
  }
}
