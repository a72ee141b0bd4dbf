/**
 * A file of records for the production sink (SPEC 14): `dispatch(call, attempt, { record:
 * writer.sink })` appends one JSON line per finished dispatch, gzipped when the file name ends
 * in `.gz` (each process appends a gzip member of its own; gzip readers, failbook replay
 * among them, read the members as one stream). The dispatcher has redacted the record already.
 */
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import type { Writable } from "node:stream";
import { createGzip } from "node:zlib";
import type { RecordSink } from "../model/record.js";
import { inertJson } from "../util/inert.js";

export interface RecordWriter {
  /** Hand this to `dispatch(..., { record })`. Waits when the file falls behind. */
  sink: RecordSink;
  /** Flush and close the file. */
  close(): Promise<void>;
}

export function createRecordWriter(path: string): RecordWriter {
  const file = createWriteStream(path, { flags: "a" });
  const out: Writable = /\.gz$/i.test(path) ? createGzip() : file;
  if (out !== file) out.pipe(file);
  // Every write that finds the file behind waits for the same `drain`: one listener however many dispatches write at once.
  let drained: Promise<unknown> | undefined;
  return {
    async sink(record) {
      if (out.write(inertJson(record) + "\n")) return;
      drained ??= once(out, "drain").finally(() => (drained = undefined));
      await drained;
    },
    async close() {
      out.end();
      await once(file, "close");
    },
  };
}
