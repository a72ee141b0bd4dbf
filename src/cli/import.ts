/** `failbook import otlp`: OpenTelemetry trace exports (OTLP/JSON) to records for `failbook replay`. */
import { gzipSync } from "node:zlib";
import { redactValue } from "failbook-runtime/engine/redact.js";
import { importOtlp } from "../replay/otlp.js";
import { readTextFile, writeFileAtomic } from "../util/fs.js";
import { inertJson, inertOutput } from "failbook-runtime/util/inert.js";
import { plural } from "../util/text.js";
import { type CommandRegistrar, type Globals, loadFor } from "./command.js";
import type { Io } from "./io.js";

const MAX_EXPORT_MB = 512;

const HELP = `
Reads OTLP/JSON trace exports: one ExportTraceServiceRequest per file (what the OTLP JSON
exporters send, { "resourceSpans": [...] }), or one per line (the Collector's file exporter).

One record per call: the client spans (kind CLIENT) under one parent span that share the
method (http.request.method) and target (url.full without its query, else server.address
and http.route) are the attempts of one call, in start-time order (http.request.resend_count
breaks ties). For each attempt:
  status       error when the span has error.type or an ERROR status, else ok
  kind         error.type (else _OTHER)
  http_status  http.response.status_code
  message      the exception event's exception.message (else the status message)
  headers      http.response.header.* attributes (e.g. retry-after)
  latency_ms   the span's duration
The call: run_id the trace id, id the first attempt's span id, tool gen_ai.tool.name (on
the span or its parent), else rpc.method, else the method and route. A call whose last
attempt succeeded records outcome succeeded or recovered; otherwise what the caller decided
is not in the trace, and the record has no outcome (replay --against compares it anyway).

Records are written in the order of their first attempt, redacted (secrets never leave),
to --out (gzip when it ends in .gz) or stdout.

Exit status: 0 written; 1 a file is not an OTLP/JSON trace export, or a client span could
not be read (each named, the rest still written); 2 a missing file or a bad flag.

Examples:
  failbook import otlp traces.json --out records/2026-11-20.jsonl.gz
  failbook import otlp collector/*.jsonl > records.jsonl`;

export const registerImport: CommandRegistrar = (program, run) => {
  const command = program.command("import").description("turn other tools' data into records for failbook replay (see: failbook import otlp --help)").addHelpCommand(false);
  command
    .command("otlp")
    .description("OpenTelemetry trace exports (OTLP/JSON) to records, one per call, for failbook replay")
    .argument("<files...>", "OTLP/JSON trace exports")
    .option("--out <file>", "write the records here (.jsonl, or .jsonl.gz for gzip) instead of stdout")
    .addHelpText("after", HELP)
    .action(run((io, globals, files: string[], flags: { out?: string }) => importCommand(io, globals, files, flags)));
};

async function importCommand(io: Io, globals: Globals, files: string[], flags: { out?: string }): Promise<number> {
  useProjectRedactions(io, globals);
  const lines: string[] = [];
  let problems = 0;
  let spans = 0;
  for (const file of files) {
    const text = readTextFile(file, { maxBytes: MAX_EXPORT_MB * 1048576 });
    for (const { doc, line } of documents(text)) {
      if (doc === undefined) {
        io.err(`${file}${line === undefined ? "" : `:${line}`}: not JSON; give OTLP/JSON trace exports (resourceSpans)\n`);
        problems++;
        continue;
      }
      const result = importOtlp(doc);
      spans += result.spans;
      for (const p of result.problems) {
        io.err(`${file}${line === undefined ? "" : `:${line}`}: ${p.path ? `${p.path}: ` : ""}${p.message}\n`);
        problems++;
      }
      for (const record of result.records) lines.push(inertJson(redactValue(record, (t) => io.redact(t))));
    }
  }
  const out = lines.length === 0 ? "" : lines.join("\n") + "\n";
  if (flags.out === undefined) io.out(out);
  else if (/\.gz$/i.test(flags.out)) writeFileAtomic(flags.out, gzipSync(Buffer.from(inertOutput(io.redact(out), false), "utf8")));
  else io.writeFile(flags.out, out);
  if (flags.out !== undefined) io.err(`wrote ${plural(lines.length, "record")} from ${plural(spans, "span")} to ${flags.out}\n`);
  return problems > 0 ? 1 : 0;
}

/** The documents of an export: the whole file, or (the Collector's file exporter) one per line. */
function* documents(text: string): Generator<{ doc: unknown; line: number | undefined }> {
  try {
    yield { doc: JSON.parse(text), line: undefined };
    return;
  } catch {
    // not one document: one per line
  }
  const lines = text.split("\n");
  let seen = false;
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() === "") continue;
    seen = true;
    try {
      yield { doc: JSON.parse(lines[i]), line: i + 1 };
    } catch {
      yield { doc: undefined, line: i + 1 };
    }
  }
  if (!seen) yield { doc: undefined, line: undefined };
}

/** The project's own `redact:` patterns when there is a project here; an import needs none. */
function useProjectRedactions(io: Io, globals: Globals): void {
  try {
    loadFor(io, globals, { fixturePaths: [] });
  } catch (e) {
    // No project here (or a broken one): the built-in patterns still apply. A config named with --config must load.
    if (globals.config !== undefined) throw e;
  }
}
