/**
 * A replay worker thread: builds its replayers once from the shared setup (its first
 * message), then replays the chunks the main thread sends, one at a time, into one tally;
 * each chunk's buffer goes back as it is done, the tally once the main thread asks for it.
 */
import { parentPort } from "node:worker_threads";
import { HeavyLine, replayChunk, type ReplaySetup } from "./chunk.js";
import type { WorkerAnswer, WorkerRequest, WorkerSetup } from "./run.js";
import { buildSetup, readSetup } from "./setup.js";
import { Tally } from "./tally.js";

const port = parentPort!;
let setup: ReplaySetup;
let tally: Tally;
let queue: Promise<void> = Promise.resolve();

const answer = (message: WorkerAnswer, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

port.on("message", (request: WorkerSetup | (WorkerRequest & { id: number })) => {
  if ("setup" in request) {
    // The first message; nothing here keeps its bytes once read.
    setup = buildSetup(readSetup(request.setup));
    tally = new Tally(setup.examples);
    return;
  }
  queue = queue.then(async () => {
    if ("finish" in request) return answer({ id: request.id, tally: tally.data() });
    try {
      await replayChunk(setup, request, tally);
      // The chunk's buffer goes back, to carry another chunk (see ChunkBuffers).
      answer({ id: request.id, bytes: request.bytes }, [request.bytes.buffer as ArrayBuffer]);
    } catch (e) {
      if (e instanceof HeavyLine) answer({ id: request.id, heavy: { file: e.file, line: e.line, values: e.values } });
      else answer({ id: request.id, error: (e as Error)?.stack ?? String(e) });
    }
  });
});
