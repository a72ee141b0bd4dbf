/**
 * A replay worker thread: builds its replayers once from the setup, then replays the chunks
 * the main thread sends, one at a time, posting each chunk's tally back.
 */
import { parentPort, workerData } from "node:worker_threads";
import { replayChunk, type ChunkJob } from "./chunk.js";
import { buildSetup, type SetupData } from "./setup.js";

const port = parentPort!;
const setup = buildSetup(workerData as SetupData);
let queue: Promise<void> = Promise.resolve();

port.on("message", (job: ChunkJob & { id: number }) => {
  queue = queue.then(async () => {
    try {
      port.postMessage({ id: job.id, data: await replayChunk(setup, job) });
    } catch (e) {
      port.postMessage({ id: job.id, error: (e as Error)?.stack ?? String(e) });
    }
  });
});
