/**
 * A replay's project, loaded in a thread of its own (./setup-worker.ts), which hands back the
 * shared setup and ends: the YAML, its positions and everything parsing them allocated go
 * with that thread. Loaded in the main thread, they would sit in its heap for the whole
 * replay, since V8 collects a heap as it allocates and the main thread hardly allocates
 * while the workers replay.
 */
import { Worker } from "node:worker_threads";
import type { Finding } from "failbook-runtime/model/finding.js";
import type { SharedSetup } from "./setup.js";
import type { Shard } from "./shard.js";

export interface SetupRequest {
  /** `--config`, as given. */
  config: string | undefined;
  /** `--against`, as given. */
  against: string | undefined;
  seed: number;
  shard: Shard | undefined;
  examples: number;
}

/** The texts of the files findings point into, for their excerpts. */
export type SourceTexts = Map<string, { text: string }>;

/** What the project's redactor needs (load/redaction.ts): the config's `redact:` patterns, and the vocabulary it keeps. */
export interface Redaction {
  patterns: readonly string[];
  vocabulary: readonly string[];
}

/** What the loading thread found: the setup, or why there is none (the CLI says it as it would have). */
export type SetupAnswer =
  | { kind: "loaded"; setup: SharedSetup; redaction: Redaction }
  /** The config loaded and its redaction applies, but the registry or playbook did not. */
  | { kind: "unloaded"; findings: Finding[]; sources: SourceTexts; redaction: Redaction }
  /** The config itself is invalid (InvalidProject). */
  | { kind: "invalid"; findings: Finding[]; sources: SourceTexts }
  | { kind: "usage"; message: string }
  | { kind: "internal"; message: string; stack: string | undefined };

export function loadSetupApart(request: SetupRequest): Promise<SetupAnswer> {
  // Beside this module: dist/replay/ when unbundled, dist/bundle/ (an entry of its own) when bundled.
  const worker = new Worker(new URL("./setup-worker.js", import.meta.url), { workerData: request });
  return new Promise((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
    // After the answer, this changes nothing; without one, it says why.
    worker.once("exit", (code) => reject(new Error(`the thread loading the project exited with status ${code} and no answer`)));
  });
}
