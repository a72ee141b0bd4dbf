/**
 * A storm worker thread (`failbook storm --workers N`): runs the jobs the main thread sends,
 * one at a time, under the setup it was started with, posting each result back.
 */
import { parentPort, workerData } from "node:worker_threads";
import { UsageError } from "failbook-runtime/model/errors.js";
import { runJob, type Job, type JobSetup } from "./jobs.js";

const port = parentPort!;
const setup = workerData as JobSetup;

port.on("message", (job: Job) => {
  runJob(setup, job).then(
    (result) => port.postMessage({ result }),
    (e: unknown) => port.postMessage(e instanceof UsageError ? { usage: e.message } : { error: (e as Error)?.stack ?? String(e) }),
  );
});
