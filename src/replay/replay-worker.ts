/**
 * A replay worker thread: builds its replayers once from the shared setup, then replays the
 * chunks the main thread sends, one at a time, into one tally; each chunk's buffer goes back
 * as it is done, the tally once the main thread asks for it.
 */
import { parentPort, receiveMessageOnPort, workerData, type MessagePort } from "node:worker_threads";
import { HeavyLine, replayChunk } from "./chunk.js";
import type { WorkerAnswer, WorkerRequest } from "./run.js";
import { buildSetup, readSetup } from "./setup.js";
import { Tally } from "./tally.js";

const port = parentPort!;
// The setup's bytes, the one message on the port in workerData (see setupPort in run.ts): read, and let go of.
const setupPort = workerData as MessagePort;
const setup = buildSetup(readSetup(receiveMessageOnPort(setupPort)!.message as SharedArrayBuffer));
setupPort.close();
const tally = new Tally(setup.examples);
let queue: Promise<void> = Promise.resolve();

const answer = (message: WorkerAnswer, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

port.on("message", (request: WorkerRequest & { id: number }) => {
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
