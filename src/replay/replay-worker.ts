/**
 * A replay worker thread: builds its replayers once from the shared setup, then replays the chunks
 * the main thread sends, one at a time, posting each chunk's tally (and its buffer) back.
 */
import { parentPort, workerData } from "node:worker_threads";
import { replayChunk, type ChunkJob } from "./chunk.js";
import { buildSetup, readSetup, type SharedSetup } from "./setup.js";

const port = parentPort!;
const setup = buildSetup(readSetup(workerData as SharedSetup));
let queue: Promise<void> = Promise.resolve();

port.on("message", (job: ChunkJob & { id: number }) => {
  queue = queue.then(async () => {
    try {
      const data = await replayChunk(setup, job);
      // The chunk's buffer goes back with its tally, to carry another chunk (see ChunkBuffers).
      port.postMessage({ id: job.id, data, bytes: job.bytes }, [job.bytes.buffer as ArrayBuffer]);
    } catch (e) {
      port.postMessage({ id: job.id, error: (e as Error)?.stack ?? String(e) });
    }
  });
});
